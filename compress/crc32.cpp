// CRC-32: the x86-64 carry-less multiply folding path, and zlib for short inputs, tails and other CPUs.
#include "compress/crc32.hpp"

#include <zlib.h>

#include <algorithm>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EDGESTREAM_CRC32_FOLDING 1
#endif

namespace edgestream {

std::uint32_t crc32_zlib(std::uint32_t crc, std::span<const std::byte> bytes) {
  const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
  std::size_t left = bytes.size();
  uLong c = crc;
  while (left > 0) {  // zlib takes uInt lengths
    const uInt n = static_cast<uInt>(std::min<std::size_t>(left, std::size_t{1} << 30));
    c = ::crc32(c, p, n);
    p += n;
    left -= n;
  }
  return static_cast<std::uint32_t>(c);
}

#ifdef EDGESTREAM_CRC32_FOLDING
namespace {

// The bit-reflected constants of the gzip polynomial for the paper's steps (its Table and the
// values every PCLMULQDQ CRC-32 uses): a 128-bit lane is carried forward by multiplying its two
// 64-bit halves by x^(d+32) mod P and x^(d-32) mod P for a distance of d bits.
constexpr long long kAhead512Low = 0x154442bd4;   // d = 512: four lanes in flight
constexpr long long kAhead512High = 0x1c6e41596;
constexpr long long kAhead128Low = 0x1751997d0;   // d = 128: one lane onto the next
constexpr long long kAhead128High = 0x0ccaa009e;
constexpr long long kAhead64 = 0x163cd6124;       // the last 96 bits down to 64
constexpr long long kPolynomial = 0x1db710641;    // P (reflected, with x^32)
constexpr long long kBarrettMu = 0x1f7011641;     // floor(x^64 / P) (reflected)

#define EDGESTREAM_CLMUL __attribute__((target("pclmul,sse4.1")))

EDGESTREAM_CLMUL inline __m128i load16(const std::byte* at) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

// `lane` carried forward over `ahead` (low half times ahead's low constant, high half times its
// high one) and added (xor) to `next`, the 16 bytes at the distance `ahead` stands for.
EDGESTREAM_CLMUL inline __m128i fold(__m128i lane, __m128i ahead, __m128i next) {
  const __m128i low = _mm_clmulepi64_si128(lane, ahead, 0x00);
  const __m128i high = _mm_clmulepi64_si128(lane, ahead, 0x11);
  return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

// The CRC register (pre- and post-inversion left to the caller) after `n` bytes at `p`, starting
// from `state`. Requires n >= 64 and n % 16 == 0.
EDGESTREAM_CLMUL std::uint32_t fold_crc(std::uint32_t state, const std::byte* p, std::size_t n) {
  // Four lanes hold the first 64 bytes, the register added into the first lane's low bits.
  __m128i lane0 = _mm_xor_si128(load16(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i lane1 = load16(p + 16);
  __m128i lane2 = load16(p + 32);
  __m128i lane3 = load16(p + 48);
  p += 64;
  n -= 64;
  const __m128i ahead512 = _mm_set_epi64x(kAhead512High, kAhead512Low);
  while (n >= 64) {
    lane0 = fold(lane0, ahead512, load16(p));
    lane1 = fold(lane1, ahead512, load16(p + 16));
    lane2 = fold(lane2, ahead512, load16(p + 32));
    lane3 = fold(lane3, ahead512, load16(p + 48));
    p += 64;
    n -= 64;
  }
  // The four lanes into one, then the remaining 16-byte blocks.
  const __m128i ahead128 = _mm_set_epi64x(kAhead128High, kAhead128Low);
  __m128i x = fold(lane0, ahead128, lane1);
  x = fold(x, ahead128, lane2);
  x = fold(x, ahead128, lane3);
  while (n >= 16) {
    x = fold(x, ahead128, load16(p));
    p += 16;
    n -= 16;
  }
  // 128 bits to 96: the low half carried over the high half (x^(64+32) mod P is ahead128's high).
  const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
  x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, ahead128, 0x10));
  // 96 bits to 64.
  const __m128i ahead64 = _mm_set_epi64x(0, kAhead64);
  x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), ahead64, 0x00));
  // Barrett reduction of the 64 bits to the 32-bit remainder.
  const __m128i barrett = _mm_set_epi64x(kBarrettMu, kPolynomial);
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), barrett, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_xor_si128(x, t), 1));
}

#undef EDGESTREAM_CLMUL

bool cpu_has_clmul() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

}  // namespace

bool crc32_accelerated() {
  static const bool accelerated = cpu_has_clmul();
  return accelerated;
}

std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> bytes) {
  if (bytes.size() >= 64 && crc32_accelerated()) {
    const std::size_t bulk = bytes.size() & ~std::size_t{15};
    crc = ~fold_crc(~crc, bytes.data(), bulk);
    bytes = bytes.subspan(bulk);
  }
  return crc32_zlib(crc, bytes);
}

#else

bool crc32_accelerated() { return false; }

std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> bytes) { return crc32_zlib(crc, bytes); }

#endif

}  // namespace edgestream
