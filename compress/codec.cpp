// Codec names, parsing and the factory.
#include "compress/codec.hpp"

#include "compress/delta_codec.hpp"
#include "compress/none_codec.hpp"
#include "compress/snappy_codec.hpp"
#include "compress/zlib_codec.hpp"

namespace edgestream {

Expected<CodecSpec> parse_codec(const std::string& option, const std::string& text) {
  if (text == "none") return CodecSpec{CodecId::kNone, 0};
  if (text == "snappy") return CodecSpec{CodecId::kSnappy, 0};
  if (text == "delta") return CodecSpec{CodecId::kDelta, 0};
  if (text == "zlib") return CodecSpec{CodecId::kZlib, kDefaultZlibLevel};
  if (text.size() == 6 && text.rfind("zlib:", 0) == 0 && text[5] >= '1' && text[5] <= '9') {
    return CodecSpec{CodecId::kZlib, text[5] - '0'};
  }
  return invalid_argument("--" + option + " '" + text + "' is not a codec; available: " + codec_list());
}

std::string codec_name(const CodecSpec& spec) {
  switch (spec.id) {
    case CodecId::kNone: return "none";
    case CodecId::kZlib: return "zlib:" + std::to_string(spec.level == 0 ? kDefaultZlibLevel : spec.level);
    case CodecId::kSnappy: return "snappy";
    case CodecId::kDelta: return "delta";
  }
  return "unknown";
}

std::string codec_list() { return "none, zlib (zlib:1 .. zlib:9; zlib = zlib:1), snappy, delta"; }

CodecSpec for_records(CodecSpec spec, std::size_t record_bytes) {
  if (spec.id == CodecId::kDelta) spec.level = static_cast<int>(record_bytes);
  return spec;
}

std::unique_ptr<Codec> make_codec(const CodecSpec& spec) {
  switch (spec.id) {
    case CodecId::kZlib: return std::make_unique<ZlibCodec>(spec.level);
    case CodecId::kSnappy: return std::make_unique<SnappyCodec>();
    case CodecId::kDelta: return std::make_unique<DeltaCodec>(static_cast<std::size_t>(spec.level));
    case CodecId::kNone: break;
  }
  return std::make_unique<NoneCodec>();
}

const Codec* decoder_for(std::uint8_t id) {
  static const NoneCodec none;
  static const ZlibCodec zlib(kDefaultZlibLevel);
  static const SnappyCodec snappy;
  static const DeltaCodec delta(0);  // a stored delta chunk names its record size
  switch (static_cast<CodecId>(id)) {
    case CodecId::kNone: return &none;
    case CodecId::kZlib: return &zlib;
    case CodecId::kSnappy: return &snappy;
    case CodecId::kDelta: return &delta;
  }
  return nullptr;
}

}  // namespace edgestream
