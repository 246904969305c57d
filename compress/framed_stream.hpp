// Scratch streams with a codec: FramedWriter cuts the appended bytes into frames of frame_bytes raw
// bytes, compresses each (compress/frame.hpp) on the thread that filled it and appends the frame to
// a SequentialWriter, which packs frames back to back into aligned write requests and keeps them in
// flight (write-behind). FramedReader reads the frames through a SequentialReader (read-ahead),
// gathers up to `slots` of them and decodes them in parallel (one per worker), then hands the
// decoded chunks out in order. With the codec `none` and `checksums` the frames are raw frames
// (header + payload as it is, crc32 checked on reading: a flipped byte is reported, not used);
// without checksums both are pass-throughs (the unframed raw format, no extra memory).
//
// Threads: a writer may be appended from any thread, but by one thread at a time (the engine's
// spill tasks own one destination each). A reader is driven by one thread; the decoding runs on
// the ParallelFor it was given.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compress/codec.hpp"
#include "compress/codec_counters.hpp"
#include "compress/frame.hpp"
#include "io/aligned_buffer.hpp"
#include "io/file.hpp"
#include "io/io_options.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"

namespace edgestream {

/// The compression output buffer of one thread (a frame is built here before it is appended).
/// Grows on first use to max_frame_bytes of the writer's frame size; one per worker thread.
struct FrameScratch {
  AlignedBuffer bytes;  // mmap-backed like the stream buffers: freed memory leaves the process at once
};

/// Runs fn(task) for task in [0, tasks), possibly in parallel; returns when all are done.
using ParallelFor = std::function<void(std::size_t tasks, const std::function<void(std::size_t task)>& fn)>;

/// Upper bound of max_frame_bytes over every codec for chunks of `raw` bytes (memory planning).
std::size_t frame_bytes_bound(std::size_t raw);

class FramedWriter {
 public:
  /// Appends to `file` from offset 0. `frame_bytes` (> 0, at most 1 GiB) is the raw size of a
  /// frame. The stream is framed when the codec is not none or `checksums` is set (none: raw
  /// frames, checksummed). Buffers are taken on the first append and released by finish(): while
  /// active a writer holds SequentialWriter::memory_bytes(io) plus frame_bytes (unframed: no
  /// frame buffer).
  static Expected<std::unique_ptr<FramedWriter>> open(const File& file, const IoOptions& io, const CodecSpec& codec,
                                                      bool checksums, std::size_t frame_bytes, IoCounters* io_counters);

  /// Appends `data`; a frame that fills is compressed into `scratch` on this thread.
  Status append(std::span<const std::byte> data, FrameScratch& scratch) {
    if (!framed_) return writer_->append(data);
    if (fill_ + data.size() < frame_bytes_ && raw_.size() != 0) {
      std::memcpy(raw_.data() + fill_, data.data(), data.size());
      fill_ += data.size();
      appended_ += data.size();
      return Status::ok();
    }
    return append_slow(data, scratch);
  }
  /// Appends `data` as append() does, and writes it before it returns, in large, deep requests
  /// straight from memory (SequentialWriter::through_begin/through_add/through_end: `request`
  /// bytes each, `in_flight` at once). An unframed stream writes `data` where it is (the fast path
  /// needs it aligned, and fewer than a block pending); a framed one encodes its whole frames into
  /// `room` (through_room_bytes(data.size()) bytes, aligned), each written while the next is
  /// encoded, and buffers the rest of a frame as append() does. Falls back to append() when a frame
  /// is partly filled, a block or more is pending in the writer, or the room is too small. The
  /// stream's bytes, frame offsets and counters are the same either way; `data` and `room` are the
  /// caller's again on return.
  Status append_through(std::span<std::byte> data, std::span<std::byte> room, FrameScratch& scratch, std::size_t request,
                        unsigned in_flight);
  /// The room append_through needs for `raw` bytes (0 unframed): the writer's pending bytes (fewer
  /// than a block), every whole frame at its largest, and a frame's compression bound.
  std::size_t through_room_bytes(std::size_t raw) const;
  /// Frames what is buffered, writes everything and sets the file length (SequentialWriter::finish).
  Status finish(FrameScratch& scratch);
  /// After finish(): starts again at offset 0.
  void restart();
  /// Raw bytes appended (what a reader gets back).
  std::uint64_t bytes_appended() const { return framed_ ? appended_ : writer_->bytes_appended(); }
  /// Bytes in the file after finish() (frames with headers; = bytes_appended() for none).
  std::uint64_t bytes_stored() const { return writer_->bytes_appended(); }
  bool framed() const { return framed_; }
  /// Totals over every use of this writer.
  const CodecCounters& codec_counters() const { return counters_; }
  /// From now on, keeps the stored offset of every frame (8 bytes each; edge streams, read by
  /// selected frames).
  void keep_frame_offsets() { keep_offsets_ = true; }
  /// With keep_frame_offsets(): the stored offset of every frame written since, in order (frame f
  /// holds raw bytes [f * frame_bytes, ...)): where a reader of selected frames starts.
  const std::vector<std::uint64_t>& frame_offsets() const { return frame_offsets_; }

