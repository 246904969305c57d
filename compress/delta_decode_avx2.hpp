// The delta codec's full blocks (compress/delta_codec.hpp) decoded eight values at a time with AVX2:
// DeltaCodec::decompress's path on CPUs that have it (checked at run time; the build targets plain
// x86-64). Each word's 128 differences are unpacked into a column (a group of eight is two 16-byte
// loads, one or two byte shuffles, variable shifts, the zigzag code's inverse and a prefix sum), then
// the block's columns are interleaved into its records. The same bytes as the portable decoder,
// which writes each value to its record as it goes (the delta_codec_bench tool compares the two).
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgestream {

/// True when this CPU runs the functions below (AVX2); checked once.
bool delta_decode_avx2_supported();

/// Decodes `groups` groups of eight zigzag-coded differences packed at `width` bits (0..32; a group
/// is `width` bytes, least significant bit first) from `in`, each value the running sum from
/// `previous`, as 32-bit little-endian words at to[0 .. 32 * groups). Returns the last value.
/// Reads in[0 .. groups * width + 32): the caller guarantees those bytes. Requires
/// delta_decode_avx2_supported().
std::uint32_t delta_unpack_avx2(const std::byte* in, std::size_t groups, unsigned width, std::uint32_t previous, std::byte* to);

/// Interleaves `words` (2..4) columns of `count` 32-bit words (count a multiple of 8; column j at
/// columns + j * column_stride) into records of `words` words at `out`: word j of record i =
/// columns[j * column_stride + i]. Requires delta_decode_avx2_supported().
void delta_interleave_avx2(const std::uint32_t* columns, std::size_t column_stride, std::size_t words, std::size_t count,
                           std::byte* out);

}  // namespace edgestream
