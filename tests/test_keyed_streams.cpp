// Keyed edge streams (K > 1, core/keyed_segments.hpp): group_segment groups a segment's records by
// key, keeping their order within a key, and sets the key ends; the engine gives the same results
// with keyed streams as with input-order ones for programs of every kind (forward, undirected,
// reverse edges, weights, updates to other vertices than the destination: strays), with segments
// much smaller than the streams, reads that cut segments into pieces and 1 to 3 threads, and with
// the split pass taking its input in many small steps (EngineBase::split_input). order_run orders a
// run by reading vertex and groups each segment by key; programs with active vertices then read only
// the frames of segments with an active reading vertex (Engine::active_frames), with the same results.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/bfs.hpp"
#include "algorithms/cc.hpp"
#include "algorithms/scc.hpp"
#include "algorithms/sssp.hpp"
#include "algorithms/engine_instances.hpp"
#include "core/background_jobs.hpp"
#include "core/engine.hpp"
#include "core/keyed_segments.hpp"
#include "core/memory_plan.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

// Record i of `records` (rs bytes each): the keyed vertex at byte `offset`, the other at 4 - offset,
// and with rs = 12 `weight` as the third word.
void put_record(std::vector<std::byte>& records, std::size_t i, std::size_t rs, std::size_t offset, VertexId keyed, VertexId other,
                std::uint32_t weight) {
  std::memcpy(records.data() + i * rs + offset, &keyed, 4);
  std::memcpy(records.data() + i * rs + (4 - offset), &other, 4);
  if (rs == 12) std::memcpy(records.data() + i * rs + 8, &weight, 4);
}

TEST_CASE("keyed segments: group_segment groups records by key, in order within a key", "[keyed_streams]") {
  // Partition 1 of 4 partitions of 3000 vertices, cache partitions of 256: keys 0..11 are its own
  // vertices, 12..15 the partitions (12 + 1 never occurs: those vertices have cache keys).
  MemoryPlan plan;
  plan.set_partition_size(3000);
  const DestinationKey key{3000, 3000, 8, 12, plan.partition_size, plan.partition_magic};
  const std::size_t keys = 16;
  std::mt19937 rng(7);
  for (const std::size_t rs : {std::size_t{8}, std::size_t{12}}) {
    for (const std::size_t offset : {std::size_t{0}, std::size_t{4}}) {
      INFO("record bytes " << rs << ", key vertex at byte " << offset);
      const std::size_t n = 5000;
      std::vector<std::byte> in(n * rs);
      for (std::size_t i = 0; i < n; ++i) {
        // The other field holds the record's index: order within a key is visible.
        const auto keyed = static_cast<VertexId>(i % 7 == 0 ? 3000 + rng() % 3000 : rng() % 12000);
        const auto index = static_cast<VertexId>(i);
        put_record(in, i, rs, offset, keyed, index, index);
      }
      std::vector<std::byte> out(n * rs);
      std::vector<std::uint32_t> ends(keys);
      REQUIRE(group_segment(in.data(), n, rs, offset, key, out.data(), ends, /*by_other=*/false) == out.data());
      // Expected: the records stably sorted by key.
      auto key_of_record = [&](const std::byte* record) {
        VertexId v = 0;
        std::memcpy(&v, record + offset, 4);
        return key(v);
      };
      std::vector<std::size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return key_of_record(&in[a * rs]) < key_of_record(&in[b * rs]); });
      for (std::size_t i = 0; i < n; ++i) {
        INFO("output record " << i);
        REQUIRE(std::memcmp(out.data() + i * rs, in.data() + order[i] * rs, rs) == 0);
      }
      CHECK(ends[keys - 1] == n);
      for (std::size_t k = 0; k < keys; ++k) {
        const std::uint32_t begin = k == 0 ? 0 : ends[k - 1];
        REQUIRE(begin <= ends[k]);
        for (std::uint32_t i = begin; i < ends[k]; ++i) CHECK(key_of_record(&out[std::size_t{i} * rs]) == k);
      }
      CHECK(ends[12] == ends[13]);  // no records of the partition's own key
      CHECK(ends[11] > 0);
    }
  }
}

