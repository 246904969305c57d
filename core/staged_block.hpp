// One block of an on-disk grid's staging file (EngineBase::build_staged, core/engine_base.cpp).
//
// While the input is read once, every grid record goes to the staging file of its group (a run of
// buckets in the grid's order) through an in-memory buffer of staged entries: a 32-bit bucket, then
// the grid record. A full buffer is written as one block, in whichever of two forms is smaller:
//   runs     the entries counting-sorted by bucket (stable: a bucket's records keep their input
//            order): a table of (bucket, count) for the buckets present, in the group's bucket order,
//            then the bare grid records. A 4-byte record then costs ~4 bytes on disk instead of 8,
//            which halves the staging file's writes and reads (most blocks: thousands of records
//            per bucket present).
//   entries  the staged entries as they are (when most buckets in the block hold one record).
// Layout (little-endian u32s): kind, records, runs, 0; then, for runs, `runs` pairs (bucket,
// count) and `records` grid records; for entries, `records` staged entries. A block is read back
// whole and placed into the grid's slabs run by run (memcpy) or entry by entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

inline constexpr std::size_t kStagedHeaderBytes = 16;
enum class StagedBlockKind : std::uint32_t { kRuns = 1, kEntries = 2 };

/// The bytes a block of `records` staged entries can take: enough for either form.
inline std::size_t staged_block_capacity(std::size_t records, std::size_t record_bytes) {
  return kStagedHeaderBytes + records * (4 + record_bytes);
}

/// A group's buckets: `rank[b]` is bucket b's position among its group's buckets (defined for the
/// buckets of this group), `buckets[r]` the bucket at position r (every bucket of the group).
struct StagedGroupBuckets {
  std::span<const std::uint32_t> rank;
  std::span<const std::uint32_t> buckets;
};

/// Writes the block for `entries` (whole staged entries: u32 bucket, then `record_bytes` of grid
/// record; every bucket one of `group`'s) into `out` (at least staged_block_capacity bytes) and
/// returns the bytes written. `counts` is scratch (grown to the group's bucket count). With
/// `bucket_records` (indexed by bucket, non-null), adds each bucket's entries in the block to it.
std::size_t encode_staged_block(std::span<const std::byte> entries, std::size_t record_bytes, StagedGroupBuckets group,
                                std::vector<std::uint32_t>& counts, std::span<std::byte> out,
                                std::uint64_t* bucket_records = nullptr);

/// A block read back: its form and where its table and records are (inside the block's bytes).
struct StagedBlock {
  StagedBlockKind kind = StagedBlockKind::kEntries;
  std::uint64_t records = 0;
  std::uint64_t runs = 0;
  const std::byte* table = nullptr;    // runs: `runs` pairs (bucket, count)
  const std::byte* payload = nullptr;  // runs: grid records; entries: staged entries
  std::uint32_t run_bucket(std::uint64_t i) const;
  std::uint32_t run_count(std::uint64_t i) const;
};

/// Parses a block of `bytes` (the stored block, padding included). Errors (corruption): an unknown
/// kind, a table or records past the block's end, run counts that do not add up to `records`; the
/// message says what was wrong, the caller adds the file and offset. Bucket values are the
/// caller's to check (they must be its group's).
Expected<StagedBlock> parse_staged_block(std::span<const std::byte> bytes, std::size_t record_bytes);

}  // namespace edgestream
