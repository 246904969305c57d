// delta codec: for streams of fixed-size records of 32-bit words (edge streams: source,
// destination[, weight]). Each word of a record is stored as the zigzag-coded difference from the
// same word of the record before it, bit-packed at one width per word and block of 128 records.
// Ids sorted within runs (a keyed edge stream orders each key's records by their other vertex,
// core/keyed_segments.hpp) leave small differences: ~4.4 bytes instead of 8 per rmat edge, where
// snappy and zlib find nothing to take (random 32-bit ids). Any bytes round-trip; only the ratio
// depends on the layout.
//
// Stored layout: one byte W (words per record, 1..4); then per block of up to 128 records, for each
// word: a width byte (0..32) and the block's differences of that word packed at that width (least
// significant bit first, ceil(records * width / 8) bytes); then the raw size's tail (raw % 4W
// bytes) as it is. The decoder checks every width and length against the stored and raw sizes.
// Decoding: each word's values one by one into their records (portable), or on CPUs with AVX2 a full
// block's words eight at a time into columns, then interleaved (compress/delta_decode_avx2.hpp).
#pragma once

#include "compress/codec.hpp"

namespace edgestream {

/// Which decoder DeltaCodec::decompress runs: the fastest this CPU has (full blocks with AVX2,
/// compress/delta_decode_avx2.hpp), or the portable one everywhere (delta_codec_bench compares them).
enum class DeltaDecoder { kFastest, kPortable };

class DeltaCodec final : public Codec {
 public:
  static constexpr std::size_t kBlockRecords = 128;

  /// `record_bytes`: the records' size, a multiple of 4 in 4..16 (0 = 8: (source, destination)).
  explicit DeltaCodec(std::size_t record_bytes, DeltaDecoder decoder = DeltaDecoder::kFastest)
      : words_(record_bytes == 0 ? 2 : record_bytes / 4), decoder_(decoder) {}
  CodecId id() const override { return CodecId::kDelta; }
  std::size_t max_compressed_length(std::size_t raw_length) const override;
  Expected<std::size_t> compress(std::span<const std::byte> raw, std::span<std::byte> out) const override;
  Status decompress(std::span<const std::byte> stored, std::span<std::byte> out) const override;

 private:
  std::size_t words_;
  DeltaDecoder decoder_;
};

}  // namespace edgestream
