// Turns the chunks of a SequentialReader into runs of whole fixed-size records: a record cut by a
// chunk boundary is reassembled, and a stream that ends inside a record is reported as corruption.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "io/sequential_reader.hpp"

namespace edgestream {

/// Calls fn(records, first_record_index) for consecutive runs of whole records (each run a
/// multiple of record_size bytes, possibly a single reassembled record) until the reader is
/// exhausted; stops at the first non-ok Status returned by fn. `name` is used in errors. `Reader`
/// is anything with SequentialReader's next() (e.g. compress/framed_stream.hpp's FramedReader).
template <typename Reader, typename Fn>
Status for_each_record_run(Reader& reader, std::size_t record_size, const std::string& name, Fn&& fn) {
  std::array<std::byte, 256> carry{};
  if (record_size == 0 || record_size > carry.size()) {
    return invalid_argument(name + ": record size " + std::to_string(record_size) + " is not in 1.." +
                            std::to_string(carry.size()));
  }
  std::size_t carried = 0;
  std::uint64_t index = 0;
  for (;;) {
    ES_ASSIGN_OR_RETURN(std::span<const std::byte> chunk, reader.next());
    if (chunk.empty()) break;
    std::size_t pos = 0;
    if (carried > 0) {
      const std::size_t take = std::min(record_size - carried, chunk.size());
      std::memcpy(carry.data() + carried, chunk.data(), take);
      carried += take;
      pos = take;
      if (carried < record_size) continue;
      ES_RETURN_IF_ERROR(fn(std::span<const std::byte>(carry.data(), record_size), index));
      ++index;
      carried = 0;
    }
    const std::size_t whole = (chunk.size() - pos) / record_size * record_size;
    if (whole > 0) {
      ES_RETURN_IF_ERROR(fn(chunk.subspan(pos, whole), index));
      index += whole / record_size;
    }
    carried = chunk.size() - pos - whole;
    std::memcpy(carry.data(), chunk.data() + pos + whole, carried);
  }
  if (carried != 0) {
    return corruption(name + " ends inside a record: " + std::to_string(carried) + " bytes after record " +
                      std::to_string(index) + " (records are " + std::to_string(record_size) + " bytes)");
  }
  return Status::ok();
}

}  // namespace edgestream
