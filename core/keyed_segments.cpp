// Grouping one segment of a keyed edge stream by key (core/keyed_segments.hpp): a counting sort
// (two with by_other: by the other vertex's range, then by key).
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
