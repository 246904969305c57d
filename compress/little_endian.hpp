// Little-endian loads and stores of packed bytes, for the codecs that read and write bit-packed
// values (compress/elias_fano.hpp, compress/delta_codec.cpp): one unaligned load or store on a
// little-endian machine, a byte swap on a big-endian one.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace edgestream {

/// The 8 bytes at p as a little-endian value; p[0, 8) must be readable.
inline std::uint64_t load_le64(const std::byte* p) {
  std::uint64_t word = 0;
  std::memcpy(&word, p, 8);
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  return word;
}

/// The same, of which only `available` bytes may be read (the rest is taken as zero). The usual
/// case is one unaligned load; a variable-length memcpy would be a library call.
inline std::uint64_t load_le64(const std::byte* p, std::size_t available) {
  if (available >= 8) return load_le64(p);
  std::uint64_t word = 0;
  for (std::size_t k = 0; k < available; ++k) word |= std::uint64_t{std::to_integer<std::uint8_t>(p[k])} << (8 * k);
  return word;
}

/// The 4 bytes at p as a little-endian value, and back.
inline std::uint32_t load_le32(const std::byte* p) {
  std::uint32_t word = 0;
  std::memcpy(&word, p, 4);
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap32(word);
  return word;
}
inline void store_le32(std::byte* p, std::uint32_t word) {
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap32(word);
  std::memcpy(p, &word, 4);
}
/// `word` as the 8 little-endian bytes at p.
inline void store_le64(std::byte* p, std::uint64_t word) {
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  std::memcpy(p, &word, 8);
}

}  // namespace edgestream
