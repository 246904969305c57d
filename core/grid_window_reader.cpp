// The on-disk grid's window reader; see grid_window_reader.hpp.
#include "core/grid_window_reader.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "compress/frame.hpp"
#include "io/aligned_buffer.hpp"
#include "io/timeline.hpp"

namespace edgestream {

Status grid_window_short(const File& file, std::uint64_t w, std::uint64_t offset, std::size_t got, std::size_t wanted) {
  return corruption("edge grid file " + file.path() + " is short: window " + std::to_string(w) + " at byte offset " +
                    std::to_string(offset) + " read " + std::to_string(got) + " of " + std::to_string(wanted) + " bytes");
}

Status check_grid_window(const File& file, std::uint64_t w, const GridWindow& window, std::span<const std::byte> bytes) {
  if (frame_crc(bytes) == window.crc) return Status::ok();
  return corruption("edge grid file " + file.path() + ": checksum mismatch in window " + std::to_string(w) + " (byte offset " +
                    std::to_string(window.offset) + ", " + std::to_string(bytes.size()) + " bytes; damaged scratch data)");
}

GridWindowReader::GridWindowReader(const File& file, std::span<const GridWindow> windows, std::vector<std::uint64_t> order,
                                   std::span<std::byte> buffers, bool checksums, const IoOptions& io, IoCounters* counters)
    : file_(file),
      windows_(windows),
      order_(std::move(order)),
      buffers_(buffers),
      checksums_(checksums),
      chunk_(std::max<std::uint64_t>(round_down(io.read_chunk, kIoAlignment), kIoAlignment)),
      depth_(std::max(io.depth, 1U)),
      counters_(counters) {
  if (!order_.empty()) start(0);
}

GridWindowReader::~GridWindowReader() { drain(); }

void GridWindowReader::flush_counters() {
  counters_->bytes_read += read_bytes_.exchange(0);
  counters_->requests += read_requests_.exchange(0);
}

void GridWindowReader::drain() {
  if (pending_.valid()) pending_.wait();
  flush_counters();
}

// Window w's bytes in buffer b (each buffer is half of buffers_).
std::span<std::byte> GridWindowReader::buffer(unsigned b, std::uint64_t w) const {
  const std::uint64_t half = buffers_.size() / 2;
  return buffers_.subspan(b * half, std::min(half, windows_[w].bytes));
}

void GridWindowReader::start(std::uint64_t at) {
  pending_at_ = at;
  pending_buffer_ = 1 - held_;
  pending_ = std::async(std::launch::async | std::launch::deferred, [this, w = order_[at], b = pending_buffer_] { return read_window(w, b); });
}

Status GridWindowReader::read_lane(std::uint64_t w, unsigned buffer, unsigned lane, unsigned lanes) {
  const std::uint64_t offset = windows_[w].offset;
  const std::span<std::byte> into = this->buffer(buffer, w);
  const std::uint64_t size = into.size();
  for (std::uint64_t at = lane * chunk_; at < size; at += lanes * chunk_) {
    const std::span<std::byte> piece(into.data() + at, std::min(chunk_, size - at));
    ES_ASSIGN_OR_RETURN(const std::size_t n, file_.read_at(offset + at, piece));
    read_bytes_ += n;
    ++read_requests_;
    if (n != piece.size()) return grid_window_short(file_, w, offset + at, n, piece.size());
  }
  return Status::ok();
}

Status GridWindowReader::read_window(std::uint64_t w, unsigned buffer) {
  const std::span<std::byte> into = this->buffer(buffer, w);
  if (into.size() != windows_[w].bytes) {
    return Status{StatusCode::kInternal, "edge grid file " + file_.path() + ": window " + std::to_string(w) + " of " +
                                             std::to_string(windows_[w].bytes) + " bytes does not fit its buffer"};
  }
  const auto lanes = static_cast<unsigned>(std::min<std::uint64_t>(depth_, (into.size() + chunk_ - 1) / chunk_));
  std::vector<std::future<Status>> others;
  for (unsigned lane = 1; lane < lanes; ++lane) {
    others.push_back(std::async(std::launch::async | std::launch::deferred, [this, w, buffer, lane, lanes] { return read_lane(w, buffer, lane, lanes); }));
  }
  Status status = read_lane(w, buffer, 0, lanes);
  for (auto& other : others) {
    const Status s = other.get();
    if (status.is_ok()) status = s;
  }
  ES_RETURN_IF_ERROR(status);
  return checksums_ ? check_grid_window(file_, w, windows_[w], into) : Status::ok();
}

Status GridWindowReader::rewind() {
  if (order_.empty() || (pending_.valid() && pending_at_ == 0)) return Status::ok();
  if (pending_.valid()) (void)pending_.get();  // a window of the pass left early: not needed
  start(0);
  return Status::ok();
}

Expected<GridWindowReader::Window> GridWindowReader::next() {
  if (!pending_.valid()) {
    return Status{StatusCode::kInternal, "edge grid file " + file_.path() + ": no window is being read"};
  }
  const std::uint64_t begin = monotonic_ns();
  const Status read = pending_.get();
  const std::uint64_t end = monotonic_ns();
  counters_->wait_ns += end - begin;
  timeline::record("grid read wait", "io", begin, end);
  flush_counters();
  ES_RETURN_IF_ERROR(read);
  const std::uint64_t at = pending_at_;
  held_ = pending_buffer_;
  start((at + 1) % order_.size());  // into the other buffer, which held the window before: the caller is done with it
  return Window{order_[at], this->buffer(held_, order_[at])};
}

}  // namespace edgestream
