// The autotuner: exact partition arithmetic, forced counts, and plans that fit their budget.
#include <catch2/catch.hpp>

#include <optional>
#include <random>

#include "core/keyed_segments.hpp"
#include "core/memory_plan.hpp"
#include "io/aligned_buffer.hpp"

namespace edgestream {
namespace {

TEST_CASE("partition_of equals division for every size and extreme ids", "[memory_plan]") {
  std::mt19937_64 rng(11);
  std::vector<std::uint64_t> sizes = {1, 2, 3, 5, 7, 10, 641, 1000, 65535, 65536, 65537, 1000003, (1ULL << 31) - 1,
                                      1ULL << 31, (1ULL << 32) - 1, 1ULL << 32};
  for (int i = 0; i < 200; ++i) sizes.push_back(1 + rng() % (1ULL << 32));
  for (const std::uint64_t size : sizes) {
    MemoryPlan plan;
    plan.set_partition_size(size);
    std::vector<std::uint32_t> ids = {0, 1, 2, UINT32_MAX, UINT32_MAX - 1};
    for (int i = 0; i < 2000; ++i) ids.push_back(static_cast<std::uint32_t>(rng()));
    for (std::uint64_t m = 1; m <= 4 && size * m <= UINT32_MAX; ++m) {
      ids.push_back(static_cast<std::uint32_t>(size * m - 1));
      ids.push_back(static_cast<std::uint32_t>(size * m));
    }
    for (const std::uint32_t v : ids) {
      INFO("size " << size << " id " << v);
      REQUIRE(plan.partition_of(v) == v / size);
    }
  }
}

MemoryPlanInput input(std::uint64_t vertices) {
  MemoryPlanInput in;
  in.vertices = vertices;
  in.vertex_bytes = 12;
  in.entry_bytes = 8;
  in.record_bytes = 12;
  in.baseline_rss = 8 << 20;
  return in;
}

TEST_CASE("forced partition counts are honoured exactly", "[memory_plan]") {
  EngineOptions options;
  options.physical_memory = std::uint64_t{4} << 30;
  for (const std::uint64_t k : {1, 2, 3, 4, 7, 8, 33, 100}) {
    options.forced_partitions = k;
    const auto plan = plan_memory(input(3000), options);
    REQUIRE(plan.has_value());
    CHECK(plan->partitions == k);
    CHECK(plan->partition_size * plan->partitions >= 3000);
    CHECK(plan->partition_size * (plan->partitions - 1) < 3000);
  }
}

// The plan with exactly k partitions (nullopt: it does not fit).
std::optional<MemoryPlan> forced_plan(const MemoryPlanInput& in, EngineOptions options, std::uint64_t k) {
  options.forced_partitions = k;
  auto plan = plan_memory(in, options);
  return plan ? std::optional<MemoryPlan>(*plan) : std::nullopt;
}

TEST_CASE("autotuned plans fit the budget: the fewest partitions, or more when those write in small requests", "[memory_plan]") {
  EngineOptions options;
  options.threads = 2;
  const std::uint64_t vertices = 16ULL << 20;  // 192 MiB of 12-byte states
  const MemoryPlanInput in = input(vertices);
  std::uint64_t previous_k = 0;
  bool took_more = false;
  for (const std::uint64_t mib : {1024, 256, 128, 112, 96, 80, 64, 56, 48, 40}) {
    options.physical_memory = mib << 20;
    const auto plan = plan_memory(in, options);
    REQUIRE(plan.has_value());
    INFO(mib << " MiB: " << plan->describe());
    CHECK(plan->estimated_peak() <= options.physical_memory);
    CHECK(plan->partitions >= previous_k);  // less memory never means fewer partitions
    previous_k = plan->partitions;
    // The fewest partitions that fit, and the write requests of each count up to 8 times as many.
    std::uint64_t fewest = 1;
    while (!forced_plan(in, options, fewest)) ++fewest;
    const std::uint64_t fewest_chunk = forced_plan(in, options, fewest)->io.write_chunk;
    if (fewest == 1 || fewest_chunk >= kEfficientWriteChunk) {
      CHECK(plan->partitions == fewest);
      continue;
    }
    std::uint64_t first_efficient = 0;
    std::uint64_t widest = fewest;
    std::uint64_t widest_chunk = fewest_chunk;
    for (std::uint64_t k = fewest + 1; k <= kMaxExtraPartitionsFactor * fewest; ++k) {
      const auto p = forced_plan(in, options, k);
      REQUIRE(p.has_value());  // memory need falls with the count
      if (p->io.write_chunk >= kEfficientWriteChunk && first_efficient == 0) first_efficient = k;
      if (p->io.write_chunk > widest_chunk) {
        widest = k;
        widest_chunk = p->io.write_chunk;
      }
    }
    INFO("fewest " << fewest << " writing " << fewest_chunk << " bytes per request; widest " << widest);
    if (first_efficient != 0) {
      CHECK(plan->partitions == first_efficient);
    } else if (2 * widest_chunk >= 3 * fewest_chunk) {
      CHECK(plan->partitions == widest);
    } else {
      CHECK(plan->partitions == fewest);
    }
    CHECK(plan->io.write_chunk == forced_plan(in, options, plan->partitions)->io.write_chunk);
    took_more = took_more || plan->partitions > fewest;
  }
  CHECK(previous_k > 1);
  CHECK(took_more);  // the budgets above include ones where the fewest partitions write small requests
}

TEST_CASE("a --write_chunk at or below the requests the fewest partitions get keeps the fewest", "[memory_plan]") {
  EngineOptions options;
  options.threads = 2;
  const MemoryPlanInput in = input(16ULL << 20);
  options.physical_memory = std::uint64_t{64} << 20;
  const auto tuned = plan_memory(in, options);
  REQUIRE(tuned.has_value());
  std::uint64_t fewest = 1;
  while (!forced_plan(in, options, fewest)) ++fewest;
  const std::uint64_t chunk = forced_plan(in, options, fewest)->io.write_chunk;
  REQUIRE(chunk < kEfficientWriteChunk);
  REQUIRE(tuned->partitions > fewest);  // with the default --write_chunk (4 MiB): more partitions
  options.io.write_chunk = round_down(chunk, 4096);
  const auto asked = plan_memory(in, options);
  REQUIRE(asked.has_value());
  CHECK(asked->partitions == fewest);
}

TEST_CASE("K > 1: keyed stream segments and their key ends are in the plan, within the budget", "[memory_plan]") {
  EngineOptions options;
  options.threads = 2;
  options.physical_memory = 96ULL << 20;
  MemoryPlanInput in = input(16ULL << 20);  // rmat24's vertices and edges
  in.edges = 268435456;
  in.stream_record_bytes = 8;
  const auto plan = plan_memory(in, options);
  REQUIRE(plan.has_value());
  INFO(plan->describe());
  REQUIRE(plan->partitions > 1);
  CHECK(plan->estimated_peak() <= options.physical_memory);
  CHECK(plan->segment_records == plan->batch_records);
  const std::uint64_t keys = plan->cache_partitions + plan->partitions;
  // Per segment its key ends and reading-vertex range; each frame's offset (frames of at least
  // 32 KiB, half the smallest write chunk, in vectors that may double).
  const std::uint64_t frames = in.edges * 8 / (32 * 1024) + plan->partitions;
  CHECK(plan->segment_index_bytes ==
        (in.edges / plan->segment_records + plan->partitions * (1 + KeyedStreamIndex::kSegmentsPerBlock)) * (keys + 2) * 4 +
            2 * frames * 8);
  // The split's segments (one per stream, one sorted copy per thread) fit the state buffer here.
  CHECK((plan->partitions + 2) * plan->segment_records * 8 <= plan->state_bytes);
  CHECK(plan->segment_split_bytes == 0);

  options.segment_records = 0;  // input order
  const auto unkeyed = plan_memory(in, options);
  REQUIRE(unkeyed.has_value());
  CHECK(unkeyed->segment_records == 0);
  CHECK(unkeyed->segment_index_bytes == 0);
  CHECK(unkeyed->partitions == plan->partitions);

  // 1000-record segments: 73 MB of key ends, more than this budget leaves: none; at 1G they fit.
  options.segment_records = 1000;
  const auto small = plan_memory(in, options);
  REQUIRE(small.has_value());
  CHECK(small->segment_records == 0);
  CHECK(small->estimated_peak() <= options.physical_memory);
  EngineOptions roomy = options;
  roomy.physical_memory = std::uint64_t{1} << 30;
  roomy.forced_partitions = 4;
  const auto fits = plan_memory(in, roomy);
  REQUIRE(fits.has_value());
  CHECK(fits->segment_records == 1000);
  CHECK(fits->segment_index_bytes ==
        (in.edges / 1000 + 4 * (1 + KeyedStreamIndex::kSegmentsPerBlock)) * (fits->cache_partitions + 4 + 2) * 4 +
            2 * (in.edges * 8 / (32 * 1024) + 4) * 8);
  CHECK(fits->estimated_peak() <= roomy.physical_memory);

  // Key ends that cannot fit (2^36 edges: ~270 MB of them at any segment size): input order.
  options.segment_records = UINT64_MAX;
  in.edges = std::uint64_t{1} << 36;
  const auto huge = plan_memory(in, options);
  REQUIRE(huge.has_value());
  CHECK(huge->segment_records == 0);
  CHECK(huge->estimated_peak() <= options.physical_memory);
}

TEST_CASE("one partition: the in-memory grid of block-local records needs grid_record_bytes + 2 per edge, then its records", "[memory_plan]") {
  EngineOptions options;
  options.threads = 2;
  MemoryPlanInput in = input(1 << 20);
  in.edges = 8 << 20;  // 96 MiB of 12-byte input records
  options.physical_memory = 200 << 20;  // beside the states, less than two copies of the input
  for (const std::size_t grid_rs : {4, 8}) {
    INFO(grid_rs << "-byte grid records");
    in.grid_record_bytes = grid_rs;
    options.compact_grid = true;
    auto plan = plan_memory(in, options);
    REQUIRE(plan.has_value());
    INFO(plan->describe());
    CHECK(plan->partitions == 1);
    CHECK(plan->edge_cache_bytes == in.edges * (grid_rs + 2));
    CHECK(plan->grid_bytes >= in.edges * grid_rs);
    CHECK(plan->grid_bytes < in.edges * grid_rs + (8 << 20));
    CHECK(plan->grid_window_bytes == 0);
    CHECK(plan->estimated_peak() <= options.physical_memory);
    // Whole records (no block-local ids): built from a copy of the input, twice its bytes, which
    // this budget does not hold: the edges stay in memory in input order.
    options.compact_grid = false;
    plan = plan_memory(in, options);
    REQUIRE(plan.has_value());
    CHECK(plan->edge_cache_bytes == in.edges * 12);
    CHECK(plan->grid_bytes == 0);
    CHECK(plan->estimated_peak() <= options.physical_memory);
  }
}

TEST_CASE("one partition, edges on disk: the grid gets all the room left, kept in part when it does not fit", "[memory_plan]") {
  EngineOptions options;
  options.threads = 2;
  options.compact_grid = true;
  options.disk_grid = DiskGrid::kOn;
  options.grid_codec = GridCodec::kNone;
  MemoryPlanInput in = input(1 << 20);
  in.edges = 64 << 20;  // 768 MiB of input records, 256 MiB of 4-byte grid records
  in.grid_record_bytes = 4;
  options.physical_memory = 200 << 20;
  const auto plan = plan_memory(in, options);
  REQUIRE(plan.has_value());
  INFO(plan->describe());
  REQUIRE(plan->partitions == 1);
  REQUIRE(plan->grid_window_bytes > 0);  // on disk
  // The grid does not fit: 16 MiB windows, the rest of the room for its first windows.
  CHECK(plan->grid_window_bytes == 16 << 20);
  CHECK(plan->grid_memory_bytes > 4 * plan->grid_window_bytes);
  CHECK(plan->estimated_peak() <= options.physical_memory);
  CHECK(plan->estimated_peak() + 4096 > options.physical_memory);  // nothing left over
  // --stream_grid: two windows of the largest size, the rest unused.
  EngineOptions streamed = options;
  streamed.grid_resident = false;
  const auto two = plan_memory(in, streamed);
  REQUIRE(two.has_value());
  CHECK(two->grid_window_bytes == 64 << 20);
  CHECK(two->grid_memory_bytes == 2 * two->grid_window_bytes);
  CHECK(two->estimated_peak() + plan->grid_memory_bytes - two->grid_memory_bytes == plan->estimated_peak());
  // --grid_memory caps the room (windows halve to fit two).
  EngineOptions capped = options;
  capped.grid_memory = 40 << 20;
  const auto small = plan_memory(in, capped);
  REQUIRE(small.has_value());
  CHECK(small->grid_memory_bytes == 40 << 20);
  CHECK(small->grid_window_bytes == 16 << 20);
  capped.grid_memory = 24 << 20;
  const auto smaller = plan_memory(in, capped);
  REQUIRE(smaller.has_value());
  CHECK(smaller->grid_memory_bytes == 24 << 20);
  CHECK(smaller->grid_window_bytes == 12 << 20);
  // A grid that fits the room: all of it, windows as large as allowed.
  options.physical_memory = 600 << 20;
  const auto roomy = plan_memory(in, options);
  REQUIRE(roomy.has_value());
  REQUIRE(roomy->grid_window_bytes > 0);
  CHECK(roomy->grid_window_bytes == 64 << 20);
  CHECK(roomy->grid_memory_bytes >= std::uint64_t{256} << 20);
  CHECK(roomy->estimated_peak() <= options.physical_memory);
}

TEST_CASE("a budget too small for any plan is a clear error", "[memory_plan]") {
  EngineOptions options;
  options.physical_memory = 1 << 20;
  const auto plan = plan_memory(input(100000), options);
  REQUIRE_FALSE(plan.has_value());
  CHECK(plan.status().code() == StatusCode::kResourceExhausted);
  CHECK_THAT(plan.status().message(), Catch::Contains("--physical_memory"));
}

}  // namespace
}  // namespace edgestream
