// The staging file's block format; see staged_block.hpp.
#include "core/staged_block.hpp"

#include <cstring>

namespace edgestream {

namespace {

std::uint32_t load_u32(const std::byte* at) {
  std::uint32_t v;
  std::memcpy(&v, at, 4);
  return v;
}

void store_u32(std::byte* at, std::uint32_t v) { std::memcpy(at, &v, 4); }

void store_header(std::byte* out, StagedBlockKind kind, std::uint64_t records, std::uint64_t runs) {
  store_u32(out, static_cast<std::uint32_t>(kind));
  store_u32(out + 4, static_cast<std::uint32_t>(records));
  store_u32(out + 8, static_cast<std::uint32_t>(runs));
  store_u32(out + 12, 0);
}

// The counting sort's placement: entry i's grid record goes to its bucket's next place in
// `payload` (counts[rank]: first places, advanced). kBytes: the record size, or 0 for `bytes`.
template <std::size_t kBytes>
void place_records(const std::byte* entry, std::size_t m, std::span<const std::uint32_t> rank, std::vector<std::uint32_t>& counts,
                   std::byte* payload, std::size_t bytes = kBytes) {
  const std::size_t record = kBytes != 0 ? kBytes : bytes;
  std::uint32_t* next = counts.data();
  const std::uint32_t* rank_of = rank.data();
  for (std::size_t i = 0; i < m; ++i, entry += 4 + record) {
    std::memcpy(payload + std::size_t{next[rank_of[load_u32(entry)]]++} * record, entry + 4, kBytes != 0 ? kBytes : bytes);
  }
}

}  // namespace

std::uint32_t StagedBlock::run_bucket(std::uint64_t i) const { return load_u32(table + i * 8); }
std::uint32_t StagedBlock::run_count(std::uint64_t i) const { return load_u32(table + i * 8 + 4); }

std::size_t encode_staged_block(std::span<const std::byte> entries, std::size_t record_bytes, StagedGroupBuckets group,
                                std::vector<std::uint32_t>& counts, std::span<std::byte> out, std::uint64_t* bucket_records) {
  const std::size_t entry_bytes = 4 + record_bytes;
  const std::size_t m = entries.size() / entry_bytes;
  const std::size_t span = group.buckets.size();
  counts.assign(span, 0);
  for (std::size_t i = 0; i < m; ++i) ++counts[group.rank[load_u32(entries.data() + i * entry_bytes)]];
  std::size_t runs = 0;
  for (std::size_t r = 0; r < span; ++r) runs += counts[r] > 0 ? 1 : 0;
  if (bucket_records != nullptr) {
    for (std::size_t r = 0; r < span; ++r) bucket_records[group.buckets[r]] += counts[r];
  }
  const std::size_t runs_bytes = kStagedHeaderBytes + runs * 8 + m * record_bytes;
  const std::size_t entries_bytes = kStagedHeaderBytes + m * entry_bytes;
  std::byte* to = out.data();
  if (runs_bytes >= entries_bytes) {
    store_header(to, StagedBlockKind::kEntries, m, 0);
    if (m > 0) std::memcpy(to + kStagedHeaderBytes, entries.data(), m * entry_bytes);  // an empty span's data may be null
    return entries_bytes;
  }
  store_header(to, StagedBlockKind::kRuns, m, runs);
  // The table, and counts[r] becomes the first place of position r's records in the payload.
  std::byte* table = to + kStagedHeaderBytes;
  std::uint32_t next = 0;
  for (std::size_t r = 0, k = 0; r < span; ++r) {
    const std::uint32_t count = counts[r];
    if (count == 0) continue;
    store_u32(table + k * 8, group.buckets[r]);
    store_u32(table + k * 8 + 4, count);
    ++k;
    counts[r] = next;
    next += count;
  }
  std::byte* payload = table + runs * 8;
  switch (record_bytes) {  // a copy of known size is a move, not a call to memcpy per record
    case 4: place_records<4>(entries.data(), m, group.rank, counts, payload); break;
    case 8: place_records<8>(entries.data(), m, group.rank, counts, payload); break;
    default: place_records<0>(entries.data(), m, group.rank, counts, payload, record_bytes); break;
  }
  return runs_bytes;
}

Expected<StagedBlock> parse_staged_block(std::span<const std::byte> bytes, std::size_t record_bytes) {
  if (bytes.size() < kStagedHeaderBytes) return corruption("block shorter than its header");
  StagedBlock block;
  const std::uint32_t kind = load_u32(bytes.data());
  block.records = load_u32(bytes.data() + 4);
  block.runs = load_u32(bytes.data() + 8);
  const std::uint64_t room = bytes.size() - kStagedHeaderBytes;
  if (kind == static_cast<std::uint32_t>(StagedBlockKind::kEntries)) {
    block.kind = StagedBlockKind::kEntries;
    if (block.runs != 0 || block.records * (4 + record_bytes) > room) {
      return corruption("entries block of " + std::to_string(block.records) + " records does not fit its " +
                        std::to_string(bytes.size()) + " bytes");
    }
    block.payload = bytes.data() + kStagedHeaderBytes;
    return block;
  }
  if (kind != static_cast<std::uint32_t>(StagedBlockKind::kRuns)) {
    return corruption("unknown block kind " + std::to_string(kind) + " (expected 1: runs or 2: entries)");
  }
  block.kind = StagedBlockKind::kRuns;
  if (block.runs * 8 + block.records * record_bytes > room) {
    return corruption("runs block of " + std::to_string(block.runs) + " runs and " + std::to_string(block.records) +
                      " records does not fit its " + std::to_string(bytes.size()) + " bytes");
  }
  block.table = bytes.data() + kStagedHeaderBytes;
  block.payload = block.table + block.runs * 8;
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < block.runs; ++i) total += block.run_count(i);
  if (total != block.records) {
    return corruption("runs block: run counts add up to " + std::to_string(total) + " records, its header says " +
                      std::to_string(block.records));
  }
  return block;
}

}  // namespace edgestream