TEST_CASE("keyed segments: by_other orders each key's records by their other vertex", "[keyed_streams]") {
  // As above; the other vertex lies in the partition [3000, 6000), whose 3000 ids are fewer than
  // 2^kOtherBucketBits ranges: exactly sorted by it within a key, stably (the weight word holds the
  // input index). A partition of 2^20 ids: sorted to within ranges of 2^(20 - kOtherBucketBits).
  MemoryPlan plan;
  std::mt19937 rng(11);
  for (const std::uint64_t count : {std::uint64_t{3000}, std::uint64_t{1} << 20}) {
    plan.set_partition_size(count);
    const unsigned cache_shift = count == 3000 ? 8 : 17;  // 12 or 8 cache keys, then 4 partition keys
    const std::uint64_t cache_keys = (count + (std::uint64_t{1} << cache_shift) - 1) >> cache_shift;
    const DestinationKey key{count, count, cache_shift, cache_keys, plan.partition_size, plan.partition_magic};
    const std::size_t keys = cache_keys + 4;
    const auto span_bits = static_cast<unsigned>(std::bit_width(count - 1));
    const std::uint64_t range = std::uint64_t{1} << (span_bits > kOtherBucketBits ? span_bits - kOtherBucketBits : 0);  // 1 or 64
    for (const std::size_t rs : {std::size_t{8}, std::size_t{12}}) {
      for (const std::size_t offset : {std::size_t{0}, std::size_t{4}}) {
        INFO("partition of " << count << ", record bytes " << rs << ", key vertex at byte " << offset);
        const std::size_t n = 7000;
        std::vector<std::byte> in(n * rs);
        for (std::size_t i = 0; i < n; ++i) {
          const auto keyed = static_cast<VertexId>(i % 5 == 0 ? count + rng() % count : rng() % (4 * count));
          const auto other = static_cast<VertexId>(count + rng() % count);
          put_record(in, i, rs, offset, keyed, other, static_cast<std::uint32_t>(i));  // the weight: the input index
        }
        std::vector<std::byte> plain(n * rs);
        std::vector<std::uint32_t> plain_ends(keys);
        std::vector<std::byte> copy = in;
        group_segment(copy.data(), n, rs, offset, key, plain.data(), plain_ends, /*by_other=*/false);
        std::vector<std::byte> scratch(n * rs);
        std::vector<std::uint32_t> ends(keys);
        const std::byte* grouped = group_segment(in.data(), n, rs, offset, key, scratch.data(), ends, /*by_other=*/true);
        REQUIRE(grouped == in.data());
        CHECK(ends == plain_ends);  // the same keys' records
        auto field = [&](const std::byte* records, std::size_t i, std::size_t at) {
          VertexId v = 0;
          std::memcpy(&v, records + i * rs + at, 4);
          return v;
        };
        for (std::size_t k = 0; k < keys; ++k) {
          const std::uint32_t begin = k == 0 ? 0 : ends[k - 1];
          // A permutation of the key's records ...
          std::vector<std::uint64_t> want;
          std::vector<std::uint64_t> got;
          for (std::uint32_t i = begin; i < ends[k]; ++i) {
            want.push_back(std::uint64_t{field(plain.data(), i, 0)} << 32 | field(plain.data(), i, 4));
            got.push_back(std::uint64_t{field(grouped, i, 0)} << 32 | field(grouped, i, 4));
            CHECK(key(field(grouped, i, offset)) == k);
          }
          std::sort(want.begin(), want.end());
          std::sort(got.begin(), got.end());
          REQUIRE(got == want);
          // ... ordered by the other vertex's range, input order within one range.
          for (std::uint32_t i = begin + 1; i < ends[k]; ++i) {
            const std::uint64_t a = (field(grouped, i - 1, 4 - offset) - count) / range;
            const std::uint64_t b = (field(grouped, i, 4 - offset) - count) / range;
            REQUIRE(a <= b);
            if (rs == 12 && a == b) REQUIRE(field(grouped, i - 1, 8) < field(grouped, i, 8));
          }
        }
      }
    }
  }
}

