// Grouping one segment of a keyed edge stream by key (core/keyed_segments.hpp): a counting sort.
#include "core/keyed_segments.hpp"

#include <algorithm>

namespace edgestream {
namespace {

template <std::size_t kRecordBytes>
void group_records(const std::byte* in, std::size_t n, std::size_t vertex_offset, const DestinationKey& key,
                   std::byte* out, std::span<std::uint32_t> ends) {
  auto key_at = [&](std::size_t i) {
    VertexId v = 0;
    std::memcpy(&v, in + i * kRecordBytes + vertex_offset, sizeof v);
    return key(v);
  };
  std::fill(ends.begin(), ends.end(), 0U);
  for (std::size_t i = 0; i < n; ++i) ++ends[key_at(i)];
  std::uint32_t running = 0;  // counts -> each key's first index
  for (std::uint32_t& e : ends) {
    const std::uint32_t c = e;
    e = running;
    running += c;
  }
  for (std::size_t i = 0; i < n; ++i) std::memcpy(out + std::size_t{ends[key_at(i)]++} * kRecordBytes, in + i * kRecordBytes, kRecordBytes);
  // Each key's cursor now stands at the end of its records.
}

}  // namespace

void group_segment(const std::byte* in, std::size_t n, std::size_t record_bytes, std::size_t vertex_offset,
                   const DestinationKey& key, std::byte* out, std::span<std::uint32_t> ends) {
  if (record_bytes == 8) {
    group_records<8>(in, n, vertex_offset, key, out, ends);
  } else {
    group_records<12>(in, n, vertex_offset, key, out, ends);
  }
}

}  // namespace edgestream
