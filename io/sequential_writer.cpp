// SequentialWriter: write-behind over io_uring (or synchronous writes), padding and truncation of
// the direct-I/O tail, sticky first error.
#include "io/sequential_writer.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "io/fault_injection.hpp"

namespace edgestream {
SequentialWriter::SequentialWriter(const File& file, const IoOptions& options, IoCounters* counters)
    : file_(&file), options_(options), counters_(counters != nullptr ? counters : &local_counters_) {}

Expected<std::unique_ptr<SequentialWriter>> SequentialWriter::open(const File& file, const IoOptions& options,
                                                                  IoCounters* counters) {
  if (options.write_chunk == 0 || options.write_chunk % kIoAlignment != 0) {
    return invalid_argument("write chunk " + std::to_string(options.write_chunk) +
                            " must be a positive multiple of " + std::to_string(kIoAlignment));
  }
  std::unique_ptr<SequentialWriter> writer(new SequentialWriter(file, options, counters));
  writer->options_.depth = std::max(1U, options.depth);
  if (options.engine != IoEngine::kUring || !uring_available()) writer->options_.engine = IoEngine::kSync;
  if (writer->options_.engine == IoEngine::kSync) writer->options_.depth = 1;
  return writer;
}

Status SequentialWriter::append_slow(std::span<const std::byte> data) {
  ES_RETURN_IF_ERROR(error_);
  if (slots_.empty()) {
    slots_.resize(options_.depth);
    for (auto& slot : slots_) slot.buffer = AlignedBuffer(options_.write_chunk);
  }
  while (!data.empty()) {
    if (current_ < 0) {
      // Take a free slot, waiting for a write to complete when all are busy.
      for (;;) {
        const auto it = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.busy; });
        if (it != slots_.end()) {
          current_ = static_cast<int>(it - slots_.begin());
          break;
        }
        ES_RETURN_IF_ERROR(wait_one());
      }
      fill_ = 0;
    }
    Slot& slot = slots_[static_cast<std::size_t>(current_)];
    const std::size_t n = std::min(data.size(), options_.write_chunk - fill_);
    std::memcpy(slot.buffer.data() + fill_, data.data(), n);
    fill_ += n;
    appended_ += n;
    data = data.subspan(n);
    if (fill_ == options_.write_chunk) ES_RETURN_IF_ERROR(submit_current(/*last=*/false));
  }
  return Status::ok();
}

Status SequentialWriter::submit_current(bool last) {
  // The ring is set up with the first full buffer: a stream that never fills one (small update
  // streams of many partitions) is written with one synchronous request at finish().
  if (options_.engine == IoEngine::kUring && !ring_ && !last) {
    ring_ = std::make_unique<UringQueue>();
    if (!ring_->init(options_.depth, options_.completion_timeout).is_ok()) {
      ring_.reset();
      options_.engine = IoEngine::kSync;
    }
  }
  Slot& slot = slots_[static_cast<std::size_t>(current_)];
  const std::size_t aligned = round_up(fill_, file_->alignment());
  if (aligned > fill_) std::memset(slot.buffer.data() + fill_, 0, aligned - fill_);
  slot.offset = submitted_;
  slot.length = aligned;
  slot.busy = true;
  submitted_ += fill_;
  const int index = current_;
  current_ = -1;
  fill_ = 0;
  ++counters_->requests;
  if (!ring_) {
    const std::uint64_t start = monotonic_ns();
    Status status = file_->write_at(slot.offset, std::span<const std::byte>(slot.buffer.data(), slot.length));
    counters_->wait_ns += monotonic_ns() - start;
    slot.busy = false;
    if (!status.is_ok()) {
      error_ = status;
      return status;
    }
    counters_->bytes_written += slot.length;
    return Status::ok();
  }
  Status status = ring_->submit_write(file_->fd(), slot.buffer.data(), slot.length, slot.offset,
                                     static_cast<std::uint64_t>(index));
  if (!status.is_ok()) {
    slot.busy = false;
    error_ = status;
  }
  return status;
}

Status SequentialWriter::complete(int slot_index, int os_result) {
  Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
  const long long result = fault_injection::adjust(fault_injection::Op::kWrite, file_->path(), slot.length, os_result);
  slot.busy = false;
  Status status;
  if (result < 0 && result != -EINTR && result != -EAGAIN) {
    status = errno_status(static_cast<int>(-result), "write", file_->path(), static_cast<long long>(slot.offset));
  } else {
    // A short (or interrupted) write is finished synchronously; File::write_at owns the retries.
    std::size_t done = result > 0 ? static_cast<std::size_t>(result) : 0;
    if (done < slot.length) {
      done = round_down(done, file_->alignment());
      status = file_->write_at(slot.offset + done,
                               std::span<const std::byte>(slot.buffer.data() + done, slot.length - done));
    }
  }
  if (status.is_ok()) {
    counters_->bytes_written += slot.length;
  } else if (error_.is_ok()) {
    error_ = status;
  }
  return status;
}

Status SequentialWriter::wait_one() {
  const std::uint64_t start = monotonic_ns();
  auto completion = ring_->wait();
  counters_->wait_ns += monotonic_ns() - start;
  if (!completion) {
    const Status status(completion.status().code(), "write " + file_->path() + ": " + completion.status().message());
    if (error_.is_ok()) error_ = status;
    return status;
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
