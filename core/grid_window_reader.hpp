// Reads the on-disk edge grid's streamed windows (K = 1 without room for the edges in memory;
// core/engine.hpp; the windows kept in memory are not read) in grid order, pass after pass (one pass
// per superstep): two buffers, the next window read (and its checksum checked) by a background
// thread while the caller scatters the current one (and the kept windows up to the next streamed
// one); after the last window of a pass, the first one of the next pass is read ahead. A window is
// read in requests of read_chunk bytes, io_depth of them in flight (one blocking reader thread
// each), so the device sees the queue depth the user configured. Where the system refuses a thread
// (std::async with launch::deferred too), that read runs on the thread that waits for it instead.
// A window is one slab of the grid as the build
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
  // Where the window is kept in the grid's buffers (core/engine_base.hpp grid_windows_), or
  // kStreamed: read from the file every pass.
  static constexpr std::uint64_t kStreamed = UINT64_MAX;
  std::uint64_t memory = kStreamed;
};

/// The corruption a short read of window w at `offset` is (`got` of `wanted` bytes).
Status grid_window_short(const File& file, std::uint64_t w, std::uint64_t offset, std::size_t got, std::size_t wanted);
/// Checks window w's bytes (as read) against its crc32: ok, or the corruption naming the file,
/// the window and its offset.
Status check_grid_window(const File& file, std::uint64_t w, const GridWindow& window, std::span<const std::byte> bytes);

class GridWindowReader {
 public:
  /// `file` holds `windows`; a pass reads windows[order[0]], windows[order[1]], ... (the numbers
  /// ascending; each window at most buffers.size() / 2 bytes). The two halves of `buffers`
  /// (4096-aligned) receive them; each window's crc is checked when `checksums`. Requests are
  /// `io.read_chunk` bytes, `io.depth` at a time. Reads are counted in `counters` (the caller's wait
  /// in wait_ns). All but `order` must outlive the reader. Errors and next() name the windows by
  /// their numbers in `windows`. Starts reading windows[order[0]].
  GridWindowReader(const File& file, std::span<const GridWindow> windows, std::vector<std::uint64_t> order,
                   std::span<std::byte> buffers, bool checksums, const IoOptions& io, IoCounters* counters);
  GridWindowReader(const GridWindowReader&) = delete;
  GridWindowReader& operator=(const GridWindowReader&) = delete;
  /// Waits for a read still in flight (its buffer belongs to this reader's caller).
  ~GridWindowReader();

  /// The number of windows in a pass.
  std::uint64_t windows() const { return order_.size(); }
  /// Starts a pass: the next next() returns the pass's first window (read ahead already when the
  /// previous pass was read to its end; a pass left early has its read in flight finished and dropped).
  Status rewind();
  /// The next window of the pass: its number in `windows` and its bytes (valid until the following
  /// call); starts reading the one after (the first after the last). Errors: a read error, a short
  /// file, a checksum mismatch (naming the file, window and offset).
  struct Window {
    std::uint64_t number = 0;
    std::span<const std::byte> bytes;
  };
  Expected<Window> next();
  /// Waits for the read in flight and adds every count to `counters`.
  void drain();

 private:
  // `at` is a position in the pass (order_); w a window's number (windows_).
  void start(std::uint64_t at);  // the pass's window `at` into the buffer the caller does not hold
  Status read_window(std::uint64_t w, unsigned buffer);  // runs on the background thread
  Status read_lane(std::uint64_t w, unsigned buffer, unsigned lane, unsigned lanes);  // every lanes-th request
  std::span<std::byte> buffer(unsigned b, std::uint64_t w) const;
  void flush_counters();

  const File& file_;
  std::span<const GridWindow> windows_;
  std::vector<std::uint64_t> order_;  // the windows a pass reads
  std::span<std::byte> buffers_;
  bool checksums_;
  std::uint64_t chunk_;
  unsigned depth_;
  IoCounters* counters_;
  unsigned held_ = 1;               // the buffer whose window the caller holds (none yet: 1, so reads start in 0)
  std::uint64_t pending_at_ = 0;    // the pass's window being read
  unsigned pending_buffer_ = 0;
  std::future<Status> pending_;     // the read of order_[pending_at_] into pending_buffer_
  std::atomic<std::uint64_t> read_requests_ = 0;
  std::atomic<std::uint64_t> read_bytes_ = 0;
};

}  // namespace edgestream
