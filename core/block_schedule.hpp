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

#include <cstddef>
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

/// log2 of the vertices per grid block: the cache partition size — at most 2^16 vertices when
/// `local_ids` (grid records then hold 16-bit block-local ids; programs with small states would
/// otherwise get larger blocks) — coarsened until there are at most kMaxGridBlocks blocks (the
/// schedule has about as many rounds as blocks).
inline constexpr std::uint64_t kMaxGridBlocks = 1024;
inline constexpr unsigned kMaxLocalIdBits = 16;
inline unsigned grid_block_shift(std::uint64_t vertices, unsigned cache_shift, bool local_ids) {
  unsigned shift = local_ids && cache_shift > kMaxLocalIdBits ? kMaxLocalIdBits : cache_shift;
  while (shift < 32 && vertices > (kMaxGridBlocks << shift)) ++shift;
  return shift;
}

/// Inside a cell the records are grouped further by destination: 2 * S sub-buckets (S per block of
/// the pair, each 2^grid_shift / S vertices wide), so the updates of a run of records land in a
/// window of the state that stays in the L1 cache. S is a power of two chosen so that all buckets
/// (cells * 2S) stay at most kMaxGridBuckets (their counters are part of the memory plan).
inline constexpr std::uint64_t kMaxGridBuckets = std::uint64_t{1} << 16;
inline constexpr unsigned kMinSubBucketShift = 6;  // at least 64 vertices per sub-bucket
inline unsigned grid_sub_bucket_bits(std::uint32_t blocks, unsigned grid_shift) {
  unsigned bits = 0;
  while (bits + kMinSubBucketShift < grid_shift && block_cells(blocks) * (std::uint64_t{2} << (bits + 1)) <= kMaxGridBuckets) {
    ++bits;
  }
  return bits;
}
/// Number of buckets (cells * 2^(bits+1)).
inline std::uint64_t grid_buckets(std::uint32_t blocks, unsigned sub_bits) { return block_cells(blocks) << (sub_bits + 1); }

/// The in-memory grid's records are moved to their buckets in this many groups of buckets
/// consecutive in the grid's order (EngineBase::load_grid_records): each group's task writes to
/// about buckets / 64 places at once, whose lines stay in the CPU cache.
inline constexpr std::uint64_t kGridPlacementGroups = 64;

/// Bytes that hold an id below `ids` (a bucket's, or a GridPairIds id): 2 up to 2^16, 4 beyond.
inline std::size_t grid_bucket_id_bytes(std::uint64_t ids) { return ids <= (std::uint64_t{1} << 16) ? 2 : 4; }

/// Which bucket an edge belongs to: its cell {block(src), block(dst)} << bucket_bits, then the side
/// (1: the destination's block is the pair's higher or equal one) and the destination's sub-bucket.
/// A small value type so that hot loops keep the fields in registers.
struct GridBucketing {
  unsigned shift = 0;        // vertices per block = 1 << shift
  unsigned sub_bits = 0;     // sub-buckets per side = 1 << sub_bits
  unsigned bucket_bits = 1;  // buckets per cell = 1 << bucket_bits (= sub_bits + 1)

  static GridBucketing of(std::uint32_t blocks, unsigned shift) {
    const unsigned sub_bits = grid_sub_bucket_bits(blocks, shift);
    return GridBucketing{shift, sub_bits, sub_bits + 1};
  }
  // (Always inlined: gcc called it for every record of the on-disk grid's check, 2.7% of rmat22-sym
  // cc's CPU at 256M.)
  [[gnu::always_inline]] std::uint64_t operator()(std::uint32_t src, std::uint32_t dst) const {
    const std::uint32_t bs = src >> shift;
    const std::uint32_t bd = dst >> shift;
    const std::uint64_t side = bd >= bs ? 1U : 0U;
    const std::uint64_t sub = (dst >> (shift - sub_bits)) & ((std::uint32_t{1} << sub_bits) - 1);
    return (block_cell(bs, bd) << bucket_bits) | (side << sub_bits) | sub;
  }
};

/// The ids the in-memory grid's set-up gives its records while it moves them to their buckets
/// (EngineBase::load_grid_records): the ordered block pair, then the destination's sub-bucket,
/// ((block(src) * blocks + block(dst)) << sub_bits) | sub. One id per bucket a record can be in:
/// a diagonal cell's records are all on side 1, so there are blocks^2 << sub_bits of them against
/// the buckets' blocks * (blocks + 1) << sub_bits, and up to 256 blocks they fit in 2 bytes (2^24
/// vertices in 256 blocks: 65,536 ids, 65,792 buckets).
struct GridPairIds {
  GridBucketing bucketing;
  std::uint32_t blocks = 1;

  static GridPairIds of(std::uint32_t blocks, const GridBucketing& bucketing) { return GridPairIds{bucketing, blocks}; }
  /// The ids: [0, space()).
  std::uint64_t space() const { return pairs(); }
  /// Bytes per id while the grid is built: the one size the memory plan and the engine both use.
  std::size_t id_bytes() const { return grid_bucket_id_bytes(space()); }
  /// Contract: src and dst are below blocks << shift.
  /// (block(dst) << sub_bits) | sub is dst >> (shift - sub_bits): the sub-bucket is the sub_bits
  /// bits of dst below its block's. So the id is block(src) * (blocks << sub_bits) plus that.
  std::uint64_t operator()(std::uint32_t src, std::uint32_t dst) const {
    const unsigned shift = bucketing.shift;
    const unsigned sub_bits = bucketing.sub_bits;
    return std::uint64_t{src >> shift} * (std::uint64_t{blocks} << sub_bits) + (dst >> (shift - sub_bits));
  }
  /// The bucket of id (below pairs()): GridBucketing's for the same edge.
  std::uint64_t bucket(std::uint64_t id) const {
    const std::uint64_t sub = id & ((std::uint64_t{1} << bucketing.sub_bits) - 1);
    const std::uint64_t pair = id >> bucketing.sub_bits;
    const auto bs = static_cast<std::uint32_t>(pair / blocks);
    const auto bd = static_cast<std::uint32_t>(pair % blocks);
    const std::uint64_t side = bd >= bs ? 1U : 0U;
    return (block_cell(bs, bd) << bucketing.bucket_bits) | (side << bucketing.sub_bits) | sub;
  }
  std::uint64_t pairs() const { return (std::uint64_t{blocks} * blocks) << bucketing.sub_bits; }
};

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
