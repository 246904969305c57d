// The Hilbert curve on a 2^k x 2^k grid (k <= 32): a bijection between cells (x, y) and positions
// 0 .. 4^k - 1 along the curve, with consecutive positions in adjacent cells. Ordering a graph's
// edges (x = src, y = dst) by position keeps both endpoints' vertex state in cache for long runs
// ("Scalability! But at what COST?", McSherry et al.): the basis of the Hilbert-order COST baselines
// and of the hilbert_order tool.
#pragma once

#include <array>
#include <cstdint>
#include <utility>  // std::pair

namespace edgestream {

/// The smallest k >= 1 with 2^k >= vertices (vertices <= 2^32): the curve order for a graph.
inline unsigned hilbert_order_for(std::uint64_t vertices) {
  unsigned k = 1;
  while (k < 32 && (std::uint64_t{1} << k) < vertices) ++k;
  return k;
}

// Both directions walk the levels from the top with the orientation of the current sub-square as
// state: `swapped` (x and y exchanged) and `flipped` (both coordinates mirrored); these two commute,
// so four states cover every orientation. Quadrant (rx, ry) in the sub-square's own frame is digit
// (3 rx) xor ry (0: lower left, 1: upper left, 2: upper right, 3: lower right); entering a quadrant
// with ry = 0 toggles `swapped`, and also `flipped` when rx = 1. Branch-free: no mispredictions on
// random edges.

/// The curve's position bits for the low `levels` bits of x and y, one level per step, starting in
/// orientation `state` (bit 0 swapped, bit 1 flipped) and leaving the orientation it ends in there.
constexpr std::uint64_t hilbert_encode_levels(unsigned levels, std::uint32_t x, std::uint32_t y, std::uint32_t& state) {
  std::uint64_t d = 0;
  std::uint32_t swapped = state & 1U;
  std::uint32_t flipped = state >> 1;
  for (unsigned i = levels; i-- > 0;) {
    const std::uint32_t bx = ((x >> i) & 1U) ^ flipped;
    const std::uint32_t by = ((y >> i) & 1U) ^ flipped;
    const std::uint32_t exchange = swapped & (bx ^ by);
    const std::uint32_t rx = bx ^ exchange;
    const std::uint32_t ry = by ^ exchange;
    d = (d << 2) | ((3U * rx) ^ ry);
    const std::uint32_t enter_low = ry ^ 1U;
    flipped ^= enter_low & rx;
    swapped ^= enter_low;
  }
  state = swapped | (flipped << 1);
  return d;
}

/// The inverse: the x and y bits of the low 2 * `levels` position bits of d, from orientation `state`.
constexpr std::pair<std::uint32_t, std::uint32_t> hilbert_decode_levels(unsigned levels, std::uint64_t d, std::uint32_t& state) {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t swapped = state & 1U;
  std::uint32_t flipped = state >> 1;
  for (unsigned i = levels; i-- > 0;) {
    const auto q = static_cast<std::uint32_t>((d >> (2 * i)) & 3U);
    const std::uint32_t rx = q >> 1;
    const std::uint32_t ry = (q ^ rx) & 1U;
    const std::uint32_t exchange = swapped & (rx ^ ry);
    x |= (rx ^ exchange ^ flipped) << i;
    y |= (ry ^ exchange ^ flipped) << i;
    const std::uint32_t enter_low = ry ^ 1U;
    flipped ^= enter_low & rx;
    swapped ^= enter_low;
  }
  state = swapped | (flipped << 1);
  return {x, y};
}

/// Position of cell (x, y) on the order-k curve (1 <= k <= 32); x and y must be < 2^k. One level
/// per step: the reference for the table-driven hilbert_index below.
inline std::uint64_t hilbert_index_bitwise(unsigned k, std::uint32_t x, std::uint32_t y) {
  std::uint32_t state = 0;
  return hilbert_encode_levels(k, x, y, state);
}

/// The cell at position d (< 4^k) of the order-k curve, one level per step (reference).
inline std::pair<std::uint32_t, std::uint32_t> hilbert_cell_bitwise(unsigned k, std::uint64_t d) {
  std::uint32_t state = 0;
  return hilbert_decode_levels(k, d, state);
}

// Table-driven versions, 4 levels per step (8 steps for k = 32 instead of 32): a table indexed by the
// orientation state (swapped, flipped) and 4 bits of x and y (resp. 8 bits of position) gives the 8
// position bits (resp. 4 + 4 coordinate bits) and the next state. k is padded up to a multiple of 4
// with leading zero levels: a zero level emits digit 0 and only toggles `swapped`, so starting with
// swapped = (padding & 1) gives exactly the order-k curve.
namespace hilbert_detail {

constexpr unsigned kLevels = 4;

// Entry: low 16 bits = output (position bits, or x bits << 4 | y bits), bits 16..17 = next state
// (bit 0 swapped, bit 1 flipped).
struct Tables {
  std::array<std::uint32_t, 4 * 256> encode{};
  std::array<std::uint32_t, 4 * 256> decode{};
};

constexpr Tables make_tables() {
  Tables t;
  for (std::uint32_t state = 0; state < 4; ++state) {
    for (std::uint32_t in = 0; in < 256; ++in) {
      std::uint32_t next = state;  // encode: in = x bits (high nibble) and y bits (low nibble)
      const auto d = static_cast<std::uint32_t>(hilbert_encode_levels(kLevels, in >> 4, in & 15U, next));
      t.encode[state * 256 + in] = d | (next << 16);
      next = state;  // decode: in = 8 position bits
      const auto [x, y] = hilbert_decode_levels(kLevels, in, next);
      t.decode[state * 256 + in] = ((x << 4) | y) | (next << 16);
    }
  }
  return t;
}

inline constexpr Tables kTables = make_tables();

}  // namespace hilbert_detail

/// Position of cell (x, y) on the order-k curve (1 <= k <= 32); x and y must be < 2^k.
inline std::uint64_t hilbert_index(unsigned k, std::uint32_t x, std::uint32_t y) {
  const unsigned levels = (k + 3) & ~3U;
  std::uint32_t state = (levels - k) & 1U;
  std::uint64_t d = 0;
  for (unsigned i = levels; i != 0;) {
    i -= 4;
    const std::uint32_t in = (((x >> i) & 15U) << 4) | ((y >> i) & 15U);
    const std::uint32_t e = hilbert_detail::kTables.encode[state * 256 + in];
    d = (d << 8) | (e & 0xFFU);
    state = e >> 16;
  }
  return d;
}

/// The cell at position d (< 4^k) of the order-k curve: the inverse of hilbert_index.
inline std::pair<std::uint32_t, std::uint32_t> hilbert_cell(unsigned k, std::uint64_t d) {
  const unsigned levels = (k + 3) & ~3U;
  std::uint32_t state = (levels - k) & 1U;
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  for (unsigned i = levels; i != 0;) {
    i -= 4;
    const auto in = static_cast<std::uint32_t>((d >> (2 * i)) & 0xFFU);
    const std::uint32_t e = hilbert_detail::kTables.decode[state * 256 + in];
    x |= ((e >> 4) & 15U) << i;
    y |= (e & 15U) << i;
    state = e >> 16;
  }
  return {x, y};
}

}  // namespace edgestream