TEST_CASE("background jobs (the split's run flushes): in order per slot, one at a time, errors stop the rest", "[keyed_streams]") {
  {  // two threads submit to their own slots; each slot's jobs run in submission order
    BackgroundJobs jobs(2, "test jobs");
    std::vector<int> done[2];
    std::atomic<int> running{0};
    std::atomic<int> most{0};
    auto submitter = [&](std::size_t slot) {
      for (int j = 0; j < 50; ++j) {
        jobs.submit(slot, [&, slot, j]() {
          most = std::max(most.load(), ++running);
          done[slot].push_back(j);  // only the jobs' thread touches done[]; finish() publishes it
          --running;
          return Status::ok();
        });
      }
    };
    std::thread other(submitter, 1);
    submitter(0);
    other.join();
    REQUIRE(jobs.finish().is_ok());
    for (const auto& d : done) {
      REQUIRE(d.size() == 50);
      CHECK(std::is_sorted(d.begin(), d.end()));
    }
    CHECK(most.load() == 1);  // one job at a time
  }
  {  // a slot's next job waits for its previous one (the caller refills that slot's buffer)
    BackgroundJobs jobs(1, "test jobs");
    std::atomic<bool> first_done{false};
    jobs.submit(0, [&]() {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      first_done = true;
      return Status::ok();
    });
    jobs.submit(0, [] { return Status::ok(); });
    CHECK(first_done.load());  // submit returned only once the first had finished
    CHECK(jobs.finish().is_ok());
  }
  {  // wait(slot) returns once that slot's job has finished, whatever the other slots hold
    BackgroundJobs jobs(2, "test jobs");
    std::atomic<bool> slot0_done{false};
    std::atomic<bool> release{false};
    jobs.submit(0, [&]() {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      slot0_done = true;
      return Status::ok();
    });
    jobs.submit(1, [&]() {  // runs after slot 0's, until released
      while (!release.load()) std::this_thread::yield();
      return Status::ok();
    });
    jobs.wait(0);
    CHECK(slot0_done.load());
    release = true;
    jobs.wait(1);
    jobs.wait(1);  // an idle slot: returns at once
    CHECK(jobs.finish().is_ok());
  }
  {  // the first failure is reported; the jobs after it do not run
    BackgroundJobs jobs(3, "test jobs");
    std::atomic<int> ran{0};
    jobs.submit(0, [&]() {
      ++ran;
      return Status(StatusCode::kIoError, "disk full");
    });
    for (std::size_t slot = 0; slot < 3; ++slot) {
      jobs.submit(slot, [&]() {
        ++ran;
        return Status::ok();
      });
    }
    const Status status = jobs.finish();
    CHECK(status.code() == StatusCode::kIoError);
    CHECK(status.message() == "disk full");
    CHECK(ran.load() == 1);
  }
  {  // destroyed with jobs queued (an error return of the split): no hang, the queued ones dropped
    std::atomic<int> ran{0};
    {
      BackgroundJobs jobs(4, "test jobs");
      for (std::size_t slot = 0; slot < 4; ++slot) {
        jobs.submit(slot, [&]() {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          ++ran;
          return Status::ok();
        });
      }
    }
    CHECK(ran.load() <= 2);  // at most the one running (and one started before the destruction)
  }
}

