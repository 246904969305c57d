// FramedWriter / FramedReader: frames on top of the sequential streams, parallel decoding.
#include "compress/framed_stream.hpp"

#include <time.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "compress/delta_codec.hpp"
#include "compress/snappy_codec.hpp"
#include "compress/zlib_codec.hpp"

namespace edgestream {
namespace {

std::uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

constexpr std::size_t kMaxFrameBytes = std::size_t{1} << 30;

}  // namespace

std::size_t frame_bytes_bound(std::size_t raw) {
  return std::max({max_frame_bytes(ZlibCodec(9), raw), max_frame_bytes(SnappyCodec(), raw), max_frame_bytes(DeltaCodec(4), raw),
                   max_frame_bytes(DeltaCodec(16), raw), kFrameHeaderBytes + raw});
}

// ---- writer -------------------------------------------------------------------------------------

Expected<std::unique_ptr<FramedWriter>> FramedWriter::open(const File& file, const IoOptions& io, const CodecSpec& codec,
                                                          bool checksums, std::size_t frame_bytes, IoCounters* io_counters) {
  const bool framed = codec.enabled() || checksums;
  if (framed && (frame_bytes == 0 || frame_bytes > kMaxFrameBytes)) {
    return invalid_argument("frame size " + std::to_string(frame_bytes) + " must be in 1..1 GiB");
  }
  std::unique_ptr<FramedWriter> w(new FramedWriter());
  ES_ASSIGN_OR_RETURN(w->writer_, SequentialWriter::open(file, io, io_counters));
  w->framed_ = framed;
  w->codec_ = make_codec(codec);
  w->frame_bytes_ = frame_bytes;
  return w;
}

Status FramedWriter::append_slow(std::span<const std::byte> data, FrameScratch& scratch) {
  ES_RETURN_IF_ERROR(error_);
  if (raw_.size() == 0) raw_ = AlignedBuffer(frame_bytes_);
  while (!data.empty()) {
    const std::size_t n = std::min(data.size(), frame_bytes_ - fill_);
    std::memcpy(raw_.data() + fill_, data.data(), n);
    fill_ += n;
    appended_ += n;
    data = data.subspan(n);
    if (fill_ == frame_bytes_) ES_RETURN_IF_ERROR(flush_frame(scratch));
  }
  return Status::ok();
}

// A raw frame: header, then the payload straight from the frame buffer (no copy, no scratch).
Status FramedWriter::write_raw_frame() {
  const std::uint64_t start = thread_cpu_ns();
  std::array<std::byte, kFrameHeaderBytes> header{};
  const std::span<const std::byte> raw(raw_.data(), fill_);
  Status status = encode_raw_frame_header(raw, appended_ - fill_, header);
  counters_.compress_ns += thread_cpu_ns() - start;
  if (keep_offsets_) frame_offsets_.push_back(writer_->bytes_appended());
  if (status.is_ok()) status = writer_->append(header);
  if (status.is_ok()) status = writer_->append(raw);
  if (!status.is_ok()) {
    error_ = status;
    return status;
  }
  count_frame(fill_, kFrameHeaderBytes + fill_, CodecId::kNone, /*tried=*/false);
  fill_ = 0;
  return Status::ok();
}

bool FramedWriter::tries_codec() {
  if (codec_->id() == CodecId::kNone) return false;
  if (skip_left_ == 0) return true;
  --skip_left_;
  ++counters_.skipped_frames;
  return false;
}

void FramedWriter::count_frame(std::size_t raw, std::size_t stored, CodecId stored_as, bool tried) {
  counters_.raw_bytes += raw;
  counters_.stored_bytes += stored;
  ++counters_.frames;
  if (stored_as == CodecId::kNone) {
    ++counters_.raw_frames;
    if (tried && ++raw_streak_ >= kRawStreak) {  // it does not compress: stop trying for a while
      skip_left_ = skip_;
      skip_ = std::min(skip_ * 2, kMaxSkip);
    }
  } else {
    raw_streak_ = 0;
    skip_ = kFirstSkip;
  }
}

Expected<std::size_t> FramedWriter::encode_into(std::span<const std::byte> raw, std::uint64_t raw_offset,
                                                std::span<std::byte> out, bool try_codec) {
  const std::uint64_t start = thread_cpu_ns();
  std::size_t size = kFrameHeaderBytes + raw.size();
  CodecId stored_as = CodecId::kNone;
  if (try_codec) {
    FrameHeader header;
    ES_ASSIGN_OR_RETURN(size, encode_frame(*codec_, raw, raw_offset, out, &header));
    stored_as = header.codec;
    counters_.compress_ns += thread_cpu_ns() - start;
  } else {
    ES_RETURN_IF_ERROR(encode_raw_frame_header(raw, raw_offset, out.first<kFrameHeaderBytes>()));
    counters_.compress_ns += thread_cpu_ns() - start;
    std::memcpy(out.data() + kFrameHeaderBytes, raw.data(), raw.size());
  }
  count_frame(raw.size(), size, stored_as, try_codec);
  return size;
}

Status FramedWriter::flush_frame(FrameScratch& scratch) {
  if (fill_ == 0) return Status::ok();
  if (!tries_codec()) return write_raw_frame();
  const std::size_t need = max_frame_bytes(*codec_, frame_bytes_);
  if (scratch.bytes.size() < need) scratch.bytes = AlignedBuffer(need);
  auto frame = encode_into(std::span<const std::byte>(raw_.data(), fill_), appended_ - fill_,
                           std::span<std::byte>(scratch.bytes.data(), scratch.bytes.size()), /*try_codec=*/true);
  if (!frame) {
    error_ = frame.status();
    return error_;
  }
  fill_ = 0;
  if (keep_offsets_) frame_offsets_.push_back(writer_->bytes_appended());
  Status status = writer_->append(std::span<const std::byte>(scratch.bytes.data(), *frame));
  if (!status.is_ok()) error_ = status;
  return status;
}

std::size_t FramedWriter::through_room_bytes(std::size_t raw) const {
  if (!framed_) return 0;
  return kIoAlignment + raw / frame_bytes_ * (frame_bytes_ + kFrameHeaderBytes) + max_frame_bytes(*codec_, frame_bytes_);
}

Status FramedWriter::append_through(std::span<std::byte> data, std::span<std::byte> room, FrameScratch& scratch,
                                    std::size_t request, unsigned in_flight) {
  ES_RETURN_IF_ERROR(error_);
  if (!framed_) {
    Status status = writer_->write_through(data, 0, data.size(), request, in_flight);
    if (!status.is_ok()) error_ = status;
    return status;
  }
  const std::size_t whole = fill_ == 0 ? data.size() / frame_bytes_ * frame_bytes_ : 0;
  const std::size_t pending = writer_->pending_bytes();
  if (whole == 0 || pending >= kIoAlignment || room.size() < through_room_bytes(data.size()) ||
      !writer_->through_begin(room, pending, request, in_flight)) {
    return append(data, scratch);
  }
  // Frame after frame into the room after the writer's pending bytes, each written as soon as its
  // requests fill (SequentialWriter::through_add) while the next is encoded.
  const std::uint64_t stored = writer_->bytes_appended();  // counts the pending bytes
  std::size_t at = pending;
  Status status;
  for (std::size_t f = 0; f < whole && status.is_ok(); f += frame_bytes_) {
    if (keep_offsets_) frame_offsets_.push_back(stored + (at - pending));
    auto size = encode_into(data.subspan(f, frame_bytes_), appended_, room.subspan(at), tries_codec());
    if (!size) {
      status = size.status();
      break;
    }
    appended_ += frame_bytes_;
    at += *size;
    status = writer_->through_add(*size);
  }
  Status ended = writer_->through_end();
  if (status.is_ok()) status = ended;
  if (!status.is_ok()) {
    error_ = status;
    return status;
  }
  return append(data.subspan(whole), scratch);
}

Status FramedWriter::finish(FrameScratch& scratch) {
  if (framed_ && error_.is_ok()) (void)flush_frame(scratch);
  raw_ = AlignedBuffer();
  fill_ = 0;
  Status status = writer_->finish();
  ES_RETURN_IF_ERROR(error_);
  return status;
}

void FramedWriter::restart() {
  writer_->restart();
  frame_offsets_.clear();
  appended_ = 0;
  fill_ = 0;
}

// ---- reader -------------------------------------------------------------------------------------

Expected<std::unique_ptr<FramedReader>> FramedReader::open(const File& file, std::uint64_t stored_bytes,
                                                          std::uint64_t raw_bytes, const IoOptions& io, bool framed,
                                                          std::size_t max_frame_bytes, unsigned slots,
                                                          ParallelFor parallel, IoCounters* io_counters,
                                                          CodecCounters* codec_counters) {
  if (!framed && stored_bytes != raw_bytes) {
    return internal_error("unframed stream " + file.path() + ": stored and raw lengths differ");
  }
  std::vector<FrameExtent> extents;
  if (stored_bytes > 0 || raw_bytes > 0) extents.push_back(FrameExtent{0, stored_bytes, 0, raw_bytes});
  return open(file, std::move(extents), io, framed, max_frame_bytes, slots, std::move(parallel), io_counters, codec_counters);
}

Expected<std::unique_ptr<FramedReader>> FramedReader::open(const File& file, std::vector<FrameExtent> extents,
                                                          const IoOptions& io, bool framed, std::size_t max_frame_bytes,
                                                          unsigned slots, ParallelFor parallel, IoCounters* io_counters,
                                                          CodecCounters* codec_counters) {
  if (framed && (max_frame_bytes == 0 || max_frame_bytes > kMaxFrameBytes)) {
    return invalid_argument("frame size " + std::to_string(max_frame_bytes) + " must be in 1..1 GiB");
  }
  std::vector<ByteExtent> bytes;
  std::uint64_t raw_bytes = 0;
  for (const FrameExtent& e : extents) {
    if (!framed && e.stored_end - e.stored_begin != e.raw_end - e.raw_begin) {
      return internal_error("unframed stream " + file.path() + ": stored and raw lengths differ");
    }
    if (e.stored_end > e.stored_begin) bytes.push_back(ByteExtent{e.stored_begin, e.stored_end});
    raw_bytes += e.raw_end - e.raw_begin;
  }
  std::unique_ptr<FramedReader> r(new FramedReader());
  r->file_ = &file;
  r->framed_ = framed;
  r->extents_ = std::move(extents);
  for (const ByteExtent& e : bytes) r->stored_bytes_ += e.end - e.begin;
  if (!r->extents_.empty()) r->decoded_ = r->extents_[0].raw_begin;
  r->max_frame_ = max_frame_bytes;
  r->parallel_ = std::move(parallel);
  r->counters_ = codec_counters != nullptr ? codec_counters : &r->local_counters_;
  ES_ASSIGN_OR_RETURN(r->reader_, SequentialReader::open(file, std::move(bytes), io, io_counters));
  if (framed && r->stored_bytes_ > 0) {
    // No more slots than frames the stream can hold.
    const std::uint64_t frames = (raw_bytes + max_frame_bytes - 1) / max_frame_bytes + r->extents_.size();
    r->slots_.resize(static_cast<std::size_t>(std::clamp<std::uint64_t>(frames, 1, std::max(1U, slots))));
  }
  return r;
}

Status FramedReader::frame_error(std::uint64_t offset, const std::string& what) const {
  return corruption("corrupt stored chunk in " + file_->path() + " at byte offset " + std::to_string(offset) + ": " +
                    what);
}

// Copies the next n stored bytes (across the reader's chunks) to dst.
Status FramedReader::read_bytes(std::byte* dst, std::size_t n) {
  while (n > 0) {
    if (chunk_.empty()) {
      ES_ASSIGN_OR_RETURN(chunk_, reader_->next());
      if (chunk_.empty()) return corruption("end of stream");  // the caller names file and offset
    }
    const std::size_t take = std::min(n, chunk_.size());
    std::memcpy(dst, chunk_.data(), take);
    chunk_ = chunk_.subspan(take);
    dst += take;
    n -= take;
    consumed_ += take;
  }
  return Status::ok();
}

Status FramedReader::fill_batch() {
  batch_ = 0;
  handed_ = 0;
  while (batch_ < slots_.size() && consumed_ < stored_bytes_) {
    // The extent this frame lies in: the next one once this one's bytes are consumed, where the raw
    // offsets jump to its start.
    while (consumed_ - extent_consumed_ == extents_[extent_].stored_end - extents_[extent_].stored_begin) {
      if (decoded_ != extents_[extent_].raw_end) {
        return frame_error(extents_[extent_].stored_end, "the extent ends after raw offset " + std::to_string(decoded_) +
                                                             ", expected " + std::to_string(extents_[extent_].raw_end));
      }
      extent_consumed_ = consumed_;
      decoded_ = extents_[++extent_].raw_begin;
    }
    const FrameExtent& extent = extents_[extent_];
    const std::uint64_t left = extent.stored_end - extent.stored_begin - (consumed_ - extent_consumed_);
    Slot& slot = slots_[batch_];
    if (slot.raw.size() == 0) slot.raw = AlignedBuffer(max_frame_);
    slot.offset = extent.stored_begin + (consumed_ - extent_consumed_);
    if (left < kFrameHeaderBytes) {
      return frame_error(slot.offset, "the stream ends inside a frame header (" + std::to_string(left) + " bytes left)");
    }
    std::array<std::byte, kFrameHeaderBytes> bytes{};
    Status status = read_bytes(bytes.data(), bytes.size());
    if (!status.is_ok()) {
      return status.code() == StatusCode::kCorruption ? frame_error(slot.offset, status.message()) : status;
    }
    auto header = parse_frame_header(std::span<const std::byte, kFrameHeaderBytes>(bytes));
    if (!header) return frame_error(slot.offset, header.status().message());
    const FrameHeader& h = *header;
    if (h.raw_length == 0 || h.raw_length > max_frame_) {
      return frame_error(slot.offset, "raw length " + std::to_string(h.raw_length) + " is not in 1.." + std::to_string(max_frame_));
    }
    if (h.stored_length > h.raw_length) {
      return frame_error(slot.offset, "stored length " + std::to_string(h.stored_length) + " exceeds raw length " +
                                          std::to_string(h.raw_length));
    }
    if (h.raw_offset != decoded_) {
      return frame_error(slot.offset, "frame holds decoded bytes from " + std::to_string(h.raw_offset) + ", expected " +
                                          std::to_string(decoded_) + " (misplaced or stale frame)");
    }
    if (left - kFrameHeaderBytes < h.stored_length) {
      return frame_error(slot.offset, "the stream ends inside the frame's payload");
    }
    if (extent.raw_end - decoded_ < h.raw_length) {
      return frame_error(slot.offset, "frame decodes past the stream's length " + std::to_string(extent.raw_end));
    }
    // A raw frame is read straight into the output buffer (only its checksum is left to check); the
    // stored buffer is taken only when a compressed frame comes (raw-framed streams never touch it).
    if (h.codec != CodecId::kNone && slot.stored.size() == 0) slot.stored = AlignedBuffer(max_frame_);
    std::byte* target = h.codec == CodecId::kNone ? slot.raw.data() : slot.stored.data();
    status = read_bytes(target, h.stored_length);
    if (!status.is_ok()) {
      return status.code() == StatusCode::kCorruption ? frame_error(slot.offset, status.message()) : status;
    }
    slot.header = h;
    decoded_ += h.raw_length;
    ++batch_;
  }
  if (batch_ == 0) return Status::ok();
  auto decode = [this](std::size_t i) {
    Slot& slot = slots_[i];
    const std::uint64_t start = thread_cpu_ns();
    const FrameHeader& h = slot.header;
    if (h.codec == CodecId::kNone) {
      slot.status = frame_crc(std::span<const std::byte>(slot.raw.data(), h.stored_length)) == h.payload_crc
                        ? Status::ok()
                        : corruption("frame payload checksum mismatch");
    } else {
      slot.status = decode_frame_payload(h, std::span<const std::byte>(slot.stored.data(), h.stored_length),
                                         std::span<std::byte>(slot.raw.data(), h.raw_length));
    }
    slot.cpu_ns = thread_cpu_ns() - start;
  };
  if (parallel_ && batch_ > 1) {
    parallel_(batch_, decode);
  } else {
    for (std::size_t i = 0; i < batch_; ++i) decode(i);
  }
  for (std::size_t i = 0; i < batch_; ++i) {
    const Slot& slot = slots_[i];
    counters_->decompress_ns += slot.cpu_ns;
    if (!slot.status.is_ok()) return frame_error(slot.offset, slot.status.message());
    counters_->decoded_bytes += slot.header.raw_length;
  }
  return Status::ok();
}

Expected<std::span<const std::byte>> FramedReader::next() {
  if (!framed_) {
    ES_ASSIGN_OR_RETURN(auto chunk, reader_->next());
    // Unframed: stored offsets are raw offsets, extent by extent.
    while (extent_ + 1 < extents_.size() && reader_->offset() >= extents_[extent_].stored_end) ++extent_;
    if (!extents_.empty()) last_raw_offset_ = extents_[extent_].raw_begin + (reader_->offset() - extents_[extent_].stored_begin);
    return chunk;
  }
  ES_RETURN_IF_ERROR(error_);
  if (handed_ == batch_) {
    error_ = fill_batch();
    ES_RETURN_IF_ERROR(error_);
    if (batch_ == 0) {
      const std::uint64_t end = extents_.empty() ? 0 : extents_.back().raw_end;
      if (decoded_ != end) {
        return frame_error(consumed_, "the stream ends after " + std::to_string(decoded_) + " decoded bytes, expected " +
                                          std::to_string(end));
      }
      return std::span<const std::byte>();
    }
  }
  const Slot& slot = slots_[handed_++];
  last_raw_offset_ = slot.header.raw_offset;
  return std::span<const std::byte>(slot.raw.data(), slot.header.raw_length);
}

}  // namespace edgestream
