// zlib (deflate) codec, level 1..9: X-Stream's --compressed_io codec.
#pragma once

#include "compress/codec.hpp"

namespace edgestream {

class ZlibCodec final : public Codec {
 public:
  /// `level` in 1..9 (0 = kDefaultZlibLevel).
  explicit ZlibCodec(int level) : level_(level == 0 ? kDefaultZlibLevel : level) {}
  CodecId id() const override { return CodecId::kZlib; }
  std::size_t max_compressed_length(std::size_t raw_length) const override;
  Expected<std::size_t> compress(std::span<const std::byte> raw, std::span<std::byte> out) const override;
  Status decompress(std::span<const std::byte> stored, std::span<std::byte> out) const override;

 private:
  int level_;
};

}  // namespace edgestream
