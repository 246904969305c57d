// The Hilbert curve on a 2^k x 2^k grid (k <= 32): a bijection between cells (x, y) and positions
// 0 .. 4^k - 1 along the curve, with consecutive positions in adjacent cells. Ordering a graph's
// edges (x = src, y = dst) by position keeps both endpoints' vertex state in cache for long runs
// ("Scalability! But at what COST?", McSherry et al.): the basis of the Hilbert-order COST baselines
// and of the hilbert_order tool.
#pragma once

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

/// Position of cell (x, y) on the order-k curve (1 <= k <= 32); x and y must be < 2^k.
inline std::uint64_t hilbert_index(unsigned k, std::uint32_t x, std::uint32_t y) {
  std::uint64_t d = 0;
  std::uint32_t swapped = 0;
  std::uint32_t flipped = 0;
  for (unsigned i = k; i-- > 0;) {
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
  return d;
}

/// The cell at position d (< 4^k) of the order-k curve: the inverse of hilbert_index.
inline std::pair<std::uint32_t, std::uint32_t> hilbert_cell(unsigned k, std::uint64_t d) {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t swapped = 0;
  std::uint32_t flipped = 0;
  for (unsigned i = k; i-- > 0;) {
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
  return {x, y};
}

}  // namespace edgestream