TEST_CASE("keyed segments: order_run orders a run by reading vertex, each segment grouped by key", "[keyed_streams]") {
  // Partition 1 of 3 partitions of 5000 vertices, cache partitions of 512: keys 0..9 its own, 10..12
  // the partitions. Runs of 2500 records in segments of 700 (the last 400).
  const DestinationKey key{5000, 5000, 9, 10, 5000, UINT64_MAX / 5000 + 1};
  const std::size_t keys = 13;
  std::mt19937_64 rng(11);
  for (const std::size_t rs : {std::size_t{8}, std::size_t{12}}) {
    for (const std::size_t offset : {std::size_t{4}, std::size_t{0}}) {  // keyed by destination (forward), by source (reverse)
      INFO("record " << rs << " bytes, keyed vertex at " << offset);
      const std::size_t n = 2500;
      const std::size_t segment = 700;
      const std::size_t segments = (n + segment - 1) / segment;
      std::vector<std::byte> in(n * rs);
      for (std::size_t i = 0; i < n; ++i) {
        const auto keyed = static_cast<VertexId>(rng() % 15000);
        const auto reader = static_cast<VertexId>(5000 + (i % 3 == 0 ? rng() % 40 : rng() % 5000));  // many on few readers
        put_record(in, i, rs, offset, keyed, reader, static_cast<std::uint32_t>(i));
      }
      const std::vector<std::byte> original = in;
      std::vector<std::byte> ordered(n * rs);
      std::vector<std::uint32_t> ends(segments * keys);
      std::vector<std::pair<VertexId, VertexId>> readers(segments);
      order_run(in.data(), n, rs, offset, key, segment, ordered.data(), ends, readers);
      auto field = [&](const std::vector<std::byte>& records, std::size_t i, std::size_t at) {
        std::uint32_t v = 0;
        std::memcpy(&v, records.data() + i * rs + at, 4);
        return v;
      };
      const std::size_t reader_at = 4 - offset;
      auto range = [](VertexId v) { return (v - 5000) >> 3; };  // 2^kRunBucketBits ranges of the 5000 (13 bits)
      std::vector<bool> seen(n, false);
      VertexId last_range = 0;
      for (std::size_t g = 0; g < segments; ++g) {
        const std::size_t first = g * segment;
        const std::size_t size = std::min(segment, n - first);
        REQUIRE(ends[g * keys + keys - 1] == size);
        VertexId lo = UINT32_MAX;
        VertexId hi = 0;
        for (std::size_t k = 0; k < keys; ++k) {
          const std::uint32_t b = k == 0 ? 0 : ends[g * keys + k - 1];
          const std::uint32_t e = ends[g * keys + k];
          REQUIRE(b <= e);
          std::uint32_t previous_index = 0;
          VertexId previous_range = 0;
          for (std::uint32_t j = b; j < e; ++j) {
            const std::size_t i = first + j;
            CHECK(key(field(in, i, offset)) == k);  // grouped by key
            const VertexId reader = field(in, i, reader_at);
            lo = std::min(lo, reader);
            hi = std::max(hi, reader);
            // Within a key: by reading vertex's range, input order within a range (the weight or
            // the last field holds the input index for 12-byte records).
            if (j > b) CHECK(range(reader) >= previous_range);
            if (rs == 12 && j > b && range(reader) == previous_range) CHECK(field(in, i, 8) > previous_index);
            previous_range = range(reader);
            if (rs == 12) {
              previous_index = field(in, i, 8);
              CHECK(!seen[previous_index]);
              seen[previous_index] = true;
              CHECK(std::memcmp(in.data() + i * rs, original.data() + previous_index * rs, rs) == 0);  // the record unchanged
            }
          }
        }
        CHECK(readers[g] == std::pair<VertexId, VertexId>{lo, hi});
        // Segments follow each other by reading vertex: none starts below the previous one's ranges.
        if (g > 0) CHECK(range(lo) >= last_range);
        last_range = range(hi);
      }
      if (rs == 12) CHECK(std::count(seen.begin(), seen.end(), true) == static_cast<std::ptrdiff_t>(n));  // each record once
    }
  }
}

