// The Elias-Fano keys of an on-disk grid piece (core/grid_codec.hpp) decoded eight at a time with
// AVX2 into compact records: decode_grid_piece's path on CPUs that have it (checked at run time; the
// build targets plain x86-64). The same records as the portable decoder (elias_fano_decode, then
// GridKeys::local per key), about three times faster (the grid_decode_bench tool): at 256 MiB the
// engine decodes every resident piece in every superstep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/grid_codec.hpp"

namespace edgestream {

/// True when this CPU runs decode_grid_keys_avx2 (AVX2 and POPCNT); checked once.
bool grid_decode_avx2_supported();

/// The widest low part decode_grid_keys_avx2 takes (a key's low bits then lie in one 4-byte load).
inline constexpr unsigned kGridDecodeAvx2MaxLowBits = 25;

/// The weights of an Elias-Fano piece of 8-byte records (GridWeights): `bytes` (1-4) per record, in
/// key order, at `at`; record i's are GridWeights::load(at + i * bytes, bytes, scale).
struct GridPieceWeights {
  const std::byte* at = nullptr;
  unsigned bytes = 4;
  float scale = 1.0F;
};

/// decode_grid_piece's Elias-Fano case: decodes the `count` keys (relative to `base`, `low_bits`
/// each) coded in `key_bytes` and writes record i, keys.local(key_i, dst_high) and (record_bytes 8)
/// then its weight's float bits, at out + i * record_bytes (record_bytes 4 or 8; 8: the weights are
/// `weights`, count * weights.bytes bytes, which it reads and nothing past them). `out` has room for
/// count * record_bytes + 32 bytes; the keys' high parts are decoded into its last 4 * (count + 8)
/// bytes first, as decode_grid_piece does. Requires grid_decode_avx2_supported(),
/// 1 <= low_bits <= kGridDecodeAvx2MaxLowBits, 1 <= weights.bytes <= 4 for 8-byte records and
/// key_bytes.size() >= ceil(count * low_bits / 8). Reads only key_bytes and the weights. Returns
/// false when the high part holds fewer set bits than count or a byte of it more than the keys left
/// (damaged bytes): the records are then those elias_fano_decode's values give, as on the portable path.
bool decode_grid_keys_avx2(std::span<const std::byte> key_bytes, std::uint64_t count, unsigned low_bits, std::uint32_t base,
                           std::uint32_t dst_high, GridKeys keys, std::size_t record_bytes, GridPieceWeights weights,
                           std::byte* out);

}  // namespace edgestream
