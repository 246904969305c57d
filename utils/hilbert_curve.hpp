// The Hilbert curve on a 2^k x 2^k grid (k <= 32): a bijection between cells (x, y) and positions
// 0 .. 4^k - 1 along the curve, with consecutive positions in adjacent cells. Ordering a graph's
// edges (x = src, y = dst) by position keeps both endpoints' vertex state in cache for long runs
// ("Scalability! But at what COST?", McSherry et al.): the basis of the Hilbert-order COST baselines
// and of the hilbert_order tool.
#pragma once

#include <cstdint>
#include <utility>

namespace edgestream {

/// The smallest k >= 1 with 2^k >= vertices (vertices <= 2^32): the curve order for a graph.
inline unsigned hilbert_order_for(std::uint64_t vertices) {
  unsigned k = 1;
  while (k < 32 && (std::uint64_t{1} << k) < vertices) ++k;
  return k;
}

/// Position of cell (x, y) on the order-k curve; x and y must be < 2^k.
inline std::uint64_t hilbert_index(unsigned k, std::uint32_t x, std::uint32_t y) {
  std::uint64_t d = 0;
  for (std::uint64_t s = std::uint64_t{1} << (k - 1); s > 0; s >>= 1) {
    const std::uint32_t rx = (x & s) != 0 ? 1 : 0;
    const std::uint32_t ry = (y & s) != 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    // Rotate the quadrant so the sub-curve starts at its origin; only the bits below s matter now.
    if (ry == 0) {
      if (rx == 1) {
        x = ~x;
        y = ~y;
      }
      std::swap(x, y);
    }
  }
  return d;
}

/// The cell at position d (< 4^k) of the order-k curve: the inverse of hilbert_index.
inline std::pair<std::uint32_t, std::uint32_t> hilbert_cell(unsigned k, std::uint64_t d) {
  std::uint64_t x = 0;
  std::uint64_t y = 0;
  for (unsigned level = 0; level < k; ++level) {
    const std::uint64_t s = std::uint64_t{1} << level;
    const std::uint64_t rx = 1 & (d >> 1);
    const std::uint64_t ry = 1 & (d ^ rx);
    if (ry == 0) {
      if (rx == 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      std::swap(x, y);
    }
    x += s * rx;
    y += s * ry;
    d >>= 2;
  }
  return {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)};
}

}  // namespace edgestream
