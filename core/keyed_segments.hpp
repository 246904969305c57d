// Keyed edge streams (K > 1): each partition's edge stream is cut into segments of S records, and
// the records of a segment are grouped by the key of the vertex their updates go to (the record's
// destination in a forward stream, its source in a reverse-edge stream): the vertex's cache
// partition when it lies in the stream's own partition, cache_keys + its partition otherwise.
// The split pass groups each segment once (group_segment) and keeps where each key's records end
// (KeyedStreamIndex); every superstep's scatter then emits its updates already grouped by key, so
// they are applied or spilled without the counting sort that routes updates in input order
// (Engine::scatter_keyed_piece). The records themselves are unchanged, only their order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "core/memory_plan.hpp"
#include "io/graph_format.hpp"

namespace edgestream {

/// An update's (or a keyed record's) key relative to the streaming partition [base, base + count):
/// its cache partition when inside, cache_keys + its streaming partition otherwise. A value type
/// whose fields stay in registers in the loops that call it.
struct DestinationKey {
  std::uint64_t base;
  std::uint64_t count;
  unsigned cache_shift;
  std::uint64_t cache_keys;
  std::uint64_t partition_size;
  std::uint64_t partition_magic;

  std::uint32_t operator()(VertexId target) const {
    const std::uint64_t local = static_cast<std::uint64_t>(target) - base;
    if (local < count) return static_cast<std::uint32_t>(local >> cache_shift);
    return static_cast<std::uint32_t>(cache_keys + MemoryPlan::divide(target, partition_size, partition_magic));
  }
};

/// Where each key's records end in every segment of one keyed stream: segment s's ends are
/// ends(s)[k] = its records of keys 0..k (so its key k records are [ends(s)[k-1], ends(s)[k]), and
/// ends(s)[keys - 1] = the segment's size). Segments hold segment_records records, the last fewer.
/// Also each segment's smallest and largest reading vertex (readers(s)): a scatter reads only the
/// segments where some vertex of that range is active.
/// Kept in blocks of kSegmentsPerBlock segments, each allocated whole when the first of its segments
/// is added: memory grows by whole blocks, never by reallocating and copying what is there (the
/// memory plan counts kWordsPerKey * keys + 2 words per segment and one block per stream).
class KeyedStreamIndex {
 public:
  static constexpr std::uint64_t kSegmentsPerBlock = 64;

  KeyedStreamIndex() = default;
  KeyedStreamIndex(std::uint64_t segment_records, std::uint64_t keys) : segment_records_(segment_records), keys_(keys) {}

  /// Appends the next segment's ends (keys() entries, non-decreasing) and the smallest and largest
  /// reading vertex of its records (first > last: none).
  void add_segment(std::span<const std::uint32_t> ends, VertexId first_reader, VertexId last_reader) {
    if (segments_ % kSegmentsPerBlock == 0) {
      blocks_.emplace_back();
      blocks_.back().reserve(kSegmentsPerBlock * (keys_ + 2));
    }
    blocks_.back().insert(blocks_.back().end(), ends.begin(), ends.end());
    blocks_.back().push_back(first_reader);
    blocks_.back().push_back(last_reader);
    ++segments_;
  }
  /// Segment s's ends; s < segments().
  std::span<const std::uint32_t> ends(std::uint64_t s) const {
    return std::span<const std::uint32_t>(blocks_[s / kSegmentsPerBlock].data() + s % kSegmentsPerBlock * (keys_ + 2), keys_);
  }
  /// Segment s's smallest and largest reading vertex (first > last: it has no records).
  std::pair<VertexId, VertexId> readers(std::uint64_t s) const {
    const std::uint32_t* at = blocks_[s / kSegmentsPerBlock].data() + s % kSegmentsPerBlock * (keys_ + 2) + keys_;
    return {at[0], at[1]};
  }
  std::uint64_t segments() const { return segments_; }
  std::uint64_t segment_records() const { return segment_records_; }
  std::uint64_t keys() const { return keys_; }

 private:
  std::uint64_t segment_records_ = 0;
  std::uint64_t keys_ = 0;
  std::uint64_t segments_ = 0;
  std::vector<std::vector<std::uint32_t>> blocks_;
};

/// Copies the n records of `in` (record_bytes each: 8 or 12, an edge stream's records) to `out`
/// grouped by key(the vertex id at byte `vertex_offset` of the record: 4 = destination, 0 = source),
/// keeping their order within a key, and sets ends as KeyedStreamIndex describes (ends.size() keys;
/// every key must be below it). `in` and `out` must not overlap; n < 2^32. Returns `out`.
/// With `by_other`, each key's records are first ordered by their other vertex (the one at byte
/// 4 - vertex_offset, which lies in the partition [key.base, key.base + key.count)) to within
/// 2^kOtherBucketBits equal ranges of the partition, input order within a range: nearly sorted, so
/// consecutive records' ids differ little (what the delta codec stores in few bits). `in` is
/// scratch then, and the grouped records are returned there.
inline constexpr unsigned kOtherBucketBits = 14;
inline constexpr unsigned kRunBucketBits = 10;
const std::byte* group_segment(std::byte* in, std::size_t n, std::size_t record_bytes, std::size_t vertex_offset,
                               const DestinationKey& key, std::byte* out, std::span<std::uint32_t> ends, bool by_other);

/// The smallest and largest reading vertex (the vertex at byte 4 - vertex_offset, the other one
/// than the key's) of n records; first > last when n == 0.
std::pair<VertexId, VertexId> reader_range(const std::byte* records, std::size_t n, std::size_t record_bytes,
                                           std::size_t vertex_offset);

/// A run of a keyed stream's records cut into segments ordered by reading vertex (the vertex at
/// byte 4 - vertex_offset, in the partition [key.base, key.base + key.count)): first to within
/// 2^kRunBucketBits equal ranges of the partition (input order within a range), into `ordered`;
/// then segment by segment (`segment` records each, the last fewer), each segment's records grouped
/// by key (as group_segment, in that order within a key) back into `in`. (Fewer ranges than
/// kOtherBucketBits': rmat24 runs of 1.3 Mi records took 13 ns per record with 2^14 ranges, their
/// places scattered over too many pages, 8.7 ns with 2^10; the bytes a sparse superstep reads
/// hardly change.)
/// Segment g's key ends go to ends[g * keys .. (g + 1) * keys) (keys = ends.size() / segments, each
/// as KeyedStreamIndex describes) and its smallest and largest reading vertex to readers[g]
/// (readers.size() = the segments). The split pass orders its runs so: each segment then covers a
/// narrow range of reading vertices, and a sparse superstep reads only the segments of its active
/// ones. `in` and `ordered` hold n records and must not overlap; n < 2^32.
void order_run(std::byte* in, std::size_t n, std::size_t record_bytes, std::size_t vertex_offset, const DestinationKey& key,
               std::size_t segment, std::byte* ordered, std::span<std::uint32_t> ends,
               std::span<std::pair<VertexId, VertexId>> readers);

}  // namespace edgestream
