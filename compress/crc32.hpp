// CRC-32 of the zlib/gzip polynomial (0x04C11DB7, bit-reflected): the checksum of every scratch
// frame, on-disk grid window, spilled partition state and compressed input frame. The value is
// zlib's crc32() for every input (stored checksums do not change); on x86-64 CPUs with the
// carry-less multiply instruction (PCLMULQDQ) the bulk of a buffer is folded 64 bytes at a time
// (Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction",
// Intel 2009), several times faster than zlib 1.2.13's table method; elsewhere zlib computes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace edgestream {

/// Continues a CRC-32 over `bytes`: crc32_update(crc32_update(0, a), b) == crc32_update(0, a + b),
/// and crc32_update(c, x) == zlib's crc32(c, x) for every c and x (any length, any alignment).
std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> bytes);

/// zlib's crc32() over any length (zlib takes at most 2^32 - 1 bytes per call): the reference the
/// fast path is tested and benchmarked against.
std::uint32_t crc32_zlib(std::uint32_t crc, std::span<const std::byte> bytes);

/// True when crc32_update uses the carry-less multiply path on this CPU.
bool crc32_accelerated();

}  // namespace edgestream
