// Streams a byte range of a file sequentially in chunks of IoOptions::read_chunk with up to
// IoOptions::depth requests in flight (read-ahead), so the device works while the caller computes.
// A striped file (io/striped_file.hpp) is read with each member volume's own read chunk and depth:
// requests never cross a stripe, and up to that volume's depth are in flight on each volume.
// It may also stream a list of extents (a scatter's selected frames): the read-ahead runs on across
// them, and an extent may begin anywhere (its first request starts at the aligned offset below).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "io/aligned_buffer.hpp"
#include "io/file.hpp"
#include "io/io_options.hpp"
#include "io/uring_queue.hpp"

namespace edgestream {

/// Bytes [begin, end) of a file.
struct ByteExtent {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

class SequentialReader {
 public:
  /// Streams bytes [begin, end) of `file`, which must outlive the reader. `begin` must be a
  /// multiple of file.alignment(); `end` must not exceed the file size. `counters` (optional)
  /// accumulates bytes read and time blocked.
  static Expected<std::unique_ptr<SequentialReader>> open(const File& file, std::uint64_t begin, std::uint64_t end,
                                                          const IoOptions& options, IoCounters* counters);
  /// Streams `extents` of `file` in order: each non-empty, increasing and disjoint, none past the
  /// file's end; a begin need not be aligned. Every chunk lies inside one extent.
  static Expected<std::unique_ptr<SequentialReader>> open(const File& file, std::vector<ByteExtent> extents,
                                                          const IoOptions& options, IoCounters* counters);
  SequentialReader(const SequentialReader&) = delete;
  SequentialReader& operator=(const SequentialReader&) = delete;
  ~SequentialReader() = default;

  /// The next chunk in file order (at most read_chunk bytes, or the member volume's read chunk for
  /// a striped file); an empty span after the last one.
  /// The span is valid until the next call. A read error, or a file shorter than `end`, is an error.
  Expected<std::span<const std::byte>> next();
  /// Bytes of the range (extents) not yet returned.
  std::uint64_t remaining() const { return total_ - returned_; }
  /// The file offset of the chunk next() returned last.
  std::uint64_t offset() const { return last_offset_; }

 private:
  struct Slot {
    AlignedBuffer buffer;
    std::uint64_t offset = 0;
    std::size_t length = 0;  // bytes wanted (the request is rounded up to the alignment)
    std::size_t skip = 0;    // bytes before `offset` the request starts at (an unaligned extent begin)
    bool ready = false;
    Status error;
    const File* file = nullptr;     // the (member) file holding the chunk
    std::uint64_t file_offset = 0;  // offset in that file
    std::size_t member = 0;
  };
  SequentialReader(const File& file, std::vector<ByteExtent> extents, const IoOptions& options, IoCounters* counters);
  Status fill();  // submits requests while slots, the range and the per-volume depths allow
  Status submit(int slot, const FileSegment& segment);
  Status complete(int slot, int result, bool from_ring);
  Status wait_for(int slot);

  const File* file_;
  std::vector<ByteExtent> extents_;
  std::size_t extent_ = 0;        // the extent next_offset_ lies in
  std::uint64_t next_offset_ = 0;
  std::uint64_t total_ = 0;       // bytes of all extents
  std::uint64_t returned_ = 0;
  std::uint64_t last_offset_ = 0;
  IoOptions options_;
  IoCounters* counters_;
  IoCounters local_counters_;
  std::vector<Slot> slots_;  // declared before ring_: the ring drains before buffers are freed
  std::deque<int> order_;    // submitted slots, oldest first
  std::vector<int> free_;    // slots neither submitted nor held
  std::vector<std::size_t> chunk_;    // per member: bytes per request
  std::vector<unsigned> depth_;       // per member: requests in flight at most
  std::vector<unsigned> in_flight_;   // per member: ring requests in flight now
  int held_ = -1;            // slot whose data the caller holds
  UringQueue ring_;
};

}  // namespace edgestream
