// The AVX2 decoder of a grid piece's Elias-Fano keys (core/grid_decode_avx2.hpp). Two passes, as
// elias_fano_decode's: the high parts a byte of the unary bit vector at a time (a byte's eight
// entries of the position table are one 32-byte load and add; the bytes of a 64-bit word find
// their first key by popcount, not by waiting for the byte before), then eight keys per step: the
// group's L bytes loaded as two 16-byte halves, each key's 4 bytes shuffled into its lane, shifted
// by its bit offset, masked, joined to its high part and mapped to its record's local ids.
#include "core/grid_decode_avx2.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "compress/elias_fano.hpp"
#include "compress/little_endian.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EDGESTREAM_GRID_DECODE_AVX2 1
#endif

namespace edgestream {

#ifdef EDGESTREAM_GRID_DECODE_AVX2
namespace {

// For each low_bits L: lane k (k = 0..7) of a group of eight keys takes the 4 bytes from byte
// (k * L) / 8 of the group (lanes 4-7: of the group's second half, loaded from byte (4 * L) / 8)
// and shifts them right by (k * L) % 8.
struct LowLanes {
  alignas(32) std::uint8_t shuffle[kGridDecodeAvx2MaxLowBits + 1][32];
  alignas(32) std::uint32_t shift[kGridDecodeAvx2MaxLowBits + 1][8];
};
constexpr LowLanes kLowLanes = [] {
  LowLanes t{};
  for (unsigned bits = 1; bits <= kGridDecodeAvx2MaxLowBits; ++bits) {
    const unsigned half = (4 * bits) / 8;
    for (unsigned k = 0; k < 8; ++k) {
      const unsigned byte = (k * bits) / 8 - (k < 4 ? 0 : half);  // within its 16-byte half
      for (unsigned j = 0; j < 4; ++j) t.shuffle[bits][k * 4 + j] = static_cast<std::uint8_t>(byte + j);
      t.shift[bits][k] = (k * bits) % 8;
    }
  }
  return t;
}();

#define EDGESTREAM_AVX2 __attribute__((target("avx2,popcnt")))

// Eight compact records' first 4 bytes from eight keys (GridKeys::local, lane by lane).
struct LocalMap {
  __m128i group_shift;  // shift + fine: 32 or more gives 0, as the 64-bit shift of GridKeys::local
  __m128i fine;
  __m256i fine_mask;
  __m256i local_mask;
  __m256i dst_high;
};

EDGESTREAM_AVX2 inline __m256i local_ids(const LocalMap& m, __m256i key) {
  const __m256i dst = _mm256_or_si256(_mm256_sll_epi32(_mm256_srl_epi32(key, m.group_shift), m.fine), _mm256_and_si256(key, m.fine_mask));
  return _mm256_or_si256(_mm256_and_si256(_mm256_srl_epi32(key, m.fine), m.local_mask),
                         _mm256_slli_epi32(_mm256_or_si256(m.dst_high, dst), 16));
}

// The float bits of eight weights (GridPieceWeights, `bytes` each) from `at`: the integers of 1-3
// bytes widened and scaled as GridWeights::from_fixed does (exact below 2^24), 4 bytes as they are.
EDGESTREAM_AVX2 inline __m256i load_weights(const std::byte* at, unsigned bytes, __m256 scale) {
  __m256i v;
  switch (bytes) {
    case 1: v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(at))); break;
    case 2: v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at))); break;
    case 3: {
      // Bytes 0-15 and 8-23 (no byte past the 24); lane k takes bytes 3k .. 3k + 2, zero-extended.
      const __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at))),
                                                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 8)), 1);
      const __m256i lanes = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,  //
                                             4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1);
      v = _mm256_shuffle_epi8(both, lanes);
      break;
    }
    default: return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
  }
  return _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(v), scale));
}

// Stores eight records: their first 4 bytes, and for 8-byte records their weights' bits.
template <std::size_t kRecordBytes>
EDGESTREAM_AVX2 inline void store_records(std::byte* at, __m256i local, __m256i weight) {
  if constexpr (kRecordBytes == 4) {
    (void)weight;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(at), local);
  } else {
    const __m256i low = _mm256_unpacklo_epi32(local, weight);   // records 0, 1 | 4, 5
    const __m256i high = _mm256_unpackhi_epi32(local, weight);  // records 2, 3 | 6, 7
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(at), _mm256_permute2x128_si256(low, high, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(at + 32), _mm256_permute2x128_si256(low, high, 0x31));
  }
}

