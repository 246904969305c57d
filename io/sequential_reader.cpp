// SequentialReader: read-ahead over io_uring (or synchronous reads), retries and error reporting.
#include "io/sequential_reader.hpp"

#include <algorithm>
#include <chrono>

#include "io/fault_injection.hpp"

namespace edgestream {
SequentialReader::SequentialReader(const File& file, std::uint64_t begin, std::uint64_t end, const IoOptions& options,
                                   IoCounters* counters)
    : file_(&file),
      end_(end),
      next_offset_(begin),
      returned_(begin),
      options_(options),
      counters_(counters != nullptr ? counters : &local_counters_) {}

Expected<std::unique_ptr<SequentialReader>> SequentialReader::open(const File& file, std::uint64_t begin,
                                                                  std::uint64_t end, const IoOptions& options,
                                                                  IoCounters* counters) {
  if (begin % file.alignment() != 0 || begin > end) {
    return invalid_argument("reader range [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " +
                            file.path() + " is not aligned to " + std::to_string(file.alignment()));
  }
  if (options.read_chunk == 0 || options.read_chunk % kIoAlignment != 0) {
    return invalid_argument("read chunk " + std::to_string(options.read_chunk) + " must be a positive multiple of " +
                            std::to_string(kIoAlignment));
  }
  std::unique_ptr<SequentialReader> reader(new SequentialReader(file, begin, end, options, counters));
  const std::uint64_t chunks = (end - begin + options.read_chunk - 1) / options.read_chunk;
  // One slot is held by the caller while the others are in flight.
  const unsigned slots = static_cast<unsigned>(std::min<std::uint64_t>(std::max(2U, options.depth + 1), std::max<std::uint64_t>(chunks, 1)));
  // A range that fits in one request gains nothing from a ring; read it synchronously.
  if (options.engine == IoEngine::kUring && chunks > 1 && uring_available()) {
    if (!reader->ring_.init(slots, options.completion_timeout).is_ok()) reader->options_.engine = IoEngine::kSync;
  } else {
    reader->options_.engine = IoEngine::kSync;
  }
  reader->slots_.resize(chunks == 0 ? 0 : slots);
  for (auto& slot : reader->slots_) slot.buffer = AlignedBuffer(options.read_chunk);
  for (int i = 0; i < static_cast<int>(reader->slots_.size()) && reader->next_offset_ < end; ++i) {
    ES_RETURN_IF_ERROR(reader->submit(i));
  }
  return reader;
}

Status SequentialReader::submit(int slot_index) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  slot.offset = next_offset_;
  slot.length = static_cast<std::size_t>(std::min<std::uint64_t>(options_.read_chunk, end_ - next_offset_));
  slot.ready = false;
  slot.error = Status::ok();
  next_offset_ += slot.length;
  order_.push_back(slot_index);
  if (options_.engine == IoEngine::kSync) return Status::ok();  // read when waited for
  const std::size_t request = round_up(slot.length, file_->alignment());
  ++counters_->requests;
  return ring_.submit_read(file_->fd(), slot.buffer.data(), request, slot.offset, static_cast<std::uint64_t>(slot_index));
}

// Accepts the OS result of the request for `slot`; anything short of the wanted length is finished
// synchronously through File::read_at, which owns the retry rules.
Status SequentialReader::complete(int slot_index, int os_result, bool from_ring) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  const std::size_t request = round_up(slot.length, file_->alignment());
  const long long result =
      from_ring ? fault_injection::adjust(fault_injection::Op::kRead, file_->path(), request, os_result) : 0;
  std::size_t done = 0;
  if (result > 0) done = std::min<std::size_t>(static_cast<std::size_t>(result), slot.length);
  if (result < 0 && result != -EINTR && result != -EAGAIN) {
    slot.error = errno_status(static_cast<int>(-result), "read", file_->path(), static_cast<long long>(slot.offset));
  } else if (done < slot.length) {
    done = round_down(done, file_->alignment());
    auto rest = file_->read_at(slot.offset + done, std::span(slot.buffer.data() + done, request - done));
    if (!rest) {
      slot.error = rest.status();
    } else if (done + *rest < slot.length) {
      slot.error = corruption("unexpected end of file in " + file_->path() + " at offset " +
                              std::to_string(slot.offset + done + *rest) + " (expected data up to offset " +
                              std::to_string(end_) + ")");
    }
  }
  slot.ready = true;
  if (slot.error.is_ok()) counters_->bytes_read += slot.length;
  return Status::ok();
}

Status SequentialReader::wait_for(int slot_index) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  const std::uint64_t start = monotonic_ns();
  if (options_.engine == IoEngine::kSync && !slot.ready) {
    ++counters_->requests;
    ES_RETURN_IF_ERROR(complete(slot_index, 0, /*from_ring=*/false));
  }
  while (!slot.ready) {
    auto waited = ring_.wait();
    if (!waited) {
      return Status(waited.status().code(), "read " + file_->path() + " at offset " + std::to_string(slot.offset) + ": " +
                                                waited.status().message());
    }
    const UringQueue::Completion c = *waited;
    ES_RETURN_IF_ERROR(complete(static_cast<int>(c.tag), c.result, /*from_ring=*/true));
  }
  counters_->wait_ns += monotonic_ns() - start;
  return slot.error;
}

Expected<std::span<const std::byte>> SequentialReader::next() {
  if (held_ >= 0) {
    const int slot = held_;
    held_ = -1;
    if (next_offset_ < end_) ES_RETURN_IF_ERROR(submit(slot));
  }
  if (order_.empty()) return std::span<const std::byte>();
  const int slot_index = order_.front();
  // A failed slot stays first in line, so every later call reports the error again instead of
  // returning the chunks after the hole as if nothing were missing.
  ES_RETURN_IF_ERROR(wait_for(slot_index));
  order_.pop_front();
  held_ = slot_index;
  const Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  returned_ += slot.length;
  return std::span<const std::byte>(slot.buffer.data(), slot.length);
}

}  // namespace edgestream
