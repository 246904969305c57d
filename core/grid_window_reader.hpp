// Reads the on-disk edge grid (K = 1 without room for the edges in memory; core/engine.hpp) front to
// back in fixed-size windows: two buffers, the next window read (and its checksum checked) by a
// background thread while the caller scatters the current one. A window is read in requests of
// read_chunk bytes, io_depth of them in flight (one blocking reader thread each), so the device
// sees the queue depth the user configured. The grid file is written once at
// setup; a superstep asks for windows 0, 1, 2, ... in order, and may stop early.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <span>
#include <vector>

#include "io/file.hpp"
#include "io/io_options.hpp"
#include "io/status.hpp"

namespace edgestream {

class GridWindowReader {
 public:
  /// `file` holds `file_bytes` (a multiple of 4096) in windows of `window_bytes` (a multiple of
  /// 4096; the last may be shorter). `buffers` (2 * window_bytes, 4096-aligned) receive them;
  /// `crcs` holds each window's crc32 (compress/frame.hpp frame_crc) or is empty (not checked).
  /// Requests are `io.read_chunk` bytes, `io.depth` at a time. Reads are counted in `counters`
  /// (the caller's wait in wait_ns). All must outlive the reader.
  GridWindowReader(const File& file, std::uint64_t file_bytes, std::uint64_t window_bytes, std::span<std::byte> buffers,
                   std::span<const std::uint32_t> crcs, const IoOptions& io, IoCounters* counters);
  GridWindowReader(const GridWindowReader&) = delete;
  GridWindowReader& operator=(const GridWindowReader&) = delete;
  /// Waits for a read still in flight (its buffer belongs to this reader's caller).
  ~GridWindowReader();

  /// The number of windows.
  std::uint64_t windows() const { return windows_; }
  /// The next window's bytes (valid until the following call), and starts reading the one after.
  /// Errors: a read error, a short file, a checksum mismatch (naming the file, window and offset);
  /// asking past the last window is an internal error.
  Expected<std::span<const std::byte>> next();

 private:
  Status read_window(std::uint64_t w);  // into buffer w % 2; runs on the background thread
  Status read_lane(std::uint64_t w, unsigned lane, unsigned lanes);  // every lanes-th request of window w
  std::uint64_t window_size(std::uint64_t w) const;

  const File& file_;
  std::uint64_t file_bytes_;
  std::uint64_t window_bytes_;
  std::span<std::byte> buffers_;
  std::span<const std::uint32_t> crcs_;
  std::uint64_t chunk_;
  unsigned depth_;
  IoCounters* counters_;
  std::uint64_t windows_;
  std::uint64_t next_ = 0;      // the window next() returns
  std::future<Status> pending_; // the read of window next_ (when started)
  std::atomic<std::uint64_t> read_requests_ = 0;
  std::atomic<std::uint64_t> read_bytes_ = 0;
};

}  // namespace edgestream
