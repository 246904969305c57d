// SequentialWriter: write-behind over io_uring (or synchronous writes), padding and truncation of
// the direct-I/O tail, sticky first error.
#include "io/sequential_writer.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "io/fault_injection.hpp"
#include "io/striped_file.hpp"
#include "io/timeline.hpp"

namespace edgestream {
SequentialWriter::SequentialWriter(const File& file, const IoOptions& options, IoCounters* counters)
    : file_(&file), options_(options), counters_(counters != nullptr ? counters : &local_counters_) {}

Expected<std::unique_ptr<SequentialWriter>> SequentialWriter::open(const File& file, const IoOptions& options,
                                                                  IoCounters* counters) {
  std::unique_ptr<SequentialWriter> writer(new SequentialWriter(file, options, counters));
  if (options.engine != IoEngine::kUring || !uring_available()) writer->options_.engine = IoEngine::kSync;
  const bool sync = writer->options_.engine == IoEngine::kSync;
  // Per member: a plain file uses `options`; a striped file each volume's own settings. The slots
  // are shared: as many as the members' depths together (one when synchronous).
  unsigned total_depth = 0;
  for (std::size_t m = 0; m < file.member_count(); ++m) {
    const IoOptions& io = file.member_io(m) != nullptr ? *file.member_io(m) : options;
    if (io.write_chunk == 0 || io.write_chunk % kIoAlignment != 0) {
      return invalid_argument("write chunk " + std::to_string(io.write_chunk) + " must be a positive multiple of " +
                              std::to_string(kIoAlignment));
    }
    writer->chunk_.push_back(io.write_chunk);
    writer->depth_.push_back(sync ? 1U : std::max(1U, io.depth));
    writer->buffer_bytes_ = std::max(writer->buffer_bytes_, io.write_chunk);
    total_depth += writer->depth_.back();
  }
  writer->in_flight_.assign(file.member_count(), 0);
  writer->options_.depth = sync ? 1U : total_depth;
  writer->options_.write_chunk = writer->buffer_bytes_;
  return writer;
}

Status SequentialWriter::append_slow(std::span<const std::byte> data) {
  ES_RETURN_IF_ERROR(error_);
  if (slots_.empty()) {
    slots_.resize(options_.depth);
    for (auto& slot : slots_) slot.buffer = AlignedBuffer(buffer_bytes_);
  }
  while (!data.empty()) {
    if (current_ < 0) {
      // Take a free slot, waiting for a write to complete when all are busy.
      for (;;) {
        const auto it = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.busy; });
        if (it != slots_.end()) {
          current_ = static_cast<int>(it - slots_.begin());
          // The buffer ends at the volume's write chunk or the end of the stripe, whichever is first.
          const FileSegment segment = file_->segment(submitted_);
          limit_ = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_[segment.member], segment.contiguous));
          break;
        }
        ES_RETURN_IF_ERROR(wait_one());
      }
      fill_ = 0;
    }
    Slot& slot = slots_[static_cast<std::size_t>(current_)];
    const std::size_t n = std::min(data.size(), limit_ - fill_);
    std::memcpy(slot.buffer.data() + fill_, data.data(), n);
    fill_ += n;
    appended_ += n;
    data = data.subspan(n);
    if (fill_ == limit_) ES_RETURN_IF_ERROR(submit_current(/*last=*/false));
  }
  return Status::ok();
}

// With room for write_through()'s requests beside the slots' (ring entries cost the kernel a few
// bytes each). Falls back to synchronous writes when the kernel refuses the ring.
Status SequentialWriter::ensure_ring() {
  if (options_.engine != IoEngine::kUring || ring_) return Status::ok();
  ring_ = std::make_unique<UringQueue>();
  if (!ring_->init(options_.depth + kMaxThroughInFlight, options_.completion_timeout).is_ok()) {
    ring_.reset();
    options_.engine = IoEngine::kSync;
  }
  return Status::ok();
}

bool SequentialWriter::through_begin(std::span<std::byte> room, std::size_t offset, std::size_t request, unsigned in_flight) {
  const std::size_t block = kIoAlignment;
  const std::size_t pending = pending_bytes();
  if (!error_.is_ok() || offset < pending || offset > room.size() || submitted_ % block != 0 ||
      reinterpret_cast<std::uintptr_t>(room.data() + offset - pending) % block != 0) {
    return false;
  }
  through_start_ = room.data() + offset - pending;
  if (pending > 0) std::memcpy(through_start_, slots_[static_cast<std::size_t>(current_)].buffer.data(), pending);
  current_ = -1;  // the buffer (now empty) is given back; its bytes lead the requests
  fill_ = 0;
  through_ready_ = pending;
  through_sent_ = 0;
  through_request_ = std::max(block, request / block * block);
  through_depth_ = std::clamp(in_flight, 1U, kMaxThroughInFlight);
  through_status_ = ensure_ring();
  through_.clear();
  return true;
}

