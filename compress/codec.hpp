// The codec interface: a general-purpose compressor for one chunk of a scratch stream. Codecs are
// chosen per stream kind (--edges_codec, --updates_codec) by name ("none", "zlib", "zlib:LEVEL",
// "snappy"); every stored chunk records the codec id that encoded it (compress/frame.hpp), so a
// reader needs no option to decode. Errors are values: a decoder never crashes or over-runs on
// damaged input, it returns kCorruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "io/status.hpp"

namespace edgestream {

/// Codec ids as stored in frame headers: never renumber.
enum class CodecId : std::uint8_t {
  kNone = 0,    // bytes stored as they are
  kZlib = 1,    // zlib (deflate with the zlib wrapper)
  kSnappy = 2,  // Google snappy (raw format)
  kDelta = 3,   // zigzag differences of 32-bit record words, bit-packed (compress/delta_codec.hpp)
};

/// What the user chose for one stream kind.
struct CodecSpec {
  CodecId id = CodecId::kNone;
  int level = 0;  // zlib: 1..9 (0 = the codec's default); delta: record bytes (0 = 8, set by the engine)
  bool enabled() const { return id != CodecId::kNone; }
  friend bool operator==(const CodecSpec&, const CodecSpec&) = default;
};

/// zlib's level when none is given: 1 (Z_BEST_SPEED). Scratch streams are written and read once
/// per superstep, so the codec must keep up with the device; level 1 compresses 3-5x faster than
/// level 6 for a few percent of ratio on id streams (docs/compression.md has the numbers).
inline constexpr int kDefaultZlibLevel = 1;

/// Parses "none", "zlib", "zlib:N" (N in 1..9), "snappy", "delta". Anything else is kInvalidArgument
/// naming `option` and listing the codecs.
Expected<CodecSpec> parse_codec(const std::string& option, const std::string& text);
/// "none", "zlib:1", "snappy", "delta": the canonical name (what parse_codec accepts back).
std::string codec_name(const CodecSpec& spec);
/// `spec` for a stream of `record_bytes`-byte records: the delta codec is told their size (its
/// level), every other spec is returned as it is.
CodecSpec for_records(CodecSpec spec, std::size_t record_bytes);
/// The codec names for usage messages.
std::string codec_list();

class Codec {
 public:
  virtual ~Codec() = default;
  virtual CodecId id() const = 0;
  /// Largest output compress() may produce for `raw_length` input bytes.
  virtual std::size_t max_compressed_length(std::size_t raw_length) const = 0;
  /// Compresses `raw` into `out` (at least max_compressed_length(raw.size()) bytes); returns the
  /// bytes written. Thread-safe: one Codec may be used by several threads at once.
  virtual Expected<std::size_t> compress(std::span<const std::byte> raw, std::span<std::byte> out) const = 0;
  /// Decompresses `stored` into exactly `out.size()` bytes. Damaged input, or input that decodes to
  /// another length, is kCorruption (the caller adds the file and offset).
  virtual Status decompress(std::span<const std::byte> stored, std::span<std::byte> out) const = 0;
};

/// The codec for `spec` (never null).
std::unique_ptr<Codec> make_codec(const CodecSpec& spec);
/// A decoder for a stored codec id (the level does not matter to decode); null for an unknown id.
const Codec* decoder_for(std::uint8_t id);

}  // namespace edgestream