TEST_CASE("keyed streams ordered by reading vertex: sparse supersteps read only their frames, same results", "[keyed_streams]") {
  // Two partitions of 30000 vertices (8-byte states: runs of at least two 1000-record segments fit
  // in a partition's state buffer, two per stream and one more). bfs from 0 walks the chain 0 -> 1 -> ... -> 12 (one active
  // vertex per superstep, in partition 0); the 60000 random edges among the other vertices are
  // never reached. sssp and cc start everywhere (or spread) and thin out; scc reads reverse streams.
  TempDir dir;
  std::vector<Edge> edges = random_edges(60000, 60000, 21);
  for (Edge& e : edges) {
    e.src = 13 + e.src % (60000 - 13);
    e.dst = 13 + e.dst % (60000 - 13);
  }
  for (VertexId v = 0; v < 12; ++v) edges.push_back(Edge{v, v + 1, 1.0F});
  std::mt19937_64 rng(5);
  std::shuffle(edges.begin(), edges.end(), rng);
  const auto ini = write_graph(dir.path(), "g", edges, 60000);
  for (const char* algo : {"bfs", "sssp", "cc", "scc"}) {
    // Frames of 512 records (4 KiB writes); streams framed (checksums), unframed, and (bfs)
    // compressed.
    const bool bfs = std::string(algo) == "bfs";
    for (const char* codec : {"none", "unframed", "snappy", "delta"}) {
      if (!bfs && (std::string(codec) == "snappy" || std::string(codec) == "delta")) continue;
      if (std::string(algo) == "scc" && std::string(codec) == "unframed") continue;  // 176 supersteps: 3.5 s a run
      std::string outputs[2];
      std::uint64_t edges_read[2] = {0, 0};
      for (int ordered = 0; ordered < 2; ++ordered) {
        INFO(algo << ", " << codec << (ordered == 1 ? ", keyed" : ", input-order streams"));
        std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-k", "2", "-p", "2", "--physical_memory", "1G",
                                         "--write_chunk", "4K", "--read_chunk", "16K", "--work_dir", dir.path().string(),
                                         "--output", (dir / "out.txt").string(), "--verify",
                                         "--segment_records", ordered == 1 ? "1000" : "0"};
        if (std::string(codec) == "unframed") {
          args.push_back("--no_scratch_checksums");
        } else {
          args.insert(args.end(), {"--edges_codec", codec});
        }
        const auto r = run_driver_verified(args);
        CHECK(stat_value(r.out, "CORE::PARTITIONS") == "2");
        outputs[ordered] = slurp(dir / "out.txt");
        edges_read[ordered] = std::stoull(stat_value(r.out, "CORE::BYTES::EDGES_READ"));
      }
      INFO(algo << ", " << codec);
      CHECK(outputs[1] == outputs[0]);
      // bfs's supersteps each read the frames of one chain vertex's segments, not whole streams:
      // one segment (and the frames it touches) of each run of ~6 (runs fill a partition's state
      // buffer, 240 KB, five times; partition 0's stream holds ~5 runs).
      if (bfs) CHECK(edges_read[1] * 3 < edges_read[0]);
      if (std::string(algo) != "scc") CHECK(edges_read[1] < edges_read[0]);
    }
  }
}

