// Reads the on-disk edge grid (K = 1 without room for the edges in memory; core/engine.hpp) front to
// back, window after window, pass after pass (one pass per superstep): two buffers, the next window
// read (and its checksum checked) by a background thread while the caller scatters the current one;
// after the last window of a pass, the first one of the next pass is read ahead. A window is read in
// requests of read_chunk bytes, io_depth of them in flight (one blocking reader thread each), so the
// device sees the queue depth the user configured. A window is one slab of the grid as the build
// wrote it (core/engine_base.cpp): its records, or their compressed pieces (core/grid_codec.hpp).
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

/// One window of the grid file, as the build wrote it.
struct GridWindow {
  std::uint64_t offset = 0;       // in the file (a multiple of 4096)
  std::uint64_t bytes = 0;        // read: the stored bytes padded to a multiple of 4096
  std::uint64_t used = 0;         // the stored bytes (the rest is zero padding)
  std::uint64_t first = 0;        // its records [first, end) in grid order
  std::uint64_t end = 0;
  std::uint64_t first_piece = 0;  // its pieces [first_piece, end_piece) (core/grid_codec.hpp); none:
  std::uint64_t end_piece = 0;    // the records as they are
  std::uint32_t crc = 0;          // crc32 of its `bytes` (compress/frame.hpp frame_crc)
};

/// The corruption a short read of window w at `offset` is (`got` of `wanted` bytes).
Status grid_window_short(const File& file, std::uint64_t w, std::uint64_t offset, std::size_t got, std::size_t wanted);
/// Checks window w's bytes (as read) against its crc32: ok, or the corruption naming the file,
/// the window and its offset.
Status check_grid_window(const File& file, std::uint64_t w, const GridWindow& window, std::span<const std::byte> bytes);

class GridWindowReader {
 public:
  /// `file` holds `windows` (each at most buffers.size() / 2 bytes). The two halves of `buffers`
  /// (4096-aligned) receive them; each window's crc is checked when `checksums`. Requests are
  /// `io.read_chunk` bytes, `io.depth` at a time. Reads are counted in `counters` (the caller's wait
  /// in wait_ns). All must outlive the reader. `first_window` is the grid's number of windows[0]
  /// (the windows kept in memory come before it): errors name the grid's window numbers, indexes
  /// from next() count from windows[0]. Starts reading windows[0].
  GridWindowReader(const File& file, std::span<const GridWindow> windows, std::span<std::byte> buffers, bool checksums,
                   const IoOptions& io, IoCounters* counters, std::uint64_t first_window = 0);
  GridWindowReader(const GridWindowReader&) = delete;
  GridWindowReader& operator=(const GridWindowReader&) = delete;
  /// Waits for a read still in flight (its buffer belongs to this reader's caller).
  ~GridWindowReader();

  /// The number of windows in a pass.
  std::uint64_t windows() const { return windows_.size(); }
  /// Starts a pass: the next next() returns window 0 (read ahead already when the previous pass
  /// was read to its end; a pass left early has its read in flight finished and dropped).
  Status rewind();
  /// The next window's index and bytes (valid until the following call), and starts reading the
  /// one after (window 0 after the last). Errors: a read error, a short file, a checksum mismatch
  /// (naming the file, window and offset).
  struct Window {
    std::uint64_t index = 0;
    std::span<const std::byte> bytes;
  };
  Expected<Window> next();
  /// Waits for the read in flight and adds every count to `counters`.
  void drain();

 private:
  void start(std::uint64_t w);  // window w into the buffer the caller does not hold
  Status read_window(std::uint64_t w, unsigned buffer);  // runs on the background thread
  Status read_lane(std::uint64_t w, unsigned buffer, unsigned lane, unsigned lanes);  // every lanes-th request
  std::span<std::byte> buffer(unsigned b, std::uint64_t w) const;
  void flush_counters();

  const File& file_;
  std::span<const GridWindow> windows_;
  std::span<std::byte> buffers_;
  bool checksums_;
  std::uint64_t chunk_;
  unsigned depth_;
  IoCounters* counters_;
  std::uint64_t first_window_;      // the grid's number of windows_[0], for error messages
  unsigned held_ = 1;               // the buffer whose window the caller holds (none yet: 1, so reads start in 0)
  std::uint64_t pending_window_ = 0;
  unsigned pending_buffer_ = 0;
  std::future<Status> pending_;     // the read of pending_window_ into pending_buffer_
  std::atomic<std::uint64_t> read_requests_ = 0;
  std::atomic<std::uint64_t> read_bytes_ = 0;
};

}  // namespace edgestream
