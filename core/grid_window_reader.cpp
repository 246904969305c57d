// The on-disk grid's window reader; see grid_window_reader.hpp.
#include "core/grid_window_reader.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "io/aligned_buffer.hpp"

#include "compress/frame.hpp"

namespace edgestream {

GridWindowReader::GridWindowReader(const File& file, std::uint64_t file_bytes, std::uint64_t window_bytes,
                                   std::span<std::byte> buffers, std::span<const std::uint32_t> crcs, const IoOptions& io,
                                   IoCounters* counters)
    : file_(file),
      file_bytes_(file_bytes),
      window_bytes_(window_bytes),
      buffers_(buffers),
      crcs_(crcs),
      chunk_(std::max<std::uint64_t>(round_down(io.read_chunk, kIoAlignment), kIoAlignment)),
      depth_(std::max(io.depth, 1U)),
      counters_(counters),
      windows_(window_bytes == 0 ? 0 : (file_bytes + window_bytes - 1) / window_bytes) {
  if (windows_ > 0) pending_ = std::async(std::launch::async, [this] { return read_window(0); });
}

GridWindowReader::~GridWindowReader() {
  if (pending_.valid()) pending_.wait();
  counters_->bytes_read += read_bytes_;
  counters_->requests += read_requests_;
}

std::uint64_t GridWindowReader::window_size(std::uint64_t w) const {
  return std::min(window_bytes_, file_bytes_ - w * window_bytes_);
}

Status GridWindowReader::read_lane(std::uint64_t w, unsigned lane, unsigned lanes) {
  const std::uint64_t offset = w * window_bytes_;
  const std::uint64_t size = window_size(w);
  std::byte* into = buffers_.data() + (w % 2) * window_bytes_;
  for (std::uint64_t at = lane * chunk_; at < size; at += lanes * chunk_) {
    const std::span<std::byte> piece(into + at, std::min(chunk_, size - at));
    ES_ASSIGN_OR_RETURN(const std::size_t n, file_.read_at(offset + at, piece));
    read_bytes_ += n;
    ++read_requests_;
    if (n != piece.size()) {
      return corruption("edge grid file " + file_.path() + " is short: window " + std::to_string(w) + " at byte offset " +
                        std::to_string(offset + at) + " read " + std::to_string(n) + " of " + std::to_string(piece.size()) +
                        " bytes");
    }
  }
  return Status::ok();
}

Status GridWindowReader::read_window(std::uint64_t w) {
  const std::uint64_t offset = w * window_bytes_;
  const std::span<std::byte> into = buffers_.subspan((w % 2) * window_bytes_, window_size(w));
  const auto lanes = static_cast<unsigned>(std::min<std::uint64_t>(depth_, (into.size() + chunk_ - 1) / chunk_));
  std::vector<std::future<Status>> others;
  for (unsigned lane = 1; lane < lanes; ++lane) {
    others.push_back(std::async(std::launch::async, [this, w, lane, lanes] { return read_lane(w, lane, lanes); }));
  }
  Status status = read_lane(w, 0, lanes);
  for (auto& other : others) {
    const Status s = other.get();
    if (status.is_ok()) status = s;
  }
  ES_RETURN_IF_ERROR(status);
  if (!crcs_.empty() && frame_crc(into) != crcs_[w]) {
    return corruption("edge grid file " + file_.path() + ": checksum mismatch in window " + std::to_string(w) +
                      " (byte offset " + std::to_string(offset) + ", " + std::to_string(into.size()) +
                      " bytes; damaged scratch data)");
  }
  return Status::ok();
}

Expected<std::span<const std::byte>> GridWindowReader::next() {
  if (next_ >= windows_ || !pending_.valid()) {
    return Status{StatusCode::kInternal, "edge grid file " + file_.path() + ": window " + std::to_string(next_) +
                                             " asked for, the grid has " + std::to_string(windows_)};
  }
  const auto start = std::chrono::steady_clock::now();
  const Status read = pending_.get();
  counters_->wait_ns += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  ES_RETURN_IF_ERROR(read);
  const std::uint64_t w = next_++;
  // The other buffer held window w - 1, which the caller is done with.
  if (next_ < windows_) pending_ = std::async(std::launch::async, [this, n = next_] { return read_window(n); });
  return std::span<const std::byte>(buffers_.subspan((w % 2) * window_bytes_, window_size(w)));
}

}  // namespace edgestream
