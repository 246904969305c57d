// The conflict-free schedule of the in-memory edge grid (K = 1, edges kept in memory).
//
// Vertices are cut into B blocks (the cache partitions). Every edge belongs to the cell of the
// unordered block pair {block(src), block(dst)}. A task processes one pair's cells and touches only
// the state of those two blocks (scatter reads the endpoints, gather writes the endpoints), so tasks
// whose pairs share no block can run at the same time with no locks and no races. The schedule is a
// round-robin tournament (the circle method): B - 1 rounds (B rounded up to even), each a perfect
// matching of the blocks, so every unordered pair appears exactly once; the diagonal cells {i, i}
// ride with block i's task in round 0. Because the tasks of a round are disjoint and the rounds run
// in a fixed order, the result of a superstep does not depend on the number of threads.
#pragma once

#include <cstdint>
#include <vector>

namespace edgestream {

/// Index of the cell of blocks {a, b} (any order) among the B(B+1)/2 cells.
inline std::uint64_t block_cell(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t lo = a < b ? a : b;
  const std::uint64_t hi = a < b ? b : a;
  return hi * (hi + 1) / 2 + lo;
}

/// Number of cells for `blocks` blocks.
inline std::uint64_t block_cells(std::uint32_t blocks) { return std::uint64_t{blocks} * (blocks + 1) / 2; }

/// log2 of the vertices per grid block: the cache partition size, coarsened until there are at
/// most kMaxGridBlocks blocks (the schedule has about as many rounds as blocks).
inline constexpr std::uint64_t kMaxGridBlocks = 1024;
inline unsigned grid_block_shift(std::uint64_t vertices, unsigned cache_shift) {
  unsigned shift = cache_shift;
  while (shift < 32 && vertices > (kMaxGridBlocks << shift)) ++shift;
  return shift;
}

/// One task of a round: the cells it processes (1 to 3 cell indexes: {a,b}, and {a,a}, {b,b} in round 0).
struct BlockTask {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t cells = 0;       // how many of cell[] are used
  std::uint64_t cell[3] = {0, 0, 0};
};

/// The rounds for `blocks` >= 1 blocks. Contract: every cell index in [0, block_cells(blocks))
/// appears in exactly one task; within a round no block appears in two tasks.
std::vector<std::vector<BlockTask>> block_pair_schedule(std::uint32_t blocks);

}  // namespace edgestream
