// The AVX2 decoder of the delta codec's blocks (compress/delta_decode_avx2.hpp). A group of eight
// values packed at W bits is W bytes, loaded as two 16-byte halves (from byte 0 and byte 4W/8), one
// per 128-bit lane. Lane k's value starts at bit k * W: a byte shuffle within the lane gives it the
// 4 bytes from byte k * W / 8 (and, for W > 25, the fifth byte in a second shuffle), variable shifts
// align them and a mask keeps W bits. The zigzag code's inverse and a prefix sum over the eight
// lanes (two in-lane steps, then the low half's total into the high half) give the words, from the
// previous group's last one: the only dependence between groups is one add of the group's total.
// No lane-crossing permute (`vpermd`: slow on Zen 2; a decoder built on it was no faster than the
// portable one). Records of 2-4 words are interleaved from the columns with in-lane shuffles.
#include "compress/delta_decode_avx2.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EDGESTREAM_DELTA_DECODE_AVX2 1
#endif

namespace edgestream {

#ifdef EDGESTREAM_DELTA_DECODE_AVX2
namespace {

// For each width W (0..32): lane k (k = 0..7) of a group takes the 4 bytes from byte k * W / 8 of
// the group (lanes 4-7: of its second half, loaded from byte 4 * W / 8) shifted right by
// b = k * W % 8, and the byte after them shifted left by 32 - b (a value of more than 32 - b bits
// ends there; 32 gives 0). Both stay within the 16 loaded bytes: the tables' constructor checks it.
struct ByteLanes {
  alignas(32) std::uint8_t low[33][32];
  alignas(32) std::uint8_t high[33][32];
  alignas(32) std::uint32_t right[33][8];
  alignas(32) std::uint32_t left[33][8];
  std::uint32_t mask[33];
};
constexpr ByteLanes kByteLanes = [] {
  ByteLanes t{};
  for (unsigned width = 0; width <= 32; ++width) {
    const unsigned half = 4 * width / 8;
    for (unsigned k = 0; k < 8; ++k) {
      const unsigned byte = k * width / 8 - (k < 4 ? 0 : half);
      const unsigned shift = k * width % 8;
      for (unsigned j = 0; j < 4; ++j) t.low[width][4 * k + j] = static_cast<std::uint8_t>(byte + j);
      const bool spills = shift + width > 32;  // the value's last bits in the fifth byte
      if (byte + 3 >= 16 || (spills && byte + 4 >= 16)) throw "a lane's bytes lie outside its half";  // (not a constant: fails the build)
      t.high[width][4 * k] = spills ? static_cast<std::uint8_t>(byte + 4) : 0x80;  // 0x80: a zero byte
      for (unsigned j = 1; j < 4; ++j) t.high[width][4 * k + j] = 0x80;
      t.right[width][k] = shift;
      t.left[width][k] = 32 - shift;
    }
    t.mask[width] = width == 32 ? 0xFFFFFFFFU : (std::uint32_t{1} << width) - 1;
  }
  return t;
}();

#define EDGESTREAM_AVX2 __attribute__((target("avx2")))

EDGESTREAM_AVX2 __m256i load8(const std::uint32_t* at) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(at)); }

// The zigzag code's inverse and the running sum of eight values (z: the packed codes); stores the
// words at `to` and adds the group's total to `running`.
EDGESTREAM_AVX2 inline void sum_group(__m256i z, __m256i& running, std::byte* to) {
  const __m256i one = _mm256_set1_epi32(1);
  __m256i d = _mm256_xor_si256(_mm256_srli_epi32(z, 1), _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(z, one)));
  d = _mm256_add_epi32(d, _mm256_slli_si256(d, 4));
  d = _mm256_add_epi32(d, _mm256_slli_si256(d, 8));
  const __m256i half_total = _mm256_shuffle_epi32(d, 0xFF);  // each half's sum in all its lanes
  d = _mm256_add_epi32(d, _mm256_permute2x128_si256(half_total, half_total, 0x08));  // [0 | low half's]
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm256_add_epi32(d, running));
  // The group's total (lane 7) into every lane, off the chain from group to group (one add).
  const __m256i total = _mm256_shuffle_epi32(d, 0xFF);
  running = _mm256_add_epi32(running, _mm256_permute2x128_si256(total, total, 0x11));
}

// kFifth: widths over 25, where a value can reach into a fifth byte.
template <bool kFifth>
EDGESTREAM_AVX2 std::uint32_t unpack(const std::byte* in, std::size_t groups, unsigned width, std::uint32_t previous,
                                     std::byte* to) {
  const __m256i low = _mm256_load_si256(reinterpret_cast<const __m256i*>(kByteLanes.low[width]));
  const __m256i high = _mm256_load_si256(reinterpret_cast<const __m256i*>(kByteLanes.high[width]));
  const __m256i right = load8(kByteLanes.right[width]);
  const __m256i left = load8(kByteLanes.left[width]);
  const __m256i mask = _mm256_set1_epi32(static_cast<int>(kByteLanes.mask[width]));
  const std::size_t half = 4 * width / 8;
  __m256i running = _mm256_set1_epi32(static_cast<int>(previous));
  for (std::size_t g = 0; g < groups; ++g, in += width, to += 32) {
    const __m256i group = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in))),
                                                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + half)), 1);
    __m256i z = _mm256_srlv_epi32(_mm256_shuffle_epi8(group, low), right);
    if constexpr (kFifth) z = _mm256_or_si256(z, _mm256_sllv_epi32(_mm256_shuffle_epi8(group, high), left));
    sum_group(_mm256_and_si256(z, mask), running, to);
  }
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm256_castsi256_si128(running)));
}

