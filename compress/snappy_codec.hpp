// snappy codec: fast, modest ratio; the cloud paper's choice where zlib cannot keep up.
#pragma once

#include "compress/codec.hpp"

namespace edgestream {

class SnappyCodec final : public Codec {
 public:
  CodecId id() const override { return CodecId::kSnappy; }
  std::size_t max_compressed_length(std::size_t raw_length) const override;
  Expected<std::size_t> compress(std::span<const std::byte> raw, std::span<std::byte> out) const override;
  Status decompress(std::span<const std::byte> stored, std::span<std::byte> out) const override;
};

}  // namespace edgestream