TEST_CASE("keyed streams: same results as input-order streams, segments cut by reads, 1-3 threads", "[keyed_split]") {
  TempDir dir;
  // Skewed: hot low ids (most updates go to partition 0), a vertex count no partition size divides.
  std::vector<Edge> edges = random_edges(20011, 40000, 9);
  for (std::size_t i = 0; i < edges.size(); i += 3) edges[i].src %= 97;
  for (std::size_t i = 0; i < edges.size(); i += 2) edges[i].dst %= 4001;
  const auto ini = write_graph(dir.path(), "g", edges, 20011);
  // Forward (pagerank, with a superstep that emits to sources; bfs), undirected (cc), weights (sssp),
  // strays (degree_cnt: two updates per edge, one to the source; mcst: to any vertex), reverse
  // edges (scc; spmv with weights).
  for (const char* algo : {"pagerank", "bfs", "cc", "sssp", "degree_cnt", "mcst", "scc", "spmv"}) {
    INFO(algo);
    // 0: input-order streams; 1: keyed (planned segments); 2: keyed, 1000-record segments read in
    // 16 KiB runs (pieces), -p 2; 3: the same -p 1; 4: the same -p 3.
    constexpr int kVariants = 5;
    std::string outputs[kVariants];
    for (int variant = 0; variant < kVariants; ++variant) {
      const char* threads = variant == 3 ? "1" : variant == 4 ? "3" : "2";
      std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-k", "3", "-p", threads, "--physical_memory", "1G",
                                       "--cpu_cache_size", "16K", "--work_dir", dir.path().string(),
                                       "--output", (dir / "out.txt").string(), "--verify"};
      if (variant == 0) args.insert(args.end(), {"--segment_records", "0"});
      if (variant >= 2) args.insert(args.end(), {"--segment_records", "1000", "--read_chunk", "16K"});
      INFO("variant " << variant);
      const auto r = run_driver_verified(args);
      CHECK(stat_value(r.out, "CORE::PARTITIONS") == "3");
      const std::string segment = stat_value(r.out, "CORE::CONFIG::SEGMENT_RECORDS");
      CHECK(segment == (variant == 0 ? "0" : variant == 1 ? "65536" : "1000"));
      outputs[variant] = slurp(dir / "out.txt");
    }
    // Exact programs give the same bytes however the records are ordered (floating-point sums may
    // differ in the last bits; --verify checked them against the reference).
    const std::string name = algo;
    if (name != "pagerank" && name != "spmv") {
      for (int variant = 1; variant < kVariants; ++variant) {
        INFO("variant " << variant);
        CHECK(outputs[variant] == outputs[0]);
      }
    }
  }
}

// The final states of `program` on `graph` with K partitions, p threads, (0 = planned) batches of
// `batch` records and keyed or input-order streams, projected by `field`.
template <typename P, typename Field>
auto final_states(const GraphInfo& graph, const P& program, std::uint64_t k, unsigned p, std::uint64_t batch, bool keyed,
                  const std::filesystem::path& dir, Field field) {
  EngineOptions options;
  options.threads = p;
  options.forced_partitions = k;
  options.batch_records = batch;
  if (!keyed) options.segment_records = 0;
  options.work_dirs = {dir};
  std::vector<decltype(field(typename P::Vertex{}))> states(graph.vertices);
  const auto stats = run_engine(graph, options, program, [&](VertexId first, std::span<const typename P::Vertex> part) {
    for (std::size_t i = 0; i < part.size(); ++i) states[first + i] = field(part[i]);
    return Status::ok();
  });
  REQUIRE(stats.has_value());
  // Keyed streams when asked for (K > 1), and only then.
  CHECK((stats->plan.segment_records > 0) == (keyed && k > 1));
  return states;
}

