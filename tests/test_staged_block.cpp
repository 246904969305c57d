// [edge_grid] (staging blocks): encode_staged_block / parse_staged_block (core/staged_block.hpp), the
// blocks of the on-disk grid's staging files. Every block decodes to exactly the records it was
// given, each bucket's in their input order, in the smaller of the two forms; a damaged header or
// table is corruption. (The whole build, both forms and damaged files: test_edge_grid.cpp.)
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "core/staged_block.hpp"

namespace edgestream::test {
namespace {

// A group of `span` buckets, numbered from `first` in steps of 3 (not contiguous, like a group's
// buckets in the grid's schedule order); rank is indexed by bucket.
struct Group {
  std::vector<std::uint32_t> buckets;
  std::vector<std::uint32_t> rank;
  Group(std::uint32_t first, std::uint32_t span) {
    rank.assign(first + 3 * span, UINT32_MAX);
    for (std::uint32_t r = 0; r < span; ++r) {
      buckets.push_back(first + 3 * r);
      rank[first + 3 * r] = r;
    }
  }
  StagedGroupBuckets view() const { return {rank, buckets}; }
};

// `m` staged entries of `record_bytes` records; record i's first 4 bytes are i (its input position).
std::vector<std::byte> make_entries(const Group& g, std::size_t m, std::size_t record_bytes, std::uint32_t used_buckets,
                                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> entries(m * (4 + record_bytes));
  for (std::size_t i = 0; i < m; ++i) {
    const std::uint32_t bucket = g.buckets[rng() % used_buckets];
    std::byte* at = entries.data() + i * (4 + record_bytes);
    std::memcpy(at, &bucket, 4);
    const auto id = static_cast<std::uint32_t>(i);
    std::memcpy(at + 4, &id, 4);
    for (std::size_t k = 4; k < record_bytes; ++k) at[4 + k] = static_cast<std::byte>(rng());
  }
  return entries;
}

// bucket -> its records in order, as the entries hold them.
std::map<std::uint32_t, std::vector<std::vector<std::byte>>> by_bucket_of_entries(std::span<const std::byte> entries,
                                                                                  std::size_t record_bytes) {
  std::map<std::uint32_t, std::vector<std::vector<std::byte>>> out;
  for (std::size_t at = 0; at < entries.size(); at += 4 + record_bytes) {
    std::uint32_t b;
    std::memcpy(&b, entries.data() + at, 4);
    out[b].emplace_back(entries.begin() + static_cast<std::ptrdiff_t>(at + 4),
                        entries.begin() + static_cast<std::ptrdiff_t>(at + 4 + record_bytes));
  }
  return out;
}

std::map<std::uint32_t, std::vector<std::vector<std::byte>>> by_bucket_of_block(const StagedBlock& block, std::size_t record_bytes) {
  if (block.kind == StagedBlockKind::kEntries) {
    return by_bucket_of_entries(std::span<const std::byte>(block.payload, block.records * (4 + record_bytes)), record_bytes);
  }
  std::map<std::uint32_t, std::vector<std::vector<std::byte>>> out;
  const std::byte* record = block.payload;
  for (std::uint64_t i = 0; i < block.runs; ++i) {
    for (std::uint32_t k = 0; k < block.run_count(i); ++k, record += record_bytes) {
      out[block.run_bucket(i)].emplace_back(record, record + record_bytes);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("staging blocks: every record back, in input order per bucket, in the smaller form", "[edge_grid]") {
  struct Case {
    std::size_t record_bytes;
    std::uint32_t span;
    std::uint32_t used;
    std::size_t m;
    StagedBlockKind expected;
  };
  // Few buckets, many records each: runs. As many buckets as records: entries. One record: entries
  // (a run's table entry costs as much as the bucket it saves). Record sizes 4 and 8 (the grid's)
  // and another (the placement's generic copy).
  for (const Case c : {Case{4, 64, 64, 20000, StagedBlockKind::kRuns}, Case{8, 500, 37, 9999, StagedBlockKind::kRuns},
                       Case{12, 300, 200, 8000, StagedBlockKind::kRuns},
                       Case{4, 50000, 50000, 3000, StagedBlockKind::kEntries},
                       Case{8, 40000, 40000, 5000, StagedBlockKind::kEntries}, Case{4, 10, 1, 1, StagedBlockKind::kEntries},
                       Case{4, 10, 10, 0, StagedBlockKind::kEntries}}) {
    INFO("record " << c.record_bytes << " B, " << c.used << " of " << c.span << " buckets, " << c.m << " records");
    const Group group(7, c.span);
    const std::vector<std::byte> entries = make_entries(group, c.m, c.record_bytes, c.used, c.m + c.span);
    std::vector<std::byte> out(staged_block_capacity(c.m, c.record_bytes) + 4096, std::byte{0xEE});
    std::vector<std::uint32_t> counts;
    const std::size_t used = encode_staged_block(entries, c.record_bytes, group.view(), counts, out);
    const auto expected_in = by_bucket_of_entries(entries, c.record_bytes);
    const std::size_t runs_bytes = kStagedHeaderBytes + expected_in.size() * 8 + c.m * c.record_bytes;
    const std::size_t entries_bytes = kStagedHeaderBytes + entries.size();
    CHECK(used == std::min(runs_bytes, entries_bytes));
    CHECK(used <= staged_block_capacity(c.m, c.record_bytes));
    // Parsed from the used bytes plus padding, as the build reads a block back.
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(used), out.end(), std::byte{0});
    const Expected<StagedBlock> parsed = parse_staged_block(std::span<const std::byte>(out.data(), used + 100), c.record_bytes);
    REQUIRE(parsed.has_value());
    CHECK(parsed->kind == c.expected);
    CHECK(parsed->records == c.m);
    if (parsed->kind == StagedBlockKind::kRuns) {
      CHECK(parsed->runs == expected_in.size());
      for (std::uint64_t i = 1; i < parsed->runs; ++i) {  // the group's order, each bucket once
        CHECK(group.rank[parsed->run_bucket(i - 1)] < group.rank[parsed->run_bucket(i)]);
      }
    }
    CHECK(by_bucket_of_block(*parsed, c.record_bytes) == expected_in);
  }
}

TEST_CASE("staging blocks: a damaged header or table is corruption saying what is wrong", "[edge_grid]") {
  const Group group(0, 16);
  const std::vector<std::byte> entries = make_entries(group, 1000, 4, 16, 5);
  std::vector<std::byte> out(staged_block_capacity(1000, 4));
  std::vector<std::uint32_t> counts;
  const std::size_t used = encode_staged_block(entries, 4, group.view(), counts, out);
  const std::span<const std::byte> block(out.data(), used);
  REQUIRE(parse_staged_block(block, 4).has_value());
  REQUIRE(parse_staged_block(block, 4)->kind == StagedBlockKind::kRuns);
  auto damaged = [&](std::size_t offset, std::uint32_t value) {
    std::vector<std::byte> copy(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(used));
    std::memcpy(copy.data() + offset, &value, 4);
    const Expected<StagedBlock> parsed = parse_staged_block(copy, 4);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.status().code() == StatusCode::kCorruption);
    return parsed.status().message();
  };
  CHECK_THAT(damaged(0, 7), Catch::Contains("unknown block kind 7"));
  CHECK_THAT(damaged(4, 999), Catch::Contains("add up to 1000") && Catch::Contains("header says 999"));
  CHECK_THAT(damaged(4, 1u << 30), Catch::Contains("does not fit"));
  CHECK_THAT(damaged(8, 1u << 20), Catch::Contains("does not fit"));
  CHECK_THAT(damaged(kStagedHeaderBytes + 4, 0), Catch::Contains("run counts add up to"));
  CHECK_THAT(damaged(0, static_cast<std::uint32_t>(StagedBlockKind::kEntries)), Catch::Contains("entries block"));
  const Expected<StagedBlock> short_block = parse_staged_block(block.first(8), 4);
  REQUIRE_FALSE(short_block.has_value());
  CHECK_THAT(short_block.status().message(), Catch::Contains("shorter than its header"));
}

}  // namespace edgestream::test
