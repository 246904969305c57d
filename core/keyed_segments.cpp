// Grouping one segment of a keyed edge stream by key (core/keyed_segments.hpp): a counting sort
// (two with by_other: by the other vertex's range, then by key); a run of segments: ordered by
// reading vertex's range, then each segment grouped by key (order_run).
#include "core/keyed_segments.hpp"

#include <algorithm>
#include <bit>
#include <utility>
#include <vector>

namespace edgestream {
namespace {

template <std::size_t kRecordBytes>
void group_records(const std::byte* in, std::size_t n, std::size_t vertex_offset, const DestinationKey& key,
                   std::byte* out, std::span<std::uint32_t> ends) {
  auto key_at = [&](std::size_t i) {
    VertexId v = 0;
    std::memcpy(&v, in + i * kRecordBytes + vertex_offset, sizeof v);
    return key(v);
  };
  std::fill(ends.begin(), ends.end(), 0U);
  for (std::size_t i = 0; i < n; ++i) ++ends[key_at(i)];
  std::uint32_t running = 0;  // counts -> each key's first index
  for (std::uint32_t& e : ends) {
    const std::uint32_t c = e;
    e = running;
    running += c;
  }
  for (std::size_t i = 0; i < n; ++i) std::memcpy(out + std::size_t{ends[key_at(i)]++} * kRecordBytes, in + i * kRecordBytes, kRecordBytes);
  // Each key's cursor now stands at the end of its records.
}

// Copies the n records of `in` to `out` ordered by their other vertex's range of the partition
// (a counting sort over 2^kOtherBucketBits ranges, stable).
template <std::size_t kRecordBytes>
void order_by_other(const std::byte* in, std::size_t n, std::size_t other_offset, const DestinationKey& key, std::byte* out) {
  const auto span_bits = static_cast<unsigned>(std::bit_width(std::max<std::uint64_t>(key.count, 1) - 1));
  const unsigned shift = span_bits > kOtherBucketBits ? span_bits - kOtherBucketBits : 0;
  constexpr std::size_t kBuckets = std::size_t{1} << kOtherBucketBits;
  auto bucket_at = [&](std::size_t i) {
    VertexId v = 0;
    std::memcpy(&v, in + i * kRecordBytes + other_offset, sizeof v);
    return static_cast<std::size_t>((static_cast<std::uint64_t>(v) - key.base) >> shift) & (kBuckets - 1);  // masked: never out of range
  };
  std::vector<std::uint32_t> next(kBuckets, 0);
  for (std::size_t i = 0; i < n; ++i) ++next[bucket_at(i)];
  std::uint32_t running = 0;
  for (std::uint32_t& c : next) running += std::exchange(c, running);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(out + std::size_t{next[bucket_at(i)]++} * kRecordBytes, in + i * kRecordBytes, kRecordBytes);
}

}  // namespace

void order_run(std::byte* in, std::size_t n, std::size_t record_bytes, std::size_t vertex_offset, const DestinationKey& key,
               std::size_t segment, std::byte* ordered, std::span<std::uint32_t> ends,
               std::span<std::pair<VertexId, VertexId>> readers) {
  const std::size_t reader_offset = sizeof(VertexId) - vertex_offset;
  const std::size_t segments = readers.size();
  const std::size_t keys = segments == 0 ? 0 : ends.size() / segments;
  // A copy: the counters' 32-bit stores might alias a reference's fields, which the loops would
  // then reload for every record.
  const DestinationKey key_copy = key;
  // DestinationKey's value without its branch (rmat's destinations are local or not at random).
  auto key_of = [key_copy](VertexId v) {
    const std::uint64_t local = static_cast<std::uint64_t>(v) - key_copy.base;
    const auto inside = static_cast<std::uint32_t>(local >> key_copy.cache_shift);
    const auto outside =
        static_cast<std::uint32_t>(key_copy.cache_keys + MemoryPlan::divide(v, key_copy.partition_size, key_copy.partition_magic));
    return local < key_copy.count ? inside : outside;
  };
  // The reading vertex's range of the partition (2^kRunBucketBits of them).
  const auto span_bits = static_cast<unsigned>(std::bit_width(std::max<std::uint64_t>(key.count, 1) - 1));
  const unsigned shift = span_bits > kRunBucketBits ? span_bits - kRunBucketBits : 0;
  constexpr std::size_t kBuckets = std::size_t{1} << kRunBucketBits;
  const bool whole_shift = std::has_single_bit(segment);
  const auto segment_shift = static_cast<unsigned>(std::countr_zero(segment));
  auto run = [&]<std::size_t kRecordBytes>() {
    auto vertex = [](const std::byte* record, std::size_t offset) {
      VertexId v = 0;
      std::memcpy(&v, record + offset, sizeof v);
      return v;
    };
    auto bucket = [&](VertexId reader) {
      return static_cast<std::size_t>((static_cast<std::uint64_t>(reader) - key_copy.base) >> shift) & (kBuckets - 1);  // masked
    };
    // 1: records per range; each range's first place in `ordered`.
    std::vector<std::uint32_t> next(kBuckets, 0);
    for (std::size_t i = 0; i < n; ++i) ++next[bucket(vertex(in + i * kRecordBytes, reader_offset))];
    std::uint32_t running = 0;
    for (std::uint32_t& c : next) running += std::exchange(c, running);
    // 2: each record to its place in `ordered`, counted per (segment of that place, key); each
    // segment's reading vertices.
    std::fill(ends.begin(), ends.end(), 0U);
    for (auto& r : readers) r = {UINT32_MAX, 0};
    for (std::size_t i = 0; i < n; ++i) {
      const std::byte* record = in + i * kRecordBytes;
      const VertexId reader = vertex(record, reader_offset);
      const std::uint32_t at = next[bucket(reader)]++;
      const std::size_t g = whole_shift ? at >> segment_shift : at / segment;
      ++ends[g * keys + key_of(vertex(record, vertex_offset))];
      readers[g] = {std::min(readers[g].first, reader), std::max(readers[g].second, reader)};
      std::memcpy(ordered + std::size_t{at} * kRecordBytes, record, kRecordBytes);
    }
    // Counts -> each (segment, key)'s first record in its segment.
    for (std::size_t g = 0; g < segments; ++g) {
      std::uint32_t first = 0;
      for (std::size_t k = 0; k < keys; ++k) first += std::exchange(ends[g * keys + k], first);
    }
    // 3: segment by segment, each record to its key's place, back in `in`.
    for (std::size_t g = 0; g < segments; ++g) {
      std::uint32_t* const cursors = ends.data() + g * keys;
      std::byte* const out = in + g * segment * kRecordBytes;
      for (std::size_t i = g * segment; i < std::min(n, (g + 1) * segment); ++i) {
        const std::byte* record = ordered + i * kRecordBytes;
        std::memcpy(out + std::size_t{cursors[key_of(vertex(record, vertex_offset))]++} * kRecordBytes, record, kRecordBytes);
      }
    }
    // Each (segment, key)'s cursor now stands at the end of its records.
  };
  if (record_bytes == 8) {
    run.template operator()<8>();
  } else {
    run.template operator()<12>();
  }
}

std::pair<VertexId, VertexId> reader_range(const std::byte* records, std::size_t n, std::size_t record_bytes,
                                           std::size_t vertex_offset) {
  const std::size_t reader_offset = sizeof(VertexId) - vertex_offset;
  VertexId lo = UINT32_MAX;
  VertexId hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    VertexId v = 0;
    std::memcpy(&v, records + i * record_bytes + reader_offset, sizeof v);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (n == 0) return {1, 0};
  return {lo, hi};
}

const std::byte* group_segment(std::byte* in, std::size_t n, std::size_t record_bytes, std::size_t vertex_offset,
                               const DestinationKey& key, std::byte* out, std::span<std::uint32_t> ends, bool by_other) {
  const std::size_t other_offset = sizeof(VertexId) - vertex_offset;
  auto group = [&]<std::size_t kRecordBytes>() -> const std::byte* {
    if (!by_other) {
      group_records<kRecordBytes>(in, n, vertex_offset, key, out, ends);
      return out;
    }
    order_by_other<kRecordBytes>(in, n, other_offset, key, out);
    group_records<kRecordBytes>(out, n, vertex_offset, key, in, ends);
    return in;
  };
  return record_bytes == 8 ? group.template operator()<8>() : group.template operator()<12>();
}

}  // namespace edgestream
