// SequentialReader: read-ahead over io_uring (or synchronous reads), per-volume request sizes and
// depths for striped files, retries and error reporting naming the real file and offset.
#include "io/sequential_reader.hpp"

#include <algorithm>
#include <chrono>

#include "io/fault_injection.hpp"
#include "io/striped_file.hpp"
#include "io/timeline.hpp"

namespace edgestream {
SequentialReader::SequentialReader(const File& file, std::vector<ByteExtent> extents, const IoOptions& options,
                                   IoCounters* counters)
    : file_(&file),
      extents_(std::move(extents)),
      options_(options),
      counters_(counters != nullptr ? counters : &local_counters_) {
  for (const ByteExtent& e : extents_) total_ += e.end - e.begin;
  if (!extents_.empty()) next_offset_ = extents_[0].begin;
}

Expected<std::unique_ptr<SequentialReader>> SequentialReader::open(const File& file, std::uint64_t begin,
                                                                  std::uint64_t end, const IoOptions& options,
                                                                  IoCounters* counters) {
  if (begin % file.alignment() != 0 || begin > end) {
    return invalid_argument("reader range [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " +
                            file.path() + " is not aligned to " + std::to_string(file.alignment()));
  }
  std::vector<ByteExtent> extents;
  if (end > begin) extents.push_back(ByteExtent{begin, end});
  return open(file, std::move(extents), options, counters);
}

Expected<std::unique_ptr<SequentialReader>> SequentialReader::open(const File& file, std::vector<ByteExtent> extents,
                                                                  const IoOptions& options, IoCounters* counters) {
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (extents[i].begin >= extents[i].end || (i > 0 && extents[i].begin < extents[i - 1].end)) {
      return invalid_argument("reader extent " + std::to_string(i) + " [" + std::to_string(extents[i].begin) + ", " +
                              std::to_string(extents[i].end) + ") of " + file.path() +
                              " is empty or not after the one before it");
    }
  }
  const std::size_t extent_count = extents.size();
  std::unique_ptr<SequentialReader> reader(new SequentialReader(file, std::move(extents), options, counters));
  // Per member: a plain file uses `options`; a striped file each volume's own settings.
  const std::size_t members = file.member_count();
  std::size_t max_chunk = 0;
  std::size_t min_chunk = SIZE_MAX;
  unsigned total_depth = 0;
  for (std::size_t m = 0; m < members; ++m) {
    const IoOptions& io = file.member_io(m) != nullptr ? *file.member_io(m) : options;
    if (io.read_chunk == 0 || io.read_chunk % kIoAlignment != 0) {
      return invalid_argument("read chunk " + std::to_string(io.read_chunk) + " must be a positive multiple of " +
                              std::to_string(kIoAlignment));
    }
    reader->chunk_.push_back(io.read_chunk);
    reader->depth_.push_back(std::max(1U, io.depth));
    max_chunk = std::max(max_chunk, io.read_chunk);
    min_chunk = std::min(min_chunk, io.read_chunk);
    total_depth += std::max(1U, io.depth);
  }
  reader->in_flight_.assign(members, 0);
  // An upper bound of the requests the range needs (requests also stop at stripe and extent ends).
  const std::uint64_t length = reader->total_;
  std::uint64_t chunks = (length + min_chunk - 1) / min_chunk + extent_count;
  if (file.striped()) chunks += (length + file.stripe_unit() - 1) / file.stripe_unit();
  // One slot is held by the caller while the others are in flight.
  const unsigned slots = static_cast<unsigned>(std::min<std::uint64_t>(std::max(2U, total_depth + 1), std::max<std::uint64_t>(chunks, 1)));
  // A range that fits in one request gains nothing from a ring; read it synchronously.
  if (options.engine == IoEngine::kUring && length > min_chunk && uring_available()) {
    if (!reader->ring_.init(slots, options.completion_timeout).is_ok()) reader->options_.engine = IoEngine::kSync;
  } else {
    reader->options_.engine = IoEngine::kSync;
  }
  reader->slots_.resize(length == 0 ? 0 : slots);
  for (auto& slot : reader->slots_) slot.buffer = AlignedBuffer(max_chunk);
  for (int i = static_cast<int>(reader->slots_.size()) - 1; i >= 0; --i) reader->free_.push_back(i);
  ES_RETURN_IF_ERROR(reader->fill());
  return reader;
}

Status SequentialReader::fill() {
  while (!free_.empty() && extent_ < extents_.size()) {
    if (next_offset_ == extents_[extent_].end) {
      if (++extent_ == extents_.size()) break;
      next_offset_ = extents_[extent_].begin;
    }
    const FileSegment segment = file_->segment(next_offset_);
    // In order: when the next chunk's volume has its depth in flight, wait for it to drain.
    if (options_.engine == IoEngine::kUring && in_flight_[segment.member] >= depth_[segment.member]) break;
    const int slot = free_.back();
    free_.pop_back();
    ES_RETURN_IF_ERROR(submit(slot, segment));
  }
  return Status::ok();
}