TEST_CASE("keyed streams: the split pass takes a run of input in many steps, same results", "[keyed_split]") {
  // Small batches leave the split pass little worker room: at 1024 records per batch its steps are
  // ~3000-12000 records, so the one 480 KB run of input is split in many steps, each appended beside
  // the next one's staging. (1024 is also the smallest batch that keeps keyed streams: segments are
  // at most a batch and at least 1024 records. Smaller batches turn them off, and cost ~10 s per
  // case in thread wake-ups.)
  TempDir dir;
  std::vector<Edge> edges = random_edges(20011, 40000, 5);
  for (std::size_t i = 0; i < edges.size(); i += 3) edges[i].src %= 97;  // most records to partition 0
  const auto ini = write_graph(dir.path(), "g", edges, 20011);
  auto graph = read_graph_ini(ini);
  REQUIRE(graph.has_value());
  const auto cc_label = [](const CcProgram::Vertex& v) { return v.label; };
  const auto distance = [](const SsspProgram::Vertex& v) { return v.distance; };
  const auto scc_label = [](const SccProgram::Vertex& v) { return v.fw; };
  const auto cc_want = final_states(*graph, CcProgram{}, 1, 2, 0, true, dir.path(), cc_label);
  const auto sssp_want = final_states(*graph, SsspProgram{}, 1, 2, 0, true, dir.path(), distance);
  const auto scc_want = final_states(*graph, SccProgram{}, 1, 2, 0, true, dir.path(), scc_label);
  for (unsigned p : {1U, 2U, 3U}) {
    for (std::uint64_t batch : {std::uint64_t{1024}, std::uint64_t{0}}) {
      for (bool keyed : {true, false}) {
        INFO("-p " << p << ", batch " << batch << (keyed ? ", keyed" : ", input-order streams"));
        CHECK(final_states(*graph, CcProgram{}, 3, p, batch, keyed, dir.path(), cc_label) == cc_want);      // undirected
        CHECK(final_states(*graph, SsspProgram{}, 3, p, batch, keyed, dir.path(), distance) == sssp_want);  // 12-byte records
        CHECK(final_states(*graph, SccProgram{}, 3, p, batch, keyed, dir.path(), scc_label) == scc_want);   // reverse edges
      }
    }
  }
}

// BFS without settled(): every update is emitted, applied or spilled (the filter's reference).
struct BfsAllUpdates : BfsProgram {
  bool settled(const Vertex&, std::uint32_t) const = delete;
};
static_assert(ProgramWithSettled<BfsProgram>);
static_assert(!ProgramWithSettled<BfsAllUpdates>);

TEST_CASE("keyed streams: bfs drops the updates to settled vertices, same levels and parents", "[keyed_split]") {
  // A vertex reached before a superstep keeps its level and parent whatever that superstep offers,
  // so the keyed scatter drops those updates (Engine::settled_bits_). A reached vertex's parent is
  // still lowered by a smaller one of its own level (bfs.hpp), so dropping the updates of the
  // superstep that reaches it would show here as a different parent.
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(20011, 160000, 11), 20011);
  auto graph = read_graph_ini(ini);
  REQUIRE(graph.has_value());
  const auto run = [&](const auto& program, std::uint64_t k, unsigned p) {
    EngineOptions options;
    options.threads = p;
    options.forced_partitions = k;
    options.work_dirs = {dir.path()};
    std::vector<BfsProgram::Vertex> states(graph->vertices);
    const auto stats = run_engine(*graph, options, program, [&](VertexId first, std::span<const BfsProgram::Vertex> part) {
      std::copy(part.begin(), part.end(), states.begin() + first);
      return Status::ok();
    });
    REQUIRE(stats.has_value());
    CHECK((stats->plan.segment_records > 0) == (k > 1));
    return std::pair(states, *stats);
  };
  const auto want = run(BfsProgram{}, 1, 2).first;
  const auto levels = [](const std::vector<BfsProgram::Vertex>& v) {
    std::vector<std::uint64_t> out;
    for (const auto& x : v) out.push_back(BfsProgram::ordered(x.level, x.parent));
    return out;
  };
  std::uint64_t reached = 0;
  for (const auto& v : want) reached += v.level != BfsProgram::kUnreached ? 1 : 0;
  CHECK(reached > 10000);
  for (std::uint64_t k : {2U, 3U}) {
    for (unsigned p : {1U, 2U}) {
      INFO("K = " << k << ", -p " << p);
      const auto [all_states, all] = run(BfsAllUpdates{}, k, p);
      const auto [states, filtered] = run(BfsProgram{}, k, p);
      CHECK(levels(all_states) == levels(want));
      CHECK(levels(states) == levels(want));
      // Fewer updates, and fewer of them spilled to the other partitions' streams.
      CHECK(filtered.updates_emitted < all.updates_emitted);
      CHECK(filtered.updates_spilled < all.updates_spilled);
      CHECK(filtered.plan.settled_bytes > 0);
      CHECK(all.plan.settled_bytes == 0);
    }
  }
}

}  // namespace