Status SequentialWriter::through_add(std::size_t length) {
  through_ready_ += length;
  appended_ += length;
  while (through_status_.is_ok() && through_ready_ - through_sent_ >= through_request_) {
    through_status_ = submit_through(through_request_);
  }
  return through_status_;
}

Status SequentialWriter::through_end() {
  const std::size_t direct = through_ready_ / kIoAlignment * kIoAlignment;
  while (through_status_.is_ok() && through_sent_ < direct) {
    through_status_ = submit_through(std::min(through_request_, direct - through_sent_));
  }
  // Every request completes before the room is the caller's again.
  while (ring_ && through_in_flight_ > 0) {
    const unsigned before = ring_->in_flight();
    Status waited = wait_one();
    if (through_status_.is_ok()) through_status_ = waited;
    if (!waited.is_ok() && ring_->in_flight() == before) break;  // a timeout: the ring's teardown cancels
  }
  Status status = std::exchange(through_status_, Status::ok());
  std::byte* const start = std::exchange(through_start_, nullptr);
  if (!status.is_ok()) {
    if (error_.is_ok()) error_ = status;
    return status;
  }
  // The last part, less than a block: buffered (appended_ counted it already).
  const std::span<const std::byte> tail(start + direct, through_ready_ - direct);
  appended_ -= tail.size();
  return append(tail);
}

// One request of `length` bytes of the room from through_sent_ on (within one stripe).
Status SequentialWriter::submit_through(std::size_t length) {
  const FileSegment segment = file_->segment(submitted_);
  ThroughRequest r;
  r.data = through_start_ + through_sent_;
  r.length = static_cast<std::size_t>(std::min<std::uint64_t>(length, segment.contiguous));
  r.file = segment.file;
  r.file_offset = segment.offset;
  r.member = segment.member;
  if (ring_) {
    while (through_in_flight_ >= through_depth_) ES_RETURN_IF_ERROR(wait_one());
  }
  VolumeCounters* volume = count_request(r.member);
  if (!ring_) {
    ES_RETURN_IF_ERROR(write_now(*r.file, r.member, r.file_offset, std::span<const std::byte>(r.data, r.length)));
  } else {
    through_.push_back(r);
    if (volume != nullptr) volume->note_submit(in_flight_[r.member] + through_in_flight_ + 1);
    ES_RETURN_IF_ERROR(ring_->submit_write(r.file->fd(), r.data, r.length, r.file_offset, kThroughTag | (through_.size() - 1)));
    ++through_in_flight_;
  }
  submitted_ += r.length;
  through_sent_ += r.length;
  return Status::ok();
}

Status SequentialWriter::write_through(std::span<std::byte> room, std::size_t offset, std::size_t length,
                                       std::size_t request, unsigned in_flight) {
  if (!through_begin(room, offset, request, in_flight)) return append(room.subspan(offset, length));
  (void)through_add(length);
  return through_end();
}

Status SequentialWriter::complete_through(std::size_t index, int os_result) {
  --through_in_flight_;
  if (index >= through_.size()) return internal_error("write " + file_->path() + ": a completion of no request");
  const ThroughRequest& r = through_[index];
  return settle_write(*r.file, r.member, r.file_offset, std::span<const std::byte>(r.data, r.length), os_result);
}

Status SequentialWriter::write_now(const File& file, std::size_t member, std::uint64_t file_offset,
                                   std::span<const std::byte> bytes) {
  const std::uint64_t start = monotonic_ns();
  Status status = file.write_at(file_offset, bytes);
  const std::uint64_t end = monotonic_ns();
  counters_->wait_ns += end - start;
  timeline::record("write wait", "io", start, end);
  if (status.is_ok()) count_written(member, bytes.size());
  return status;
}

Status SequentialWriter::settle_write(const File& file, std::size_t member, std::uint64_t file_offset,
                                      std::span<const std::byte> bytes, int os_result) {
  const long long result = fault_injection::adjust(fault_injection::Op::kWrite, file.path(), bytes.size(), os_result);
  Status status;
  if (result < 0 && result != -EINTR && result != -EAGAIN) {
    status = errno_status(static_cast<int>(-result), "write", file.path(), static_cast<long long>(file_offset));
  } else {
    // A short (or interrupted) write is finished synchronously; File::write_at owns the retries.
    std::size_t done = result > 0 ? static_cast<std::size_t>(result) : 0;
    if (done < bytes.size()) {
      done = round_down(done, file.alignment());
      status = file.write_at(file_offset + done, bytes.subspan(done));
    }
  }
  if (status.is_ok()) {
    count_written(member, bytes.size());
  } else if (error_.is_ok()) {
    error_ = status;
  }
  return status;
}

