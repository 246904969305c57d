// Appends bytes to a file sequentially in requests of IoOptions::write_chunk with up to
// IoOptions::depth writes in flight (write-behind), so the caller computes while the device writes.
// A striped file (io/striped_file.hpp) is written with each member volume's own write chunk and
// depth: a request never crosses a stripe, and up to that volume's depth are in flight on each.
// Large appends from memory the caller leaves idle meanwhile can instead be written straight from
// it (through_begin/through_add/through_end) in larger requests, more of them in flight.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "io/aligned_buffer.hpp"
#include "io/file.hpp"
#include "io/io_options.hpp"
#include "io/uring_queue.hpp"

namespace edgestream {

class SequentialWriter {
 public:
  /// Appends to `file` (which must outlive the writer) starting at offset 0. Buffers (and the
  /// io_uring) are set up on the first append and released by finish(): an idle writer holds no
  /// memory and no ring; an active one depth * write_chunk bytes.
  static Expected<std::unique_ptr<SequentialWriter>> open(const File& file, const IoOptions& options,
                                                          IoCounters* counters);
  SequentialWriter(const SequentialWriter&) = delete;
  SequentialWriter& operator=(const SequentialWriter&) = delete;
  ~SequentialWriter() = default;

  /// Copies `data` into the current buffer, submitting full buffers. After an error every call
  /// returns that first error.
  Status append(std::span<const std::byte> data) {
    if (current_ >= 0 && fill_ + data.size() < limit_) {  // fast path: fits the buffer
      std::memcpy(slots_[static_cast<std::size_t>(current_)].buffer.data() + fill_, data.data(), data.size());
      fill_ += data.size();
      appended_ += data.size();
      return Status::ok();
    }
    return append_slow(data);
  }
  /// Writing straight from the caller's memory (no copy into the writer's buffers), in larger and
  /// deeper requests than the writer's own: for large appends from memory that is idle while they
  /// are written (the split's runs: docs/performance.md, session 52). The file's bytes are the
  /// same as append()'s.
  ///  - through_begin(room, offset): the bytes buffered and not yet written (pending_bytes(),
  ///    fewer than a block after a through_end) are copied to room[offset - pending_bytes(),
  ///    offset), so that the requests start at an aligned place. False (nothing done; use
  ///    append()) when offset < pending_bytes(), that place is not aligned, or after an error.
  ///  - through_add(length): the next `length` bytes of the room (from offset on) are final and
  ///    appended; whole requests of `request` bytes (rounded down to the alignment, at least a
  ///    block; never across a stripe) are submitted as they fill, with up to `in_flight` (at most
  ///    kMaxThroughInFlight) in flight, so the caller fills the room on while they are written.
  ///  - through_end(): submits the rest but a last part of less than a block (buffered as append()
  ///    would), and returns once every request is written: the room is the caller's again.
  /// The room must stay untouched from through_begin to through_end, which must follow even after
  /// an error (it returns the first one).
  bool through_begin(std::span<std::byte> room, std::size_t offset, std::size_t request, unsigned in_flight);
  Status through_add(std::size_t length);
  Status through_end();
  /// through_begin, through_add(length), through_end; append() when through_begin says no.
  Status write_through(std::span<std::byte> room, std::size_t offset, std::size_t length, std::size_t request,
                       unsigned in_flight);
  /// Bytes appended and not yet submitted (they lead the next through_begin's requests).
  std::size_t pending_bytes() const { return current_ >= 0 ? fill_ : 0; }
  static constexpr unsigned kMaxThroughInFlight = 8;
  /// Writes what is buffered, waits for every write, and sets the file length to bytes_appended()
  /// (direct I/O pads the last block, the truncate removes the padding). The writer can then be
  /// restart()ed or dropped.
  Status finish();
  /// After finish(): starts again at offset 0 (the file is truncated at the next finish()).
  void restart();
  std::uint64_t bytes_appended() const { return appended_; }
  /// Bytes of buffer memory the writer holds while active (a plain file; a striped file holds the
  /// sum of its members' depths times their largest write chunk).
  static std::size_t memory_bytes(const IoOptions& options) { return std::size_t{options.depth} * options.write_chunk; }

 private:
  struct Slot {
    AlignedBuffer buffer;
    std::uint64_t offset = 0;
    std::size_t length = 0;  // bytes to write (rounded up to the alignment on the last one)
    bool busy = false;
    const File* file = nullptr;     // the (member) file written
    std::uint64_t file_offset = 0;  // offset in that file
    std::size_t member = 0;
  };
  SequentialWriter(const File& file, const IoOptions& options, IoCounters* counters);
  Status append_slow(std::span<const std::byte> data);
  Status submit_current(bool last);
  Status wait_one();
  Status complete(int slot, int result);
  // A request of write_through(), tagged kThroughTag | its index in through_.
  struct ThroughRequest {
    const std::byte* data = nullptr;
    std::size_t length = 0;
    const File* file = nullptr;
    std::uint64_t file_offset = 0;
    std::size_t member = 0;
  };
  static constexpr std::uint64_t kThroughTag = std::uint64_t{1} << 62;
  Status complete_through(std::size_t index, int result);
  // A synchronous write of `bytes` at `file_offset` of `file` (member `member`), timed as a wait and
  // counted when it succeeds; the caller keeps the error.
  Status write_now(const File& file, std::size_t member, std::uint64_t file_offset, std::span<const std::byte> bytes);
  // The completion of a ring write of `bytes` (the kernel's result `os_result`): fault injection
  // applied, a short write finished synchronously, counted; an error also becomes the sticky one.
  Status settle_write(const File& file, std::size_t member, std::uint64_t file_offset, std::span<const std::byte> bytes,
                      int os_result);
  // A request counted in the stream's counters and in its volume's (member `member`); returns the
  // volume's counters (null: none).
  VolumeCounters* count_request(std::size_t member);
  void count_written(std::size_t member, std::size_t length);
  Status ensure_ring();
  Status submit_through(std::size_t length);

  const File* file_;
  IoOptions options_;
  IoCounters* counters_;
  IoCounters local_counters_;
  std::uint64_t appended_ = 0;   // logical bytes appended
  std::uint64_t submitted_ = 0;  // file offset of the current buffer
  std::vector<Slot> slots_;      // declared before ring_: the ring drains before buffers are freed
  int current_ = -1;             // slot being filled
  std::size_t fill_ = 0;
  std::size_t limit_ = 0;          // capacity of the current buffer (volume chunk, stripe end)
  std::size_t buffer_bytes_ = 0;   // size of every slot buffer (the largest member chunk)
  std::vector<std::size_t> chunk_;    // per member: bytes per request
  std::vector<unsigned> depth_;       // per member: writes in flight at most
  std::vector<unsigned> in_flight_;   // per member: ring writes in flight now
  Status error_;
  std::vector<ThroughRequest> through_;  // the requests since through_begin (completions find them here)
  unsigned through_in_flight_ = 0;
  std::byte* through_start_ = nullptr;  // where submitted_ lies in the room; nullptr: no through_begin
  std::size_t through_ready_ = 0;       // bytes from through_start_ that are final
  std::size_t through_sent_ = 0;        // ... and submitted
  std::size_t through_request_ = 0;
  unsigned through_depth_ = 0;
  Status through_status_;
  std::unique_ptr<UringQueue> ring_;  // created with the buffers, torn down by finish()
};

}  // namespace edgestream