 private:
  FramedWriter() = default;
  Status append_slow(std::span<const std::byte> data, FrameScratch& scratch);
  Status flush_frame(FrameScratch& scratch);
  // Whether the next frame tries the codec: not with none, nor while tries are skipped (counting
  // the skipped frame).
  bool tries_codec();
  // Counts a frame of `raw` bytes stored in `stored` as `stored_as`; a tried frame that stayed raw
  // lengthens the streak that starts skipping, a compressed one ends it.
  void count_frame(std::size_t raw, std::size_t stored, CodecId stored_as, bool tried);
  // Encodes `raw` (one frame's bytes, from raw offset `raw_offset` of the stream) into `out` (at
  // least max_frame_bytes of the codec for frame_bytes_) as a frame: compressed when `try_codec`
  // (tries_codec()) and it pays, else raw; counts it. Returns the frame's size.
  Expected<std::size_t> encode_into(std::span<const std::byte> raw, std::uint64_t raw_offset, std::span<std::byte> out,
                                    bool try_codec);

  std::unique_ptr<SequentialWriter> writer_;
  std::unique_ptr<Codec> codec_;
  bool framed_ = false;
  std::size_t frame_bytes_ = 0;
  // Adaptive compression: after kRawStreak frames in a row that did not compress, the next
  // `skip_` frames are stored raw without trying (then one is tried again; each failure doubles the
  // skip, up to kMaxSkip). Snappy on incompressible RMAT edges otherwise costs a third more CPU for
  // nothing. The frames are ordinary raw frames: readers cannot tell.
  static constexpr unsigned kRawStreak = 4;
  static constexpr unsigned kFirstSkip = 8;
  static constexpr unsigned kMaxSkip = 256;
  unsigned raw_streak_ = 0;
  unsigned skip_ = kFirstSkip;
  unsigned skip_left_ = 0;
  Status write_raw_frame();
  bool keep_offsets_ = false;
  std::vector<std::uint64_t> frame_offsets_;
  AlignedBuffer raw_;  // the frame being filled
  std::size_t fill_ = 0;
  std::uint64_t appended_ = 0;
  Status error_;
  CodecCounters counters_;
};

/// Consecutive whole frames of a stream: stored bytes [stored_begin, stored_end) of its file, which
/// decode to raw bytes [raw_begin, raw_end) of the stream (unframed: the same bytes).
struct FrameExtent {
  std::uint64_t stored_begin = 0;
  std::uint64_t stored_end = 0;
  std::uint64_t raw_begin = 0;
  std::uint64_t raw_end = 0;
};

class FramedReader {
 public:
  /// Streams the decoded content of `file`: `stored_bytes` bytes in the file that decode to
  /// `raw_bytes`. framed = false: the file is read as is (raw_bytes must equal stored_bytes).
  /// `max_frame_bytes` bounds a frame's raw length (the writer's frame_bytes); `slots` frames are
  /// decoded at once through `parallel` (null: on the calling thread). Memory while open: the
  /// SequentialReader's plus 2 * slots * max_frame_bytes.
  static Expected<std::unique_ptr<FramedReader>> open(const File& file, std::uint64_t stored_bytes, std::uint64_t raw_bytes,
                                                      const IoOptions& io, bool framed, std::size_t max_frame_bytes,
                                                      unsigned slots, ParallelFor parallel, IoCounters* io_counters,
                                                      CodecCounters* codec_counters);
  /// Streams only `extents` of such a stream (non-empty, increasing, disjoint; framed: each whole
  /// frames, as FramedWriter::frame_offsets() places them). Each frame's header must name the raw
  /// offset its extent expects. raw_offset() tells where each chunk lies in the stream.
  static Expected<std::unique_ptr<FramedReader>> open(const File& file, std::vector<FrameExtent> extents, const IoOptions& io,
                                                      bool framed, std::size_t max_frame_bytes, unsigned slots,
                                                      ParallelFor parallel, IoCounters* io_counters,
                                                      CodecCounters* codec_counters);
  /// The next decoded chunk in order; empty after the last. Valid until the next call. A damaged
  /// frame is kCorruption naming the file and the frame's byte offset.
  Expected<std::span<const std::byte>> next();
  /// The raw (decoded) stream offset of the chunk next() returned last.
  std::uint64_t raw_offset() const { return last_raw_offset_; }

 private:
  struct Slot {
    AlignedBuffer stored;
    AlignedBuffer raw;
    FrameHeader header;
    std::uint64_t offset = 0;  // file offset of the frame
    Status status;
    std::uint64_t cpu_ns = 0;
  };
  FramedReader() = default;
  Status read_bytes(std::byte* dst, std::size_t n);
  Status fill_batch();
  Status frame_error(std::uint64_t offset, const std::string& what) const;

  const File* file_ = nullptr;
  std::unique_ptr<SequentialReader> reader_;
  bool framed_ = false;
  std::uint64_t stored_bytes_ = 0;    // of all extents
  std::vector<FrameExtent> extents_;
  std::size_t extent_ = 0;            // the extent being framed
  std::uint64_t extent_consumed_ = 0; // consumed_ where it starts
  std::uint64_t last_raw_offset_ = 0;
  std::size_t max_frame_ = 0;
  ParallelFor parallel_;
  CodecCounters* counters_ = nullptr;
  CodecCounters local_counters_;
  std::span<const std::byte> chunk_;  // unread rest of the reader's current chunk
  std::uint64_t consumed_ = 0;        // stored bytes taken from the reader
  std::uint64_t decoded_ = 0;         // the raw offset the next frame starts at
  std::vector<Slot> slots_;
  std::size_t batch_ = 0;             // slots filled in the current batch
  std::size_t handed_ = 0;            // slots of the batch returned to the caller
  Status error_;                      // sticky: every call after a failure returns it
};

}  // namespace edgestream