Status SequentialReader::submit(int slot_index, const FileSegment& segment) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  slot.offset = next_offset_;
  // An unaligned start (an extent's begin) reads from the aligned offset below it, within the chunk.
  slot.skip = static_cast<std::size_t>(segment.offset % segment.file->alignment());
  slot.length = static_cast<std::size_t>(std::min<std::uint64_t>(
      {chunk_[segment.member] - slot.skip, segment.contiguous, extents_[extent_].end - next_offset_}));
  slot.ready = false;
  slot.error = Status::ok();
  slot.file = segment.file;
  slot.file_offset = segment.offset;
  slot.member = segment.member;
  next_offset_ += slot.length;
  order_.push_back(slot_index);
  if (options_.engine == IoEngine::kSync) return Status::ok();  // read when waited for
  const std::size_t request = round_up(slot.skip + slot.length, slot.file->alignment());
  ++counters_->requests;
  const unsigned now = ++in_flight_[slot.member];
  if (VolumeCounters* volume = file_->member_counters(slot.member)) {
    volume->requests.fetch_add(1, std::memory_order_relaxed);
    volume->note_submit(now);
  }
  return ring_.submit_read(slot.file->fd(), slot.buffer.data(), request, slot.file_offset - slot.skip,
                           static_cast<std::uint64_t>(slot_index));
}

// Accepts the OS result of the request for `slot`; anything short of the wanted length is finished
// synchronously through File::read_at, which owns the retry rules.
Status SequentialReader::complete(int slot_index, int os_result, bool from_ring) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  const File& file = *slot.file;
  // The request covers [start, start + want) of the file, rounded up to the alignment.
  const std::size_t want = slot.skip + slot.length;
  const std::uint64_t start = slot.file_offset - slot.skip;
  const std::size_t request = round_up(want, file.alignment());
  if (from_ring) --in_flight_[slot.member];
  const long long result =
      from_ring ? fault_injection::adjust(fault_injection::Op::kRead, file.path(), request, os_result) : 0;
  std::size_t done = 0;
  if (result > 0) done = std::min<std::size_t>(static_cast<std::size_t>(result), want);
  if (result < 0 && result != -EINTR && result != -EAGAIN) {
    slot.error = errno_status(static_cast<int>(-result), "read", file.path(), static_cast<long long>(start));
  } else if (done < want) {
    done = round_down(done, file.alignment());
    auto rest = file.read_at(start + done, std::span(slot.buffer.data() + done, request - done));
    if (!rest) {
      slot.error = rest.status();
    } else if (done + *rest < want) {
      std::string where = "unexpected end of file in " + file.path() + " at offset " + std::to_string(start + done + *rest);
      if (file_->striped()) {
        where += " (offset " + std::to_string(slot.offset - slot.skip + done + *rest) + " of the striped stream)";
      }
      slot.error = corruption(where + " (expected data up to offset " + std::to_string(slot.offset + slot.length) + ")");
    }
  }
  slot.ready = true;
  if (slot.error.is_ok()) {
    counters_->bytes_read += slot.length;
    if (VolumeCounters* volume = file_->member_counters(slot.member)) {
      volume->bytes_read.fetch_add(slot.length, std::memory_order_relaxed);
    }
  }
  return Status::ok();
}

Status SequentialReader::wait_for(int slot_index) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  const std::uint64_t start = monotonic_ns();
  if (options_.engine == IoEngine::kSync && !slot.ready) {
    ++counters_->requests;
    if (VolumeCounters* volume = file_->member_counters(slot.member)) {
      volume->requests.fetch_add(1, std::memory_order_relaxed);
    }
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
    // A volume whose depth was reached may take the next chunk now.
    ES_RETURN_IF_ERROR(fill());
  }
  const std::uint64_t end = monotonic_ns();
  counters_->wait_ns += end - start;
  timeline::record("read wait", "io", start, end);
  return slot.error;
}

Expected<std::span<const std::byte>> SequentialReader::next() {
  if (held_ >= 0) {
    free_.push_back(held_);
    held_ = -1;
  }
  ES_RETURN_IF_ERROR(fill());
  if (order_.empty()) return std::span<const std::byte>();
  const int slot_index = order_.front();
  // A failed slot stays first in line, so every later call reports the error again instead of
  // returning the chunks after the hole as if nothing were missing.
  ES_RETURN_IF_ERROR(wait_for(slot_index));
  order_.pop_front();
  held_ = slot_index;
  const Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  returned_ += slot.length;
  last_offset_ = slot.offset;
  return std::span<const std::byte>(slot.buffer.data() + slot.skip, slot.length);
}

}  // namespace edgestream
