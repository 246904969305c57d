// The on-disk edge grid's compressed windows (--grid_codec ef; core/engine_base.cpp builds the grid,
// Engine::scatter_grid_as reads it). A window of the grid file is one slab of the grid: the compact
// records (core/engine_base.hpp GridLayout kLocal4: 16-bit block-local source and destination ids;
// kLocal8: and the 4-byte weight) of consecutive buckets in grid order. Inside each bucket the
// records are sorted by a key (the source's local id, then the destination's bits that the bucket
// does not fix) and cut into pieces of at most kGridPieceRecords; a piece stores its keys
// Elias-Fano coded (compress/elias_fano.hpp), followed for kLocal8 by the weights in key order, or
// its records as they are when that is not at least 1/8 smaller. Weights that are fixed-point
// numbers in disguise (GridWeights: RMAT's, integers) take 1-3 bytes instead of 4. RMAT grids take 16-18 bits per key
// instead of 32 (docs/performance.md). The pieces' descriptions (first record, offset, first key,
// low bits) stay in memory; the file holds only their bytes, so no piece is ever larger than its
// records were and a slab can be encoded into a buffer of its own size.
//
// The order inside a bucket changes from input order to key order: scatter results that depend on
// the order of floating-point additions (PageRank's sums) differ from the uncompressed grid's in
// the last bits; exact programs (bfs, cc, sssp...) give the same bytes.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/engine_options.hpp"
#include "core/thread_pool.hpp"
#include "io/status.hpp"

namespace edgestream {

/// "none", "ef" or "auto" (GridCodec is in core/engine_options.hpp).
std::string grid_codec_name(GridCodec codec);
/// Parses "auto", "ef" or "none"; anything else is kInvalidArgument naming `option`.
Expected<GridCodec> parse_grid_codec(const std::string& option, const std::string& text);

/// Records per piece at most: a piece is decoded into a per-worker buffer of this many records.
inline constexpr std::uint64_t kGridPieceRecords = 4096;
/// The bytes of that buffer (decode_grid_piece writes up to 32 bytes past the records).
inline constexpr std::uint64_t kGridPieceBufferBytes = kGridPieceRecords * 8 + 64;

/// At most this many windows (one per slab) for slabs of at most `slab_records` records that end
/// at bucket boundaries where they can: two slabs in a row hold more than slab_records records.
inline std::uint64_t grid_windows_bound(std::uint64_t edges, std::uint64_t slab_records) {
  return 2 * ((edges + slab_records - 1) / slab_records) + 1;
}
/// At most this many pieces: one per bucket, per slab (a bucket cut at its start) and per
/// kGridPieceRecords records.
inline std::uint64_t grid_pieces_bound(std::uint64_t edges, std::uint64_t buckets, std::uint64_t slab_records) {
  return buckets + grid_windows_bound(edges, slab_records) + (edges + kGridPieceRecords - 1) / kGridPieceRecords;
}

/// A compact record's sort key inside its bucket and back. Blocks hold 2^shift vertices; the
/// bucket fixes the destination's top sub_bits local bits, leaving dst_bits = shift - sub_bits.
/// The key (shift + dst_bits bits) orders records by their destination's group of 2^fine
/// vertices, then by source, then by the destination inside its group. Two orders:
///   by destination group (fine = 6; programs without active(): PageRank): the scatter's
///     writes move forward through the destinations' states (a window of 64 of them at a time, in
///     the CPU cache), and consecutive records rarely update the same vertex (which would make each
///     addition wait for the previous one);
///   by source (fine = dst_bits: one group; programs that tell their active vertices: bfs, sssp, ...): a
///     source's records are consecutive, so its active bit and state are read once for all of them
///     and the sources move forward (rmat24 sssp at 1G, dense supersteps 1.6-2.1 -> 1.2-1.3 s;
///     PageRank at rmat24 was 4% slower this way, docs/performance.md session 25).
struct GridKeys {
  unsigned shift = 16;
  unsigned dst_bits = 16;
  unsigned fine = 6;

