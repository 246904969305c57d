// Frame encoding and checking (the layout is in frame.hpp).
#include "compress/frame.hpp"

#include <algorithm>
#include <cstring>

#include "compress/crc32.hpp"
#include "compress/none_codec.hpp"

namespace edgestream {
namespace {

void put32(std::byte* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
void put64(std::byte* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint32_t get32(const std::byte* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{std::to_integer<std::uint8_t>(p[i])} << (8 * i);
  return v;
}
std::uint64_t get64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{std::to_integer<std::uint8_t>(p[i])} << (8 * i);
  return v;
}

}  // namespace

std::uint32_t frame_crc(std::span<const std::byte> bytes) { return crc32_update(0, bytes); }

namespace {

// The 32 header bytes of `h` at p (layout in frame.hpp), header checksum included.
void put_header(std::byte* p, const FrameHeader& h) {
  put32(p, kFrameMagic);
  p[4] = static_cast<std::byte>(kFrameVersion);
  p[5] = static_cast<std::byte>(h.codec);
  p[6] = std::byte{0};
  p[7] = std::byte{0};
  put32(p + 8, h.raw_length);
  put32(p + 12, h.stored_length);
  put64(p + 16, h.raw_offset);
  put32(p + 24, h.payload_crc);
  put32(p + 28, frame_crc(std::span<const std::byte>(p, 28)));
}

}  // namespace

std::size_t max_frame_bytes(const Codec& codec, std::size_t raw_length) {
  return kFrameHeaderBytes + std::max(raw_length, codec.max_compressed_length(raw_length));
}

Expected<std::size_t> encode_frame(const Codec& codec, std::span<const std::byte> raw, std::uint64_t raw_offset,
                                   std::span<std::byte> out, FrameHeader* header_out) {
  if (raw.size() > UINT32_MAX) return invalid_argument("frame: chunk larger than 4 GiB");
  if (out.size() < max_frame_bytes(codec, raw.size())) return internal_error("frame: output buffer too small");
  FrameHeader h;
  h.raw_length = static_cast<std::uint32_t>(raw.size());
  h.raw_offset = raw_offset;
  std::span<std::byte> payload = out.subspan(kFrameHeaderBytes);
  std::size_t stored = raw.size();
  bool compressed = false;
  if (codec.id() != CodecId::kNone && !raw.empty()) {
    ES_ASSIGN_OR_RETURN(const std::size_t n, codec.compress(raw, payload));
    if (n < raw.size() - raw.size() / 8) {  // LevelDB's rule: keep only if it saves at least 12.5%
      stored = n;
      compressed = true;
    }
  }
  if (!compressed && !raw.empty()) std::memcpy(payload.data(), raw.data(), raw.size());
  h.codec = compressed ? codec.id() : CodecId::kNone;
  h.stored_length = static_cast<std::uint32_t>(stored);
  h.payload_crc = frame_crc(payload.first(stored));
  put_header(out.data(), h);
  if (header_out != nullptr) *header_out = h;
  return kFrameHeaderBytes + stored;
}

Status encode_raw_frame_header(std::span<const std::byte> raw, std::uint64_t raw_offset,
                               std::span<std::byte, kFrameHeaderBytes> out) {
  if (raw.size() > UINT32_MAX) return invalid_argument("frame: chunk larger than 4 GiB");
  FrameHeader h;
  h.codec = CodecId::kNone;
  h.raw_length = static_cast<std::uint32_t>(raw.size());
  h.stored_length = h.raw_length;
  h.raw_offset = raw_offset;
  h.payload_crc = frame_crc(raw);
  put_header(out.data(), h);
  return Status::ok();
}

Expected<FrameHeader> parse_frame_header(std::span<const std::byte, kFrameHeaderBytes> bytes) {
  const std::byte* p = bytes.data();
  if (get32(p) != kFrameMagic) return corruption("bad frame magic (not a compressed-stream chunk header)");
  if (get32(p + 28) != frame_crc(std::span<const std::byte>(p, 28))) return corruption("frame header checksum mismatch");
  if (std::to_integer<std::uint8_t>(p[4]) != kFrameVersion) {
    return corruption("unknown frame format version " + std::to_string(std::to_integer<int>(p[4])));
  }
  const std::uint8_t codec = std::to_integer<std::uint8_t>(p[5]);
  if (decoder_for(codec) == nullptr) return corruption("unknown codec id " + std::to_string(codec));
  FrameHeader h;
  h.codec = static_cast<CodecId>(codec);
  h.raw_length = get32(p + 8);
  h.stored_length = get32(p + 12);
  h.raw_offset = get64(p + 16);
  h.payload_crc = get32(p + 24);
  if (h.codec == CodecId::kNone && h.stored_length != h.raw_length) {
    return corruption("raw frame with stored length " + std::to_string(h.stored_length) + " != raw length " +
                      std::to_string(h.raw_length));
  }
  return h;
}

Status decode_frame_payload(const FrameHeader& header, std::span<const std::byte> payload, std::span<std::byte> out) {
  if (payload.size() != header.stored_length || out.size() != header.raw_length) {
    return internal_error("frame: buffer sizes do not match the header");
  }
  if (frame_crc(payload) != header.payload_crc) return corruption("frame payload checksum mismatch");
  const Codec* codec = decoder_for(static_cast<std::uint8_t>(header.codec));
  if (codec == nullptr) return corruption("unknown codec id");
  return codec->decompress(payload, out);
}

}  // namespace edgestream
