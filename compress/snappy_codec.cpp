// SnappyCodec: raw snappy; the stored length prefix is checked before decoding so a damaged chunk
// can never write past the output buffer.
#include "compress/snappy_codec.hpp"

#include <snappy.h>

namespace edgestream {

std::size_t SnappyCodec::max_compressed_length(std::size_t raw_length) const {
  return snappy::MaxCompressedLength(raw_length);
}

Expected<std::size_t> SnappyCodec::compress(std::span<const std::byte> raw, std::span<std::byte> out) const {
  if (out.size() < max_compressed_length(raw.size())) return internal_error("snappy: output buffer too small");
  std::size_t length = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(raw.data()), raw.size(), reinterpret_cast<char*>(out.data()), &length);
  return length;
}

Status SnappyCodec::decompress(std::span<const std::byte> stored, std::span<std::byte> out) const {
  const char* in = reinterpret_cast<const char*>(stored.data());
  std::size_t length = 0;
  if (!snappy::GetUncompressedLength(in, stored.size(), &length)) return corruption("snappy chunk has a bad length prefix");
  if (length != out.size()) {
    return corruption("snappy chunk decodes to " + std::to_string(length) + " bytes (expected " +
                      std::to_string(out.size()) + ")");
  }
  if (!snappy::RawUncompress(in, stored.size(), reinterpret_cast<char*>(out.data()))) {
    return corruption("snappy decoder error");
  }
  return Status::ok();
}

}  // namespace edgestream