  static GridKeys of(unsigned shift, unsigned sub_bits, bool by_source = false) {
    const unsigned dst_bits = shift - sub_bits;
    return GridKeys{shift, dst_bits, by_source || dst_bits < 6 ? dst_bits : 6};
  }
  std::uint32_t local_mask() const { return shift >= 32 ? UINT32_MAX : (std::uint32_t{1} << shift) - 1; }
  std::uint32_t dst_mask() const { return (std::uint32_t{1} << dst_bits) - 1; }
  std::uint32_t fine_mask() const { return (std::uint32_t{1} << fine) - 1; }
  unsigned key_bits() const { return shift + dst_bits; }
  /// The key of a compact record's first 4 bytes (source local id | destination local id << 16).
  std::uint32_t key(std::uint32_t local) const {
    const std::uint32_t dst = (local >> 16) & dst_mask();
    // (64-bit: shift + fine reaches 32 when the keys are by source and the bucket has every
    // destination bit; the group part is then 0.)
    return static_cast<std::uint32_t>((std::uint64_t{dst >> fine} << (shift + fine)) | ((local & local_mask()) << fine) |
                                      (dst & fine_mask()));
  }
  /// The first 4 bytes of the record with `key` in a bucket whose destinations have `dst_high` set.
  std::uint32_t local(std::uint32_t key, std::uint32_t dst_high) const {
    const auto dst = static_cast<std::uint32_t>(((std::uint64_t{key} >> (shift + fine)) << fine) | (key & fine_mask()));
    return ((key >> fine) & local_mask()) | ((dst_high | dst) << 16);
  }
};

/// A piece of the encoded grid, as kept in memory.
struct GridPiece {
  std::uint64_t first = 0;     // its first record (grid order); it ends where the next piece begins
  std::uint64_t offset = 0;    // where its bytes start in its window
  std::uint32_t base = 0;      // Elias-Fano: the first key
  std::uint16_t dst_high = 0;  // the destination's local bits its bucket fixes
  std::uint8_t low_bits = 0;   // Elias-Fano: low bits per key
  bool encoded = false;        // false: the records as they are
  // Elias-Fano pieces of 8-byte records: the bytes per weight (4: the float's bits; 1-3: fixed
  // point, see GridWeights) and the fixed point's exponent.
  std::uint8_t weight_bytes = 4;
  std::int8_t weight_exponent = 0;
};

/// Lossless fixed-point weights. When every weight of a piece is +0.0 or a positive normal float
/// whose set bits span at most 24 binary places, all of them are integers v times 2^exponent for
/// one exponent (the lowest set bit's among them), with v below 2^(8 * bytes), bytes <= 3: the
/// piece stores v little-endian in `bytes` bytes instead of the float's 4. float(v) is exact (at
/// most 24 significant bits) and so is float(v) * 2^exponent (its exact result, a weight, is a
/// float): the weights come back bit for bit. RMAT's weights (k / 2^24, utils/graph_generator.cpp)
/// take 3 bytes, integer weights below 256 one. Anything else (negative, -0.0, subnormal,
/// infinite, NaN, or a wider span) keeps 4 bytes.
struct GridWeights {
  unsigned bytes = 4;
  int exponent = 0;

  /// The narrowest form for the weights (float bits) `bits_of(i)`, i < count.
  template <typename BitsOf>
  static GridWeights of(std::uint64_t count, BitsOf bits_of) {
    int lowest = INT32_MAX;   // the exponent of the lowest set bit among the weights
    int highest = INT32_MIN;  // and of the highest
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint32_t bits = bits_of(i);
      if (bits == 0) continue;  // +0.0
      const std::uint32_t biased = bits >> 23;  // with the sign bit: 256 and above when negative
      if (biased == 0 || biased >= 255) return GridWeights{};
      const std::uint32_t mantissa = (bits & 0x7FFFFFU) | 0x800000U;
      const int scale = static_cast<int>(biased) - 150;  // the value is mantissa * 2^scale
      lowest = std::min(lowest, scale + std::countr_zero(mantissa));
      highest = std::max(highest, scale + 23);
    }
    if (lowest == INT32_MAX) return GridWeights{1, 0};  // all +0.0
    const int span = highest - lowest + 1;
    // 2^lowest must be a normal float (no flush-to-zero can touch it): lowest >= -126.
    if (span > 24 || lowest < -126) return GridWeights{};
    return GridWeights{static_cast<unsigned>(span + 7) / 8, lowest};
  }
  /// The integer stored for the weight with float bits `bits` (one of those `of` saw).
  std::uint32_t value(std::uint32_t bits) const {
    if (bits == 0) return 0;
    const std::uint32_t mantissa = (bits & 0x7FFFFFU) | 0x800000U;
    const int shift = static_cast<int>(bits >> 23) - 150 - exponent;
    return shift >= 0 ? mantissa << shift : mantissa >> -shift;
  }
  /// 2^exponent, the factor that turns a stored integer back into its weight.
  float scale() const { return std::ldexp(1.0F, exponent); }
  /// The float bits of the weight stored at `at` (`bytes` bytes; 4: the bits themselves).
  static std::uint32_t load(const std::byte* at, unsigned bytes, float scale) {
    std::uint32_t v = 0;
    switch (bytes) {
      case 1: v = std::to_integer<std::uint32_t>(at[0]); break;
      case 2: v = std::to_integer<std::uint32_t>(at[0]) | std::to_integer<std::uint32_t>(at[1]) << 8; break;
      case 3:
        v = std::to_integer<std::uint32_t>(at[0]) | std::to_integer<std::uint32_t>(at[1]) << 8 |
            std::to_integer<std::uint32_t>(at[2]) << 16;
        break;
      default: std::memcpy(&v, at, 4); return v;
    }
    return from_fixed(v, scale);
  }
  /// The float bits of the fixed-point value v (v * scale).
  static std::uint32_t from_fixed(std::uint32_t v, float scale) { return std::bit_cast<std::uint32_t>(static_cast<float>(v) * scale); }
  /// The float bits of the `count` weights stored at `at` (`bytes` bytes each), to out + i * stride
  /// for weight i: load() for each, one loop per width (3 bytes: a 4-byte load but for the last).
  static void load_all(const std::byte* at, unsigned bytes, float scale, std::uint64_t count, std::byte* out, std::size_t stride) {
    auto each = [&](auto load_one) {
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint32_t v = load_one(i);
        std::memcpy(out + i * stride, &v, 4);
      }
    };
    if constexpr (std::endian::native != std::endian::little) {  // the loads below read little-endian values
      each([&](std::uint64_t i) { return load(at + i * bytes, bytes, scale); });
      return;
    }
    switch (bytes) {
      case 1: each([&](std::uint64_t i) { return from_fixed(std::to_integer<std::uint32_t>(at[i]), scale); }); break;
      case 2:
        each([&](std::uint64_t i) {
          std::uint16_t v;
          std::memcpy(&v, at + 2 * i, 2);
          return from_fixed(v, scale);
        });
        break;
      case 3:
        if (count == 0) break;
        each([&](std::uint64_t i) {
          if (i + 1 == count) return load(at + 3 * i, 3, scale);  // its 4-byte load would pass the weights
          std::uint32_t v;
          std::memcpy(&v, at + 3 * i, 4);
          return from_fixed(v & 0xFFFFFFU, scale);
        });
        break;
      default:
        each([&](std::uint64_t i) {
          std::uint32_t v;
          std::memcpy(&v, at + 4 * i, 4);
          return v;
        });
    }
  }
  /// Stores `value` at `at` in `bytes` bytes (little-endian).
  static void store(std::byte* at, unsigned bytes, std::uint32_t value) {
    for (unsigned b = 0; b < bytes; ++b) at[b] = static_cast<std::byte>(value >> (8 * b));
  }
};

