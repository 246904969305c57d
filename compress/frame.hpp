// The framed chunk format of compressed scratch streams (docs/compression.md):
//
//   offset size  field
//        0    4  magic "ESF1"
//        4    1  format version (1)
//        5    1  codec id of the payload (CodecId; 0 = stored raw)
//        6    2  reserved, zero
//        8    4  raw length (bytes after decoding)
//       12    4  stored length (payload bytes following the header)
//       16    8  raw offset: position of the chunk's first decoded byte in the decoded stream
//       24    4  payload checksum: zlib crc32 of the stored payload
//       28    4  header checksum: zlib crc32 of bytes 0..27
//       32       payload (stored length bytes), then the next frame at once (frames are packed)
//
// All integers little-endian. A chunk whose compressed form saves less than 1/8 of its raw length
// is stored raw (codec 0; LevelDB's rule), so a frame never costs more than the header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "compress/codec.hpp"

namespace edgestream {

inline constexpr std::size_t kFrameHeaderBytes = 32;
inline constexpr std::uint32_t kFrameMagic = 0x31465345;  // "ESF1" little-endian
inline constexpr std::uint8_t kFrameVersion = 1;

struct FrameHeader {
  CodecId codec = CodecId::kNone;
  std::uint32_t raw_length = 0;
  std::uint32_t stored_length = 0;
  std::uint64_t raw_offset = 0;
  std::uint32_t payload_crc = 0;
};

/// zlib's crc32 of `bytes` (computed by crc32_update, compress/crc32.hpp).
std::uint32_t frame_crc(std::span<const std::byte> bytes);

/// Largest frame (header + payload) `codec` produces for a chunk of `raw_length` bytes.
std::size_t max_frame_bytes(const Codec& codec, std::size_t raw_length);

/// Compresses `raw` (at most UINT32_MAX bytes) with `codec` into `out` (at least
/// max_frame_bytes(codec, raw.size())) as one frame, stored raw when compression saves less than
/// 1/8. Returns the frame's size; `header` (optional) receives what was written.
Expected<std::size_t> encode_frame(const Codec& codec, std::span<const std::byte> raw, std::uint64_t raw_offset,
                                   std::span<std::byte> out, FrameHeader* header = nullptr);

/// Writes the header of a raw frame (codec 0, payload = `raw` as it is, checksummed) into `out`;
/// the caller appends `raw` after it. Same bytes as encode_frame with the none codec, without copying
/// the payload (the `none` codec's framed scratch streams: checksums at the cost of one crc32 pass).
Status encode_raw_frame_header(std::span<const std::byte> raw, std::uint64_t raw_offset,
                               std::span<std::byte, kFrameHeaderBytes> out);

/// Parses and checks a header (magic, version, header checksum, known codec). Errors are
/// kCorruption without a location (the caller adds file and offset).
Expected<FrameHeader> parse_frame_header(std::span<const std::byte, kFrameHeaderBytes> bytes);

/// Checks the payload checksum and decodes `payload` (header.stored_length bytes) into `out`
/// (header.raw_length bytes). kCorruption on any mismatch.
Status decode_frame_payload(const FrameHeader& header, std::span<const std::byte> payload, std::span<std::byte> out);

}  // namespace edgestream
