// libFuzzer target: the chunk (frame) decoder of compressed streams (compress/frame.*) in memory.
// The input is taken as a sequence of stored frames; each header is parsed and each payload checked
// and decoded. Damage must be kCorruption (never a crash, an overflow or a huge allocation).
// Each input is tried twice: as given (random bytes mostly fail the checksums), and with both crc32
// fields repaired, so that arbitrary payloads reach the zlib and snappy decoders themselves.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "compress/frame.hpp"

namespace {

using edgestream::kFrameHeaderBytes;

void put32(std::byte* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}

void decode_all(std::span<std::byte> bytes, bool repair) {
  constexpr std::uint32_t kMaxRaw = 1 << 20;  // the stream reader bounds raw lengths the same way
  std::vector<std::byte> out;
  while (bytes.size() >= kFrameHeaderBytes) {
    std::uint32_t stored_length = 0;
    std::memcpy(&stored_length, bytes.data() + 12, 4);  // little-endian host (x86-64)
    const std::size_t payload_bytes = std::min<std::size_t>(stored_length, bytes.size() - kFrameHeaderBytes);
    if (repair) {
      put32(bytes.data() + 24, edgestream::frame_crc(bytes.subspan(kFrameHeaderBytes, payload_bytes)));
      put32(bytes.data() + 28, edgestream::frame_crc(bytes.first(28)));
    }
    auto header = edgestream::parse_frame_header(std::span<const std::byte, kFrameHeaderBytes>(bytes.data(), kFrameHeaderBytes));
    if (!header) {
      if (header.status().code() != edgestream::StatusCode::kCorruption) std::abort();
      return;
    }
    bytes = bytes.subspan(kFrameHeaderBytes);
    if (header->stored_length > bytes.size() || header->raw_length > kMaxRaw) return;
    out.assign(header->raw_length, std::byte{0});
    const auto payload = bytes.first(header->stored_length);
    const edgestream::Status status = edgestream::decode_frame_payload(*header, payload, out);
    if (!status.is_ok() && status.code() != edgestream::StatusCode::kCorruption) std::abort();
    if (status.is_ok() && header->codec == edgestream::CodecId::kNone &&
        !std::equal(out.begin(), out.end(), payload.begin())) {
      std::abort();  // a raw frame decodes to its payload
    }
    bytes = bytes.subspan(header->stored_length);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::byte> copy(reinterpret_cast<const std::byte*>(data), reinterpret_cast<const std::byte*>(data) + size);
  decode_all(copy, /*repair=*/false);
  copy.assign(reinterpret_cast<const std::byte*>(data), reinterpret_cast<const std::byte*>(data) + size);
  decode_all(copy, /*repair=*/true);
  return 0;
}