/// One bucket's records in a slab: [first, first + count) of the slab, and the destination bits
/// its sub-bucket fixes (GridKeys::local). A bucket larger than a slab has a portion in each.
struct GridPortion {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  std::uint16_t dst_high = 0;
};

/// Encodes one slab: `records` (record_bytes = 4 or 8 each, the slab's portions back to back)
/// sorted by key inside each portion (in place, with `out` as scratch), then cut into pieces and
/// written to `out` back to back (out.size() >= records.size(); no piece is larger than its
/// records). Appends the pieces to `pieces` (first = `first_record` + the piece's place in the
/// slab, offset from the start of `out`) and returns the bytes written. `records` is left
/// overwritten. Runs its tasks on `pool`.
std::uint64_t encode_grid_slab(std::span<std::byte> records, std::size_t record_bytes, std::span<const GridPortion> portions,
                               GridKeys keys, std::uint64_t first_record, ThreadPool& pool, std::span<std::byte> out,
                               std::vector<GridPiece>& pieces);

/// Which Elias-Fano decoder decode_grid_piece runs: the fastest this CPU has (AVX2 when it has it:
/// core/grid_decode_avx2.hpp), or the portable one (tests and benchmarks compare the two).
enum class GridDecoder { kFastest, kPortable };

/// Writes the `count` compact records of piece `p` (kRecordBytes = 4 or 8) to `out` (room for
/// count * kRecordBytes + 32 bytes) from the piece's bytes `stored` (exactly the piece: from its
/// offset to the next piece's). Damaged bytes give records with wrong local ids (the scatter masks
/// them into the task's blocks) and false. Every `decoder` writes the same records and returns the same.
template <std::size_t kRecordBytes>
bool decode_grid_piece(const GridPiece& p, std::uint64_t count, std::span<const std::byte> stored, GridKeys keys, std::byte* out,
                       GridDecoder decoder = GridDecoder::kFastest);
// Compiled once, in grid_codec.cpp (the Elias-Fano decoder has a loop per key width: instantiating it
// in every engine's translation unit cost each algorithm file about a third of its compile time).
extern template bool decode_grid_piece<4>(const GridPiece&, std::uint64_t, std::span<const std::byte>, GridKeys, std::byte*,
                                          GridDecoder);
extern template bool decode_grid_piece<8>(const GridPiece&, std::uint64_t, std::span<const std::byte>, GridKeys, std::byte*,
                                          GridDecoder);

}  // namespace edgestream