VolumeCounters* SequentialWriter::count_request(std::size_t member) {
  ++counters_->requests;
  VolumeCounters* volume = file_->member_counters(member);
  if (volume != nullptr) volume->requests.fetch_add(1, std::memory_order_relaxed);
  return volume;
}

void SequentialWriter::count_written(std::size_t member, std::size_t length) {
  counters_->bytes_written += length;
  if (VolumeCounters* volume = file_->member_counters(member)) volume->bytes_written.fetch_add(length, std::memory_order_relaxed);
}

Status SequentialWriter::submit_current(bool last) {
  // The ring is set up with the first full buffer: a stream that never fills one (small update
  // streams of many partitions) is written with one synchronous request at finish().
  if (!last) ES_RETURN_IF_ERROR(ensure_ring());
  Slot& slot = slots_[static_cast<std::size_t>(current_)];
  const FileSegment segment = file_->segment(submitted_);
  const std::size_t aligned = round_up(fill_, segment.file->alignment());
  if (aligned > fill_) std::memset(slot.buffer.data() + fill_, 0, aligned - fill_);
  slot.file = segment.file;
  slot.file_offset = segment.offset;
  slot.member = segment.member;
  slot.offset = submitted_;
  slot.length = aligned;
  slot.busy = true;
  submitted_ += fill_;
  const int index = current_;
  current_ = -1;
  fill_ = 0;
  VolumeCounters* volume = count_request(slot.member);
  if (!ring_) {
    Status status = write_now(*slot.file, slot.member, slot.file_offset, std::span<const std::byte>(slot.buffer.data(), slot.length));
    slot.busy = false;
    if (!status.is_ok()) error_ = status;
    return status;
  }
  // In order: when this volume has its depth in flight, wait for one of its writes to finish.
  while (in_flight_[slot.member] >= depth_[slot.member]) {
    Status waited = wait_one();
    if (!waited.is_ok()) {
      slot.busy = false;
      return waited;
    }
  }
  const unsigned now = ++in_flight_[slot.member];
  if (volume != nullptr) volume->note_submit(now);
  Status status = ring_->submit_write(slot.file->fd(), slot.buffer.data(), slot.length, slot.file_offset,
                                     static_cast<std::uint64_t>(index));
  if (!status.is_ok()) {
    --in_flight_[slot.member];
    slot.busy = false;
    error_ = status;
  }
  return status;
}

Status SequentialWriter::complete(int slot_index, int os_result) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  --in_flight_[slot.member];
  slot.busy = false;
  return settle_write(*slot.file, slot.member, slot.file_offset, std::span<const std::byte>(slot.buffer.data(), slot.length),
                      os_result);
}

Status SequentialWriter::wait_one() {
  const std::uint64_t start = monotonic_ns();
  auto completion = ring_->wait();
  const std::uint64_t end = monotonic_ns();
  counters_->wait_ns += end - start;
  timeline::record("write wait", "io", start, end);
  if (!completion) {
    Status status(completion.status().code(), "write " + file_->path() + ": " + completion.status().message());
    if (error_.is_ok()) error_ = status;
    return status;
  }
  if ((completion->tag & kThroughTag) != 0) {
    return complete_through(static_cast<std::size_t>(completion->tag & ~kThroughTag), completion->result);
  }
  return complete(static_cast<int>(completion->tag), completion->result);
}

Status SequentialWriter::finish() {
  if (error_.is_ok() && current_ >= 0 && fill_ > 0) (void)submit_current(/*last=*/true);
  current_ = -1;
  fill_ = 0;
  // A failed wait (timeout) leaves its request in flight: stop waiting then, or this would loop
  // forever; the ring's destructor cancels what is left.
  while (ring_ && ring_->in_flight() > 0) {
    const unsigned before = ring_->in_flight();
    if (!wait_one().is_ok() && ring_->in_flight() == before) break;
  }
  ring_.reset();
  ES_RETURN_IF_ERROR(error_);
  // The padding of the last direct write (and anything left from an earlier, longer use) goes.
  ES_RETURN_IF_ERROR(file_->truncate(appended_));
  slots_.clear();
  slots_.shrink_to_fit();
  return Status::ok();
}

void SequentialWriter::restart() {
  appended_ = 0;
  submitted_ = 0;
}

}  // namespace edgestream