template <std::size_t kRecordBytes>
EDGESTREAM_AVX2 bool decode(std::span<const std::byte> key_bytes, std::uint64_t n, unsigned low_bits, std::uint32_t base,
                            std::uint32_t dst_high, GridKeys keys, GridPieceWeights weights, std::byte* out) {
  const std::byte* const data = key_bytes.data();
  const std::size_t size = key_bytes.size();
  const std::uint64_t low_bytes = (n * low_bits + 7) / 8;
  const std::byte* const bits = data + low_bytes;
  const std::size_t high_bytes = size - low_bytes;
  auto* const high = reinterpret_cast<std::uint32_t*>(out + n * (kRecordBytes - 4));  // room for n + 8
  const auto& table = elias_fano_detail::kHighByte;
  // High parts (elias_fano_decode's pass): whole 64-bit words while at least 64 keys are left (a
  // word's set bits cannot pass n), then byte by byte as elias_fano_decode does.
  std::uint64_t i = 0;
  std::size_t at = 0;
  for (; at + 8 <= high_bytes && i + 64 <= n; at += 8) {
    const std::uint64_t word = load_le64(bits + at);
    for (unsigned k = 0; k < 8; ++k) {
      const std::uint64_t first = i + static_cast<std::uint64_t>(std::popcount(word & ((std::uint64_t{1} << (8 * k)) - 1)));
      const unsigned byte = static_cast<unsigned>(word >> (8 * k)) & 0xFFU;
      const __m256i positions = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table.minus_rank[byte]));
      const __m256i offset = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>((at + k) * 8 - first)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(high + first), _mm256_add_epi32(positions, offset));
    }
    i += static_cast<std::uint64_t>(std::popcount(word));
  }
  const bool complete = elias_fano_detail::finish_high_pass(bits, high_bytes, at, i, n, high);
  // Low parts, eight keys (low_bits bytes) per group, while both 16-byte loads of a group stay
  // inside key_bytes; the last keys one at a time. A group reads its high parts before it stores
  // its records, which end before the next group's high parts begin.
  const unsigned half = (4 * low_bits) / 8;
  const std::uint64_t safe = size >= half + 16 ? (size - half - 16) / low_bits + 1 : 0;
  const std::uint64_t groups = std::min<std::uint64_t>(n / 8, safe);
  const __m256i shuffle = _mm256_load_si256(reinterpret_cast<const __m256i*>(kLowLanes.shuffle[low_bits]));
  const __m256i shift = _mm256_load_si256(reinterpret_cast<const __m256i*>(kLowLanes.shift[low_bits]));
  const __m256i low_mask = _mm256_set1_epi32(static_cast<int>((std::uint32_t{1} << low_bits) - 1));
  const __m256i first_key = _mm256_set1_epi32(static_cast<int>(base));
  const __m128i high_shift = _mm_cvtsi32_si128(static_cast<int>(low_bits));
  const LocalMap map{_mm_cvtsi32_si128(static_cast<int>(keys.shift + keys.fine)), _mm_cvtsi32_si128(static_cast<int>(keys.fine)),
                     _mm256_set1_epi32(static_cast<int>(keys.fine_mask())), _mm256_set1_epi32(static_cast<int>(keys.local_mask())),
                     _mm256_set1_epi32(static_cast<int>(dst_high))};
  const __m256 scale = _mm256_set1_ps(weights.scale);
  for (std::uint64_t g = 0; g < groups; ++g) {
    const std::byte* const group = data + g * low_bits;
    const __m128i first_half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(group));
    const __m128i second_half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(group + half));
    const __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(first_half), second_half, 1);
    const __m256i low = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(both, shuffle), shift), low_mask);
    const __m256i high_parts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(high + g * 8));
    const __m256i key = _mm256_add_epi32(first_key, _mm256_or_si256(_mm256_sll_epi32(high_parts, high_shift), low));
    __m256i weight = _mm256_setzero_si256();
    if constexpr (kRecordBytes == 8) weight = load_weights(weights.at + g * 8 * weights.bytes, weights.bytes, scale);
    store_records<kRecordBytes>(out + g * 8 * kRecordBytes, local_ids(map, key), weight);
  }
  const std::uint64_t mask = (std::uint64_t{1} << low_bits) - 1;
  for (std::uint64_t j = groups * 8, bit = groups * 8 * low_bits; j < n; ++j, bit += low_bits) {
    const std::size_t byte = bit >> 3;  // < low_bytes <= size
    const auto key = base + static_cast<std::uint32_t>((std::uint64_t{high[j]} << low_bits) |
                                                       ((load_le64(data + byte, size - byte) >> (bit & 7)) & mask));
    const std::uint32_t local = keys.local(key, dst_high);
    std::memcpy(out + j * kRecordBytes, &local, 4);
    if constexpr (kRecordBytes == 8) {
      const std::uint32_t weight = GridWeights::load(weights.at + j * weights.bytes, weights.bytes, weights.scale);
      std::memcpy(out + j * kRecordBytes + 4, &weight, 4);
    }
  }
  return complete;
}

#undef EDGESTREAM_AVX2

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}

}  // namespace

bool grid_decode_avx2_supported() {
  static const bool supported = cpu_has_avx2();
  return supported;
}

bool decode_grid_keys_avx2(std::span<const std::byte> key_bytes, std::uint64_t count, unsigned low_bits, std::uint32_t base,
                           std::uint32_t dst_high, GridKeys keys, std::size_t record_bytes, GridPieceWeights weights,
                           std::byte* out) {
  return record_bytes == 4 ? decode<4>(key_bytes, count, low_bits, base, dst_high, keys, weights, out)
                           : decode<8>(key_bytes, count, low_bits, base, dst_high, keys, weights, out);
}

#else

bool grid_decode_avx2_supported() { return false; }

// Never called: grid_decode_avx2_supported() is false on this target.
bool decode_grid_keys_avx2(std::span<const std::byte>, std::uint64_t, unsigned, std::uint32_t, std::uint32_t, GridKeys,
                           std::size_t, GridPieceWeights, std::byte*) {
  return false;
}

#endif

}  // namespace edgestream
