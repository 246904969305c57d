// Elias-Fano coding of a non-decreasing sequence of 32-bit values: the compressed pieces of the
// on-disk edge grid (core/grid_codec.hpp). Value i is taken relative to the first one and split into
// `low_bits` low bits, stored packed (n * low_bits bits, little-endian bit order), and a high part
// stored in unary: bit (high_i + i) of a bit vector of n + (range >> low_bits) bits follows the low
// bits. With low_bits = floor(log2(range / n)) that is about 2 + log2(range / n) bits per value
// (Elias 1974, Fano 1971; Vigna, "Quasi-succinct indices", WSDM 2013): 16-18 bits for a bucket of
// RMAT grid keys against 32 raw.
//
// Decoding walks the set bits of the high part (count trailing zeros) and reads each value's low
// bits with one unaligned load. It never reads outside the bytes it is given; damaged bytes give
// values that are wrong but still 32-bit, and `false` when the high part runs out of set bits.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>

#include "compress/little_endian.hpp"

namespace edgestream {

/// How n values spanning `range` (last - first) are laid out.
struct EliasFanoLayout {
  unsigned low_bits = 0;
  std::size_t low_bytes = 0;  // ceil(n * low_bits / 8)
  std::size_t bytes = 0;      // low_bytes + ceil((n + (range >> low_bits)) / 8)
};

/// The layout of n >= 1 values spanning `range` with `low_bits` (< 32) low bits.
EliasFanoLayout elias_fano_layout(std::uint64_t n, std::uint32_t range, unsigned low_bits);
/// The smallest layout for n >= 1 values spanning `range`.
EliasFanoLayout elias_fano_layout(std::uint64_t n, std::uint32_t range);

/// Encodes `values` (n >= 1, non-decreasing) relative to values[0] into out[0, layout.bytes), which
/// it overwrites; `layout` is elias_fano_layout(n, values[n - 1] - values[0], ...).
void elias_fano_encode(std::span<const std::uint32_t> values, const EliasFanoLayout& layout, std::span<std::byte> out);

namespace elias_fano_detail {
// For each byte of the high part: the positions of its set bits, the k-th minus k (so that value
// i + k's high part is 8 * byte index - i + kBitsOf[byte][k]), and how many there are. 8 KiB.
struct HighByteTable {
  std::uint32_t minus_rank[256][8];
  std::uint8_t ones[256];
};
inline constexpr HighByteTable kHighByte = [] {
  HighByteTable t{};
  for (unsigned byte = 0; byte < 256; ++byte) {
    unsigned k = 0;
    for (unsigned bit = 0; bit < 8; ++bit) {
      if ((byte >> bit) & 1U) {
        t.minus_rank[byte][k] = bit - k;
        ++k;
      }
    }
    t.ones[byte] = static_cast<std::uint8_t>(k);
  }
  return t;
}();

// The high parts from byte `at` of the bit vector bits[0, high_bytes) on, value i first, a byte at a
// time without branches: a byte's set bits give the next values (8 are written, `ones` of them
// kept: high has room for n + 8); then 0 for every value the bits ran out before. True when the
// bits held exactly n values (more: a byte held more set bits than values were left, the first n
// kept; fewer: the bits ran out). elias_fano_decode's whole pass, and the end of a faster one's.
inline bool finish_high_pass(const std::byte* bits, std::size_t high_bytes, std::size_t at, std::uint64_t i, std::uint64_t n,
                             std::uint32_t* high) {
  for (; at < high_bytes && i < n; ++at) {
    const auto byte = std::to_integer<std::uint8_t>(bits[at]);
    const auto offset = static_cast<std::uint32_t>(at * 8 - i);
    for (unsigned k = 0; k < 8; ++k) high[i + k] = offset + kHighByte.minus_rank[byte][k];
    i += kHighByte.ones[byte];
  }
  for (std::uint64_t j = std::min(i, n); j < n; ++j) high[j] = 0;
  return i == n;
}
}  // namespace elias_fano_detail

namespace elias_fano_detail {
// The low pass for low_bits = L known at compile time: groups of 8 values take L bytes, and each
// value's bits are one load at a constant offset and shift from the group's start. Values whose
// load would reach past `size` (the last few) take the bounded load.
template <unsigned L, typename Store>
void low_pass(const std::byte* data, std::size_t size, std::uint64_t n, std::uint32_t first, const std::uint32_t* high,
              Store store) {  // a copy: what it holds stays in registers whatever its stores may alias
  constexpr std::uint64_t kMask = (std::uint64_t{1} << L) - 1;
  constexpr std::size_t kLastLoad = (7 * L) / 8;  // the group's last load starts here
  const std::uint64_t safe = size >= kLastLoad + 8 ? (size - kLastLoad - 8) / L + 1 : 0;
  const std::uint64_t groups = std::min<std::uint64_t>(n / 8, safe);
  auto value = [&]<unsigned K>(const std::byte* group, std::uint64_t i) {
    const std::uint64_t word = load_le64(group + (K * L) / 8);
    store(i, first + static_cast<std::uint32_t>((std::uint64_t{high[i]} << L) | ((word >> ((K * L) % 8)) & kMask)));
  };
  for (std::uint64_t g = 0; g < groups; ++g) {
    const std::byte* group = data + g * L;
    const std::uint64_t i = g * 8;
    [&]<unsigned... K>(std::integer_sequence<unsigned, K...>) {
      (value.template operator()<K>(group, i + K), ...);
    }(std::make_integer_sequence<unsigned, 8>{});
  }
  for (std::uint64_t i = groups * 8, bit = groups * 8 * L; i < n; ++i, bit += L) {
    const std::size_t byte = bit >> 3;  // < ceil(n * L / 8) <= size
    store(i, first + static_cast<std::uint32_t>((std::uint64_t{high[i]} << L) | ((load_le64(data + byte, size - byte) >> (bit & 7)) & kMask)));
  }
}

template <typename Store, unsigned... L>
void low_pass_for(unsigned bits, const std::byte* data, std::size_t size, std::uint64_t n, std::uint32_t first,
                  const std::uint32_t* high, Store& store, std::integer_sequence<unsigned, L...>) {
  (void)((bits == L + 1 ? (low_pass<L + 1>(data, size, n, first, high, store), true) : false) || ...);
}
}  // namespace elias_fano_detail

/// Decodes n values encoded with `low_bits` from `bytes` (the encoded values and nothing else) and
/// calls store(i, value) for i = 0, 1, ..., n - 1 in order, value = first + the i-th encoded offset
/// (mod 2^32). `high` is scratch for n + 8 values; store(i, ...) may overwrite high[j] for j <= i
/// only once high[i] has been read (the caller may decode in place). Returns false when the high
/// part holds fewer set bits than n, a byte of it more than the values left, or `bytes` is shorter
/// than the low part (damaged input); every value is still stored. Two passes, each a tight loop:
/// the high parts (a byte of the bit vector at a time, from a table), then each value's low bits
/// (one load at a constant offset, for each low_bits its own loop).
template <typename Store>
bool elias_fano_decode(std::span<const std::byte> bytes, std::uint64_t n, unsigned low_bits, std::uint32_t first,
                       std::uint32_t* high, Store&& store) {
  const std::uint64_t low_bytes = (n * low_bits + 7) / 8;
  if (low_bits >= 32 || low_bytes > bytes.size()) {
    for (std::uint64_t i = 0; i < n; ++i) store(i, first);
    return false;
  }
  const std::byte* const data = bytes.data();
  const std::size_t size = bytes.size();
  // High parts: the i-th set bit is at position >= i, and position - i is value i's high part.
  // Damaged bits: the values past those they hold are `first`.
  const bool complete = elias_fano_detail::finish_high_pass(data + low_bytes, size - low_bytes, 0, 0, n, high);
  if (low_bits == 0) {
    for (std::uint64_t j = 0; j < n; ++j) store(j, first + high[j]);
  } else {
    elias_fano_detail::low_pass_for(low_bits, data, size, n, first, high, store, std::make_integer_sequence<unsigned, 31>{});
  }
  return complete;
}

/// The same into values[0, n + 8) (values[n, n + 8) are scratch).
inline bool elias_fano_decode(std::span<const std::byte> bytes, std::uint64_t n, unsigned low_bits, std::uint32_t first,
                              std::uint32_t* values) {
  return elias_fano_decode(bytes, n, low_bits, first, values, [values](std::uint64_t i, std::uint32_t v) { values[i] = v; });
}

}  // namespace edgestream
