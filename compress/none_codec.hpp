// The identity codec: bytes stored as they are (also the encoding of frames that compression did
// not shrink enough, compress/frame.hpp).
#pragma once

#include <cstring>

#include "compress/codec.hpp"

namespace edgestream {

class NoneCodec final : public Codec {
 public:
  CodecId id() const override { return CodecId::kNone; }
  std::size_t max_compressed_length(std::size_t raw_length) const override { return raw_length; }
  Expected<std::size_t> compress(std::span<const std::byte> raw, std::span<std::byte> out) const override {
    if (out.size() < raw.size()) return internal_error("none codec: output buffer too small");
    if (!raw.empty()) std::memcpy(out.data(), raw.data(), raw.size());
    return raw.size();
  }
  Status decompress(std::span<const std::byte> stored, std::span<std::byte> out) const override {
    if (stored.size() != out.size()) {
      return corruption("stored chunk holds " + std::to_string(stored.size()) + " bytes, expected " +
                        std::to_string(out.size()));
    }
    if (!stored.empty()) std::memcpy(out.data(), stored.data(), stored.size());
    return Status::ok();
  }
};

}  // namespace edgestream