// Width 0: every value is `previous`.
EDGESTREAM_AVX2 std::uint32_t repeat(std::size_t groups, std::uint32_t previous, std::byte* to) {
  const __m256i value = _mm256_set1_epi32(static_cast<int>(previous));
  for (std::size_t g = 0; g < groups; ++g, to += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), value);
  return previous;
}

// Records of two words: the unpacks pair the columns' words within each 128-bit half.
EDGESTREAM_AVX2 void interleave2(const std::uint32_t* columns, std::size_t column_stride, std::size_t count, std::byte* out) {
  for (std::size_t i = 0; i < count; i += 8, out += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + column_stride + i));
    const __m256i low = _mm256_unpacklo_epi32(a, b);   // records 0, 1 | 4, 5
    const __m256i high = _mm256_unpackhi_epi32(a, b);  // records 2, 3 | 6, 7
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(low, high, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), _mm256_permute2x128_si256(low, high, 0x31));
  }
}

// Records of three words, each 128-bit half on its own (records 0-3 | 4-7): the unpacks pair a
// and b, in-lane shuffles and blends place c, and each half's three vectors are its 48 bytes (sssp's
// records; a form with lane-crossing permutes took twice as long).
EDGESTREAM_AVX2 void interleave3(const std::uint32_t* columns, std::size_t column_stride, std::size_t count, std::byte* out) {
  for (std::size_t i = 0; i < count; i += 8, out += 96) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + column_stride + i));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + 2 * column_stride + i));
    const __m256i ab_low = _mm256_unpacklo_epi32(a, b);   // a0 b0 a1 b1 (per half)
    const __m256i ab_high = _mm256_unpackhi_epi32(a, b);  // a2 b2 a3 b3
    // a0 b0 c0 a1 | b1 c1 a2 b2 | c2 a3 b3 c3
    const __m256i first = _mm256_blend_epi32(_mm256_shuffle_epi32(ab_low, 0x84), _mm256_shuffle_epi32(c, 0x00), 0x44);
    const __m256i second = _mm256_blend_epi32(_mm256_shuffle_epi32(_mm256_alignr_epi8(ab_high, ab_low, 12), 0x90),
                                              _mm256_shuffle_epi32(c, 0x55), 0x22);
    const __m256i third = _mm256_blend_epi32(_mm256_shuffle_epi32(ab_high, 0x38), _mm256_shuffle_epi32(c, 0xC2), 0x99);
    auto* const to = reinterpret_cast<__m128i*>(out);
    _mm_storeu_si128(to, _mm256_castsi256_si128(first));
    _mm_storeu_si128(to + 1, _mm256_castsi256_si128(second));
    _mm_storeu_si128(to + 2, _mm256_castsi256_si128(third));
    _mm_storeu_si128(to + 3, _mm256_extracti128_si256(first, 1));
    _mm_storeu_si128(to + 4, _mm256_extracti128_si256(second, 1));
    _mm_storeu_si128(to + 5, _mm256_extracti128_si256(third, 1));
  }
}

// Records of four words: a 4 x 4 transpose in each 128-bit half (records 0-3 | 4-7).
EDGESTREAM_AVX2 void interleave4(const std::uint32_t* columns, std::size_t column_stride, std::size_t count, std::byte* out) {
  for (std::size_t i = 0; i < count; i += 8, out += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + column_stride + i));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + 2 * column_stride + i));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns + 3 * column_stride + i));
    const __m256i ab_low = _mm256_unpacklo_epi32(a, b);   // a0 b0 a1 b1 (per half)
    const __m256i ab_high = _mm256_unpackhi_epi32(a, b);  // a2 b2 a3 b3
    const __m256i cd_low = _mm256_unpacklo_epi32(c, d);
    const __m256i cd_high = _mm256_unpackhi_epi32(c, d);
    const __m256i records[4] = {_mm256_unpacklo_epi64(ab_low, cd_low), _mm256_unpackhi_epi64(ab_low, cd_low),
                                _mm256_unpacklo_epi64(ab_high, cd_high), _mm256_unpackhi_epi64(ab_high, cd_high)};
    auto* const to = reinterpret_cast<__m128i*>(out);
    for (std::size_t r = 0; r < 4; ++r) {
      _mm_storeu_si128(to + r, _mm256_castsi256_si128(records[r]));
      _mm_storeu_si128(to + 4 + r, _mm256_extracti128_si256(records[r], 1));
    }
  }
}

#undef EDGESTREAM_AVX2

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

}  // namespace

bool delta_decode_avx2_supported() {
  static const bool supported = cpu_has_avx2();
  return supported;
}

std::uint32_t delta_unpack_avx2(const std::byte* in, std::size_t groups, unsigned width, std::uint32_t previous, std::byte* to) {
  if (width == 0) return repeat(groups, previous, to);  // (a block of one source's records: every difference 0)
  return width <= 25 ? unpack<false>(in, groups, width, previous, to) : unpack<true>(in, groups, width, previous, to);
}

void delta_interleave_avx2(const std::uint32_t* columns, std::size_t column_stride, std::size_t words, std::size_t count,
                           std::byte* out) {
  switch (words) {
    case 2: return interleave2(columns, column_stride, count, out);
    case 3: return interleave3(columns, column_stride, count, out);
    default: return interleave4(columns, column_stride, count, out);
  }
}

#else

bool delta_decode_avx2_supported() { return false; }

// Never called: delta_decode_avx2_supported() is false on this target.
std::uint32_t delta_unpack_avx2(const std::byte*, std::size_t, unsigned, std::uint32_t previous, std::byte*) { return previous; }
void delta_interleave_avx2(const std::uint32_t*, std::size_t, std::size_t, std::size_t, std::byte*) {}

#endif

}  // namespace edgestream
