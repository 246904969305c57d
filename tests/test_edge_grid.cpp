// The edge grid (K = 1; core/block_schedule.hpp): the round-robin schedule covers every block pair
// exactly once with no block twice in a round; the engine gives the same results on the grid as on
// the input-order path, identical for every thread count, also when a program emits to vertices
// that are not an endpoint of the edge and the per-worker buffer overflows again and again. The
// on-disk grid (edges not in memory) gives the same bytes as the in-memory one whatever its
// window, slab and thread counts; a damaged grid or staging file is corruption naming it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/block_schedule.hpp"
#include "core/engine.hpp"
#include "io/fault_injection.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

TEST_CASE("block-pair schedule: every cell once, no block twice in a round", "[edge_grid]") {
  for (std::uint32_t blocks = 1; blocks <= 41; ++blocks) {
    INFO("blocks " << blocks);
    const auto rounds = block_pair_schedule(blocks);
    CHECK(rounds.size() == blocks + (blocks & 1U) - 1);
    std::vector<int> seen(block_cells(blocks), 0);
    for (const auto& round : rounds) {
      std::set<std::uint32_t> used;
      for (const BlockTask& task : round) {
        REQUIRE(task.cells >= 1);
        REQUIRE(task.cells <= 3);
        CHECK(used.insert(task.a).second);
        if (task.b != task.a && task.b < blocks) CHECK(used.insert(task.b).second);
        for (std::uint32_t c = 0; c < task.cells; ++c) {
          REQUIRE(task.cell[c] < seen.size());
          // The cell belongs to the task's blocks.
          const bool mine = task.cell[c] == block_cell(task.a, task.a) ||
                            (task.b < blocks && (task.cell[c] == block_cell(task.a, task.b) || task.cell[c] == block_cell(task.b, task.b)));
          CHECK(mine);
          ++seen[task.cell[c]];
        }
      }
    }
    for (std::size_t c = 0; c < seen.size(); ++c) {
      INFO("cell " << c);
      CHECK(seen[c] == 1);
    }
  }
  // block_cell is symmetric and dense.
  std::set<std::uint64_t> cells;
  for (std::uint32_t a = 0; a < 30; ++a) {
    for (std::uint32_t b = 0; b < 30; ++b) {
      CHECK(block_cell(a, b) == block_cell(b, a));
      cells.insert(block_cell(a, b));
    }
  }
  CHECK(cells.size() == block_cells(30));
  CHECK(*cells.rbegin() == block_cells(30) - 1);
}

TEST_CASE("grid bucketing: every edge has a bucket of the grid, never bucket 0 (side 0 of the diagonal cell {0, 0})", "[edge_grid]") {
  // (blocks, vertices per block): one block, a few, sub-buckets capped, more than 2^16 buckets.
  for (const auto& [blocks, shift] : {std::pair{1U, 16U}, std::pair{3U, 10U}, std::pair{64U, 16U}, std::pair{400U, 12U}}) {
    INFO("blocks " << blocks << " shift " << shift);
    const GridBucketing bucket_of = GridBucketing::of(blocks, shift);
    const std::uint64_t buckets = grid_buckets(blocks, bucket_of.sub_bits);
    const std::uint64_t vertices = std::uint64_t{blocks} << shift;
    std::vector<std::uint64_t> seen(buckets, 0);
    for (const Edge& e : random_edges(vertices, 200000, blocks)) {
      const std::uint64_t b = bucket_of(e.src, e.dst);
      REQUIRE(b < buckets);
      ++seen[b];
    }
    for (std::uint32_t v = 0; v < vertices; v += 7) ++seen[bucket_of(v, v)];  // loops: diagonal cells, side 1
    CHECK(seen[0] == 0);
    // Cell {0, 0} is used, on side 1: its buckets are 2^sub_bits onwards.
    const std::uint64_t subs = std::uint64_t{1} << bucket_of.sub_bits;
    CHECK(std::accumulate(seen.begin() + static_cast<std::ptrdiff_t>(subs), seen.begin() + static_cast<std::ptrdiff_t>(2 * subs), std::uint64_t{0}) > 0);
  }
}

TEST_CASE("grid pair ids: one per bucket a record can be in, fewer than the buckets", "[edge_grid]") {
  // One block, a few, sub-buckets capped, exactly 256 blocks (more than 2^16 buckets, 2^16 ids: 2
  // bytes), more than 256 (4 bytes).
  for (const auto& [blocks, shift] : {std::pair{1U, 16U}, std::pair{3U, 10U}, std::pair{64U, 16U}, std::pair{256U, 16U},
                                      std::pair{256U, 10U}, std::pair{400U, 12U}}) {
    INFO("blocks " << blocks << " shift " << shift);
    const GridBucketing bucket_of = GridBucketing::of(blocks, shift);
    const GridPairIds pair_id = GridPairIds::of(blocks, bucket_of);
    const std::uint64_t buckets = grid_buckets(blocks, bucket_of.sub_bits);
    const std::uint64_t subs = std::uint64_t{1} << bucket_of.sub_bits;
    CHECK(pair_id.pairs() == std::uint64_t{blocks} * blocks * subs);
    CHECK(pair_id.space() <= buckets);
    if (blocks == 256) {
      CHECK(buckets > (std::uint64_t{1} << 16));
      CHECK(pair_id.id_bytes() == 2);
    }
    if (blocks == 400) CHECK(pair_id.id_bytes() == 4);
    // Every id maps to a distinct bucket; the buckets no id maps to are the diagonal cells' side 0.
    std::vector<std::uint8_t> hit(buckets, 0);
    for (std::uint64_t id = 0; id < pair_id.pairs(); ++id) {
      const std::uint64_t b = pair_id.bucket(id);
      REQUIRE(b < buckets);
      CHECK(hit[b] == 0);
      hit[b] = 1;
    }
    CHECK(static_cast<std::uint64_t>(std::count(hit.begin(), hit.end(), 0)) == std::uint64_t{blocks} * subs);
    for (std::uint32_t x = 0; x < blocks; ++x) CHECK(hit[block_cell(x, x) << bucket_of.bucket_bits] == 0);
    // An edge's id names its bucket.
    const std::uint64_t vertices = std::uint64_t{blocks} << shift;
    for (const Edge& e : random_edges(vertices, 100000, blocks + shift)) {
      const std::uint64_t id = pair_id(e.src, e.dst);
      REQUIRE(id < pair_id.pairs());
      CHECK(pair_id.bucket(id) == bucket_of(e.src, e.dst));
    }
  }
}

TEST_CASE("edge grid: same results as input order, identical for every thread count", "[edge_grid]") {
  TempDir dir;
  const auto ini = skewed_graph(dir.path());
  for (const char* algo : {"pagerank", "bfs", "cc", "sssp", "degree_cnt", "scc", "mis", "mcst", "spmv", "bfs_forest",
                           "checkbip", "conductance"}) {
    INFO(algo);
    // Programs that read weights keep them in the grid (8 bytes: two block-local ids and the
    // weight); the others keep 4; --full_grid_records keeps the 12-byte input records.
    const bool reads_weights = std::string(algo) == "sssp" || std::string(algo) == "mcst" || std::string(algo) == "spmv";
    // input order -p 2, grid -p 1, grid -p 2, grid of whole records -p 2, grid -p 3 read in 16 KiB
    // chunks (the grid is placed by three tasks, each from the input runs of its third)
    std::string outputs[5];
    for (int variant = 0; variant < 5; ++variant) {
      std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-p", variant == 1 ? "1" : variant == 4 ? "3" : "2",
                                       "--physical_memory", "1G", "--cpu_cache_size", "16K",
                                       "--output", (dir / "out.txt").string(), "--verify"};
      if (variant == 0) args.push_back("--no_edge_grid");
      if (variant == 3) args.push_back("--full_grid_records");
      if (variant == 4) args.insert(args.end(), {"--read_chunk", "16K"});
      const auto r = run_driver_verified(args);
      CHECK(stat_value(r.out, "CORE::CONFIG::EDGE_GRID") == (variant == 0 ? "0" : "1"));
      if (variant > 0) {
        CHECK(stat_value(r.out, "CORE::CONFIG::GRID_RECORD_BYTES") == (variant == 3 ? "12" : reads_weights ? "8" : "4"));
      }
      outputs[variant] = slurp(dir / "out.txt");
    }
    // The grid is deterministic: the same bytes whatever the thread count and the record layout
    // (the same records in the same order; pagerank's per-vertex Source does the same division).
    CHECK(outputs[1] == outputs[2]);
    CHECK(outputs[2] == outputs[3]);
    CHECK(outputs[2] == outputs[4]);
    // Exact algorithms give the same bytes either way (floating-point sums may differ in the last
    // bits with the order of the edges; --verify checked them against the reference above).
    if (std::string(algo) != "pagerank" && std::string(algo) != "spmv" && std::string(algo) != "conductance") {
      CHECK(outputs[0] == outputs[1]);
    }
  }
}

TEST_CASE("edge grid: the active vertex bits skip only records that would emit nothing", "[edge_grid]") {
  // cc and sssp (programs that tell their active vertices and scatter from their states) skip a
  // grid record when its vertices' bits are clear (Engine::mark_active_vertices). Graphs of 23 (one
  // block of 32), 1000, 4099 and 20011 vertices (not whole 64-bit words of bits; blocks of 2^9 or
  // 2^10 with a 16 KiB CPU cache); in memory, on disk streamed (the states padded to whole blocks)
  // and kept in part: the same bytes as the input-order path, which has no bits, and --verify
  // against the reference; cc also on a symmetric input (the halved grid, both ways).
  TempDir dir;
  TempDir work;
  for (const std::uint64_t vertices : {23, 1000, 4099, 20011}) {
    for (const bool symmetric : {false, true}) {
      std::vector<Edge> edges = random_edges(vertices, vertices * 5, 31 + vertices);
      if (symmetric) edges = with_reverses(edges);
      const auto ini = write_graph(dir.path(), symmetric ? "sym" : "plain", edges, vertices);
      for (const char* algo : {"cc", "sssp"}) {
        if (symmetric && std::string(algo) == "sssp") continue;
        INFO(vertices << " vertices, " << (symmetric ? "symmetric " : "") << algo);
        const std::vector<std::vector<std::string>> variants = {
            {"--no_edge_grid"},
            {"-p", "1"},
            {"-p", "3"},
            {"--no_edge_cache", "--disk_grid", "on", "--stream_grid", "--grid_window", "16K"},
            {"--no_edge_cache", "--disk_grid", "on", "--grid_window", "16K", "--grid_codec", "ef", "--grid_memory", "48K"},
        };
        std::string expected;
        for (std::size_t variant = 0; variant < variants.size(); ++variant) {
          INFO("variant " << variant);
          std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "--physical_memory", "1G",
                                           "--cpu_cache_size", "16K", "--work_dir", work.path().string(),
                                           "--output", (dir / "out.txt").string(), "--verify"};
          args.insert(args.end(), variants[variant].begin(), variants[variant].end());
          if (variants[variant].front() != "-p") args.insert(args.end(), {"-p", "2"});
          const auto r = run_driver_verified(args);
          CHECK(stat_value(r.out, "CORE::CONFIG::EDGE_GRID") == (variant == 0 ? "0" : "1"));
          CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == (variant >= 3 ? "1" : "0"));
          if (variant == 0) {
            expected = slurp(dir / "out.txt");
          } else {
            CHECK(slurp(dir / "out.txt") == expected);
          }
        }
      }
    }
  }
}

TEST_CASE("edge grid: more than 2^16 buckets (no sub-buckets, 4-byte bucket ids while built)", "[edge_grid]") {
  // 300007 vertices in blocks of 2^10 or 2^9 (a 16 KiB CPU cache, 8- to 16-byte states): 293 or
  // 586 blocks, at least 43071 cells and 86142 buckets.
  TempDir dir;
  const auto ini = write_graph(dir.path(), "many", random_edges(300007, 400000, 11), 300007);
  for (const char* algo : {"bfs", "sssp", "pagerank"}) {
    INFO(algo);
    std::string outputs[3];  // input order -p 2, grid -p 2, grid -p 3 read in 16 KiB chunks
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-p", variant == 2 ? "3" : "2", "--physical_memory", "1G",
                                       "--cpu_cache_size", "16K", "--output", (dir / "out.txt").string(), "--verify"};
      if (variant == 0) args.push_back("--no_edge_grid");
      if (variant == 2) args.insert(args.end(), {"--read_chunk", "16K"});
      const auto r = run_driver_verified(args);
      CHECK(stat_value(r.out, "CORE::CONFIG::EDGE_GRID") == (variant == 0 ? "0" : "1"));
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == "0");
      // The grid's blocks (the cache partitions, at most 1024 of them): over 256 give over 2^16 buckets.
      const std::uint64_t blocks = std::stoull(stat_value(r.out, "CORE::CONFIG::CACHE_PARTITIONS"));
      CHECK(blocks > 256);
      CHECK(blocks <= 1024);
      outputs[variant] = slurp(dir / "out.txt");
    }
    if (std::string(algo) != "pagerank") CHECK(outputs[0] == outputs[1]);
    CHECK(outputs[1] == outputs[2]);
  }
}

// Runs the driver with `args` plus each --cpu_cache_size of `caches` in turn (each run must
// succeed) until one gives `partitions` cache partitions (CORE::CONFIG::CACHE_PARTITIONS), and
// returns that run; fails the test when none does.
ProcessResult run_with_cache_partitions(const std::vector<std::string>& args, std::initializer_list<const char*> caches,
                                        std::uint64_t partitions) {
  for (const char* cache : caches) {
    std::vector<std::string> with_cache = args;
    with_cache.insert(with_cache.end(), {"--cpu_cache_size", cache});
    ProcessResult r = run_driver_in_process(with_cache);
    INFO("--cpu_cache_size " << cache << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    if (std::stoull(stat_value(r.out, "CORE::CONFIG::CACHE_PARTITIONS")) == partitions) return r;
  }
  FAIL("no --cpu_cache_size tried gives " << partitions << " cache partitions");
  return {};
}

TEST_CASE("edge grid: blocks of 2^16 vertices (the by-destination scatter's constant mask) agree with blocks of 2^15", "[edge_grid]") {
  // 2^20 vertices, -p 2: a --cpu_cache_size that allows it gives 16 cache partitions of 2^16
  // vertices, and grid blocks as large (the largest block-local ids, whose records the in-place
  // scatter and PageRank's by-source degree count decode without masking); a smaller one gives 32
  // of 2^15 (masked ids).
  TempDir dir;
  const std::uint64_t vertices = std::uint64_t{1} << 20;
  const auto ini = write_graph(dir.path(), "wide", random_edges(vertices, 600000, 23), vertices);
  for (const char* algo : {"pagerank", "bfs"}) {
    INFO(algo);
    std::string outputs[2];
    const std::uint64_t partitions[2] = {16, 32};
    for (int i = 0; i < 2; ++i) {
      INFO("cache partitions " << partitions[i]);
      const auto r = run_with_cache_partitions({"-g", ini.string(), "-b", algo, "-p", "2", "--pagerank::niters", "4", "--physical_memory",
                                                "1G", "--output", (dir / "out.txt").string(), "--verify"},
                                               {"64M", "128K", "256K", "512K", "1M", "2M"}, partitions[i]);
      CHECK(r.out.find("Verification: PASS") != std::string::npos);
      CHECK(stat_value(r.out, "CORE::CONFIG::EDGE_GRID") == "1");
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == "0");
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_RECORD_BYTES") == "4");
      outputs[i] = slurp(dir / "out.txt");
    }
    if (std::string(algo) == "bfs") CHECK(outputs[0] == outputs[1]);  // (PageRank's sums: another order)
  }
}

TEST_CASE("edge grid: exactly 256 blocks (over 2^16 buckets, 2-byte pair ids while built), plain and halved", "[edge_grid]") {
  // 262100 vertices in blocks of 2^10: 256 blocks; --cpu_cache_size per algorithm so that its
  // state gives blocks of 2^10 vertices. cc reads a symmetric input one way (the halved grid).
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g256", random_edges(262100, 300000, 17), 262100);
  std::vector<Edge> half = random_edges(262100, 150000, 19);
  for (std::size_t i = 0; i < half.size(); i += 5) half[i].dst = half[i].src % 300;  // hubs, loops
  const auto sym = write_graph(dir.path(), "s256", with_reverses(half, /*keep_loops=*/true), 262100, EdgeFileType::kUnweighted);
  std::ofstream(sym, std::ios::app) << "symmetric=1\n";
  for (const char* algo : {"bfs", "sssp", "pagerank", "cc"}) {
    INFO(algo);
    const bool halved = std::string(algo) == "cc";
    std::string outputs[3];  // input order -p 2, grid -p 2, grid -p 3 read in 16 KiB chunks
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<std::string> args = {"-g", (halved ? sym : ini).string(), "-b", algo, "-p", variant == 2 ? "3" : "2",
                                       "--physical_memory", "1G", "--output", (dir / "out.txt").string(), "--verify"};
      if (variant == 0) args.push_back("--no_edge_grid");
      if (variant == 2) args.insert(args.end(), {"--read_chunk", "16K"});
      // The size that gives 2^10 vertices per block.
      const auto r = run_with_cache_partitions(args, {"8K", "16K", "32K", "64K"}, 256);
      CHECK(r.out.find("Verification: PASS") != std::string::npos);
      CHECK(stat_value(r.out, "CORE::CONFIG::EDGE_GRID") == (variant == 0 ? "0" : "1"));
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == "0");
      CHECK(stat_value(r.out, "CORE::CONFIG::SYMMETRIC_ONE_WAY") == (halved && variant > 0 ? "1" : "0"));
      outputs[variant] = slurp(dir / "out.txt");
    }
    if (std::string(algo) != "pagerank") CHECK(outputs[0] == outputs[1]);
    CHECK(outputs[1] == outputs[2]);
  }
}

TEST_CASE("on-disk grid: the same bytes as the in-memory grid whatever the codec, window, slabs and threads", "[edge_grid]") {
  TempDir dir;
  TempDir work;
  const auto ini = skewed_graph(dir.path());
  // 200000 edges: 800 KB of 4-byte grid records, 1.6 MB of 8-byte ones (programs reading weights).
  // Variant 1: windows of 1-2 MiB, one slab, resident once built (the budget holds it), hence
  // compressed (--grid_codec auto). Variants 2, 3 and 5 read the grid every superstep
  // (--stream_grid), compressed or not as asked. Variant 2:
  // 256 KiB windows, so 4 (4-byte) or 7 (8-byte) slabs of one window each, staged in one pass.
  // Variant 3: the same without compression, the input read in 64 KiB runs (staging counts the
  // groups of the first run apart, of the others while checking them). Variant 4: 64 KiB windows, resident: many windows in
  // memory at once. Variant 5: 16 KiB windows: too many slabs to stage, one input pass per slab,
  // and buckets cut by slab ends; one thread (three algorithms: 4- and 8-byte records, reverse
  // edges). Variants 1 and 4 build the grid in place (never written); variant 6 is variant 4
  // allowed to keep only 128 KiB that way: the windows kept so far stay, the rest is written and
  // read back once (the same three algorithms).
  const std::vector<std::vector<std::string>> variants = {
      {"-p", "2"},
      {"-p", "2", "--no_edge_cache", "--disk_grid", "on"},
      {"-p", "2", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "256K", "--stream_grid", "--grid_codec", "ef"},
      {"-p", "2", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "256K", "--grid_codec", "none", "--stream_grid",
       "--read_chunk", "64K"},
      {"-p", "2", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "64K"},
      {"-p", "1", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "16K", "--stream_grid", "--grid_codec", "ef"},
      {"-p", "2", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "64K", "--grid_keep_bytes", "128K"},
  };
  for (const char* algo : {"pagerank", "bfs", "cc", "sssp", "degree_cnt", "scc", "mis", "mcst", "spmv", "bfs_forest",
                           "checkbip", "conductance"}) {
    INFO(algo);
    const bool reads_weights = std::string(algo) == "sssp" || std::string(algo) == "mcst" || std::string(algo) == "spmv";
    std::string outputs[7];
    std::string grid_bytes[7];
    std::uint64_t written[7] = {};
    std::uint64_t read[7] = {};
    std::uint64_t kept[7] = {};
    const bool all_variants = std::string(algo) == "pagerank" || std::string(algo) == "sssp" || std::string(algo) == "scc";
    for (std::size_t variant = 0; variant < (all_variants ? variants.size() : 5); ++variant) {
      INFO("variant " << variant);
      std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "--physical_memory", "1G", "--cpu_cache_size", "16K",
                                       "--work_dir", work.path().string(), "--output", (dir / "out.txt").string(), "--verify"};
      args.insert(args.end(), variants[variant].begin(), variants[variant].end());
      const auto r = run_driver_verified(args);
      CHECK(stat_value(r.out, "CORE::CONFIG::PARTITIONS") == "1");
      CHECK(stat_value(r.out, "CORE::CONFIG::EDGE_GRID") == "1");
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_RECORD_BYTES") == (reads_weights ? "8" : "4"));
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == (variant == 0 ? "0" : "1"));
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_CODEC") == (variant == 0 || variant == 3 ? "none" : "ef"));
      CHECK(stat_value(r.out, "CORE::CONFIG::GRID_RESIDENT") == (variant == 1 || variant == 4 || variant == 6 ? "1" : "0"));
      const std::string window = stat_value(r.out, "CORE::CONFIG::GRID_WINDOW_BYTES");
      if (variant == 0) CHECK(window == "0");
      if (variant == 1) CHECK(window == (reads_weights ? "2097152" : "1048576"));
      if (variant == 2 || variant == 3) CHECK(window == "262144");
      if (variant == 4 || variant == 6) CHECK(window == "65536");
      if (variant == 5) CHECK(window == "16384");
      grid_bytes[variant] = stat_value(r.out, "CORE::CONFIG::GRID_FILE_BYTES");
      written[variant] = std::stoull(stat_value(r.out, "CORE::BYTES::EDGES_WRITTEN"));
      read[variant] = std::stoull(stat_value(r.out, "CORE::BYTES::EDGES_READ"));
      kept[variant] = std::stoull(stat_value(r.out, "CORE::CONFIG::GRID_KEPT_BYTES"));
      // Resident: all of it in memory; streamed (--stream_grid): none; in memory: no grid file.
      CHECK(kept[variant] == (variant == 1 || variant == 4 || variant == 6 ? std::stoull(grid_bytes[variant]) : 0));
      // Variant 1: one slab, built in place: no storage traffic after the input (but mcst's second
      // run, which orients the forest the first one wrote, counts that forest's edges).
      if (variant == 1 && std::string(algo) != "mcst") {
        CHECK(stat_value(r.out, "CORE::BYTES::EDGES_WRITTEN") == "0");
        CHECK(stat_value(r.out, "CORE::BYTES::EDGES_READ") == "0");
      } else if (variant > 0) {
        CHECK(stat_value(r.out, "CORE::BYTES::EDGES_WRITTEN") != "0");  // staging, or the grid too
      }
      CHECK(work.entries().empty());  // grid and staging files removed
      outputs[variant] = slurp(dir / "out.txt");
    }
    // Uncompressed: the records and their padding to whole pages; compressed: less (the skewed
    // graph's keys take about half).
    const std::uint64_t records = 200000 * (reads_weights ? 8 : 4);
    CHECK(std::stoull(grid_bytes[3]) >= records);
    CHECK(std::stoull(grid_bytes[3]) < records + 8 * 4096);
    CHECK(std::stoull(grid_bytes[2]) < records * (reads_weights ? 85 : 70) / 100);
    // Exact programs: the same bytes everywhere. Programs that add floating-point values
    // (PageRank, spmv, conductance) may differ in the last bits where the order of the edges does:
    // the compressed grid holds each bucket sorted by key (and cuts buckets larger than a slab,
    // variants 4 and 5). --verify checked each against the reference. The uncompressed on-disk grid
    // keeps input order inside each bucket and scatters like the in-memory one (PageRank's by
    // destination block: its on-disk grid is laid out by columns): the same bytes. The compressed
    // grid's bytes depend neither on the window while every bucket fits a slab, nor on residency.
    const bool exact = std::string(algo) != "pagerank" && std::string(algo) != "spmv" && std::string(algo) != "conductance";
    if (exact) {
      for (std::size_t variant = 1; variant < (all_variants ? variants.size() : 5); ++variant) {
        INFO("variant " << variant);
        CHECK(outputs[0] == outputs[variant]);
      }
    }
    CHECK(outputs[0] == outputs[3]);
    CHECK(outputs[1] == outputs[2]);
    if (all_variants) {
      // The same grid bytes and staging; variant 6 also wrote the windows after its first 128 KiB
      // and read them back.
      CHECK(outputs[4] == outputs[6]);
      CHECK(grid_bytes[4] == grid_bytes[6]);
      const std::uint64_t beyond = written[6] - written[4];
      CHECK(written[6] > written[4]);
      CHECK(beyond < std::stoull(grid_bytes[4]) - (64 << 10));  // at least one window of 64 KiB stayed
      CHECK(read[6] == read[4] + beyond);
    }
  }
}

TEST_CASE("on-disk grid kept in part: windows spread over it stay in memory, the rest is read every superstep", "[edge_grid]") {
  TempDir dir;
  TempDir work;
  const auto ini = skewed_graph(dir.path());
  // Room for two windows and half the grid (--grid_memory): the grid does not fit, so about every
  // other window stays in memory (never written; as many as leave two window buffers after them),
  // the rest streams every superstep. The same output, bytes written less by what stayed, fewer read.
  for (const char* codec : {"none", "ef"}) {
    for (const char* algo : {"bfs", "cc", "sssp", "pagerank"}) {
      INFO(codec << " " << algo);
      auto run = [&](const std::vector<std::string>& extra) {
        std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-p", "2", "--no_edge_cache", "--disk_grid", "on",
                                         "--grid_window", "64K", "--grid_codec", codec, "--physical_memory", "1G",
                                         "--work_dir", work.path().string(), "--output", (dir / "out.txt").string(), "--verify"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = run_driver_verified(args);
        CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == "1");
        CHECK(stat_value(r.out, "CORE::CONFIG::GRID_RESIDENT") == "0");
        CHECK(stat_value(r.out, "CORE::CONFIG::GRID_WINDOW_BYTES") == "65536");
        CHECK(work.entries().empty());
        return std::pair{r.out, slurp(dir / "out.txt")};
      };
      const auto [streamed, streamed_output] = run({"--stream_grid"});
      const std::uint64_t grid = std::stoull(stat_value(streamed, "CORE::CONFIG::GRID_FILE_BYTES"));
      CHECK(stat_value(streamed, "CORE::CONFIG::GRID_KEPT_BYTES") == "0");
      const std::string room = std::to_string(grid / 2 + 2 * 65536);
      const auto [partly, partly_output] = run({"--grid_memory", room});
      // The same room, none of it kept: the same staging, every window written and streamed.
      const auto [unkept, unkept_output] = run({"--grid_memory", room, "--grid_keep_bytes", "0"});
      const std::uint64_t kept = std::stoull(stat_value(partly, "CORE::CONFIG::GRID_KEPT_BYTES"));
      // (The file's size depends a little on the room: the staging groups are cut to the room, and
      // the slabs, each padded to whole pages, end at group boundaries. The same room, the same file.)
      const std::uint64_t partly_grid = std::stoull(stat_value(partly, "CORE::CONFIG::GRID_FILE_BYTES"));
      CHECK(partly_grid > grid - grid / 8);
      CHECK(partly_grid < grid + grid / 8);
      CHECK(kept >= partly_grid / 4);
      CHECK(kept < partly_grid);
      CHECK(kept % 4096 == 0);
      CHECK(stat_value(unkept, "CORE::CONFIG::GRID_FILE_BYTES") == std::to_string(partly_grid));
      CHECK(stat_value(unkept, "CORE::CONFIG::GRID_KEPT_BYTES") == "0");
      const auto bytes = [](const std::string& out, const char* key) { return std::stoull(stat_value(out, key)); };
      CHECK(bytes(partly, "CORE::BYTES::EDGES_WRITTEN") + kept == bytes(unkept, "CORE::BYTES::EDGES_WRITTEN"));
      // Every superstep that scatters reads less by the kept windows (all but the last, which
      // finds no active vertex; bfs's scatters stop early), give or take the windows read ahead
      // for a pass that does not come (window 0 or the first streamed one: at most one window).
      const std::uint64_t phases = bytes(partly, "CORE::PHASES");
      CHECK(phases == bytes(streamed, "CORE::PHASES"));
      const std::uint64_t saved_passes = std::string(algo) == "bfs" ? 1 : phases - 1;
      CHECK(bytes(partly, "CORE::BYTES::EDGES_READ") + saved_passes * kept <= bytes(unkept, "CORE::BYTES::EDGES_READ") + 65536);
      // The same records in the same order (windows only add barriers): the same bytes, PageRank too.
      CHECK(partly_output == streamed_output);
      CHECK(unkept_output == streamed_output);
    }
  }
}

TEST_CASE("on-disk grid: --disk_grid auto builds it unless the program announces fewer than 4 supersteps", "[edge_grid]") {
  TempDir dir;
  TempDir work;
  const auto ini = skewed_graph(dir.path());
  struct Case {
    std::vector<std::string> args;
    const char* on_disk;
  };
  // PageRank announces niters + 1 supersteps (auto: the grid from 4); bfs and cc announce none
  // (they run to convergence: the grid); degree_cnt announces 1, spmv 2 (streamed).
  for (const Case& c : {Case{{"-b", "pagerank", "--pagerank::niters", "3"}, "1"},
                        Case{{"-b", "pagerank", "--pagerank::niters", "2"}, "0"},
                        Case{{"-b", "bfs"}, "1"},
                        Case{{"-b", "cc"}, "1"},
                        Case{{"-b", "degree_cnt"}, "0"},
                        Case{{"-b", "spmv"}, "0"},
                        Case{{"-b", "degree_cnt", "--disk_grid", "on"}, "1"},
                        Case{{"-b", "bfs", "--disk_grid", "off"}, "0"},
                        Case{{"-b", "pagerank", "--pagerank::niters", "5", "--disk_grid", "off"}, "0"}}) {
    std::vector<std::string> args = {"-g", ini.string(), "-p", "2", "--no_edge_cache", "--work_dir", work.path().string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_driver_in_process(args);
    INFO(c.args[1] << " " << c.args.size() << " args\n" << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == c.on_disk);
  }
  const auto bad = run_driver_in_process({"-g", ini.string(), "-b", "bfs", "--disk_grid", "sometimes"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--disk_grid must be auto, on or off"));
  // --grid_codec auto: compressed when the grid then stays in memory, as it is when it is streamed.
  for (const bool stream : {false, true}) {
    std::vector<std::string> args = {"-g", ini.string(), "-b", "bfs", "-p", "2", "--no_edge_cache", "--work_dir", work.path().string()};
    if (stream) args.push_back("--stream_grid");
    const auto r = run_driver_in_process(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(stat_value(r.out, "CORE::CONFIG::GRID_CODEC") == (stream ? "none" : "ef"));
    CHECK(stat_value(r.out, "CORE::CONFIG::GRID_RESIDENT") == (stream ? "0" : "1"));
  }
  const auto bad_codec = run_driver_in_process({"-g", ini.string(), "-b", "bfs", "--grid_codec", "lz4"});
  CHECK(bad_codec.exit_code == 2);
  CHECK_THAT(bad_codec.err, Catch::Contains("--grid_codec must be auto, ef or none, got 'lz4'"));
}

TEST_CASE("on-disk grid: a flipped byte in the grid or staging file is corruption naming it", "[edge_grid]") {
  TempDir dir;
  TempDir work;
  const auto ini = skewed_graph(dir.path());
  // 64 KiB windows: a slab (and window) per 16384 4-byte records at most, 13 or more (too many to
  // stage through 128 KiB); 256 KiB windows: 4 slabs, staged in 8 group files.
  auto run = [&](const std::string& file, long long offset, const std::string& window, const std::vector<std::string>& extra) {
    fault_injection::Rule flip;
    flip.op = fault_injection::Op::kRead;
    flip.path_contains = file == "grid_group.7" ? std::string("grid_group.") : file;  // a group file's first read
    flip.times = 1;  // at the file's first read: the flipped byte is read later
    const std::filesystem::path scratch = work.path();
    auto flipped = std::make_shared<std::atomic<bool>>(false);
    flip.on_hit = [scratch, file, offset, flipped] { *flipped = flip_scratch_byte(scratch, file, offset, 0x10); };
    FaultGuard guard({flip});
    std::vector<std::string> args = {"-g", ini.string(), "-b", "pagerank", "--pagerank::niters", "3", "-p", "2",
                                     "--no_edge_cache", "--disk_grid", "on", "--grid_window", window, "--work_dir", work.path().string(),
                                     "--output", (dir / "out.txt").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = run_driver_in_process(args);
    CHECK(fault_injection::injected_count() == 1);
    CHECK(*flipped);  // checked here: the rule fires on the engine's I/O threads
    return r;
  };
  // The window and byte offset a checksum error names ("... window W (byte offset X, ...").
  auto named = [](const std::string& line) {
    const auto window = line.find("window ");
    const auto offset = line.find("byte offset ");
    REQUIRE(window != std::string::npos);
    REQUIRE(offset != std::string::npos);
    return std::pair{std::stoull(line.substr(window + 7)), std::stoull(line.substr(offset + 12))};
  };
  for (const char* codec : {"none", "ef", "ef --stream_grid"}) {
    // Byte 200000 of the file: in a window after the first (windows are at most 64 KiB), read after
    // the flip (when the grid is read back to stay in memory, or in the first superstep); a
    // record's bytes, or an Elias-Fano piece's (the compressed file is ~400 KB).
    // A grid that stays in memory is built in place and never written: --grid_keep_bytes 0 has it
    // written and read back, the path whose checks this covers.
    std::vector<std::string> options = {"--grid_codec", std::string(codec).substr(0, std::string(codec).find(' '))};
    if (std::string(codec).find("--stream_grid") != std::string::npos) {
      options.push_back("--stream_grid");
    } else {
      options.insert(options.end(), {"--grid_keep_bytes", "0"});
    }
    DYNAMIC_SECTION("grid file, --grid_codec " << codec) {
      const ProcessResult r = run("edge_grid", 200000, "64K", options);
      INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
      CHECK(r.exit_code == 1);
      const auto lines = message_lines(r.err);
      REQUIRE(lines.size() == 1);
      CHECK_THAT(lines[0], Catch::Contains("edge grid file " + work.path().string()) && Catch::Contains("edge_grid") &&
                               Catch::Contains("checksum mismatch in window"));
      const auto [window, offset] = named(lines[0]);
      CHECK(window >= 3);
      CHECK(offset % 4096 == 0);
      CHECK(offset <= 200000);
      CHECK(offset + 65536 > 200000);
    }
    DYNAMIC_SECTION("grid file without checksums, --grid_codec " << codec << ": the damaged ids stay inside their blocks, the run ends normally") {
      options.push_back("--no_scratch_checksums");
      const ProcessResult r = run("edge_grid", 200000, "64K", options);
      INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
      CHECK(r.exit_code == 0);
    }
  }
  SECTION("grid file kept in part: the windows kept are spread over it, the window named is the grid's") {
    // 14 windows of 48 or 64 KiB (slabs of 112 KiB: 64 + 48); room for two of them besides the two
    // window buffers (--grid_memory 256K). The kept windows are spread over the grid
    // (EngineBase::grid_spread_keeps: a fraction of 1/7 picks windows 3 and 7), stay in memory and
    // are never written: a byte flipped in the file where window 3 or 7 would be is never read.
    // A byte flipped in window 4 (after a kept one) is named as the whole grid streamed names it.
    for (const long long offset : {200000LL, 420000LL}) {
      INFO("offset " << offset);
      const ProcessResult kept = run("edge_grid", offset, "64K", {"--grid_codec", "none", "--grid_memory", "256K"});
      INFO("exit " << kept.exit_code << "\n" << kept.err);
      CHECK(kept.exit_code == 0);
    }
    const ProcessResult streamed = run("edge_grid", 250000, "64K", {"--grid_codec", "none", "--stream_grid"});
    const ProcessResult kept = run("edge_grid", 250000, "64K", {"--grid_codec", "none", "--grid_memory", "256K"});
    INFO("streamed: exit " << streamed.exit_code << "\n" << streamed.err << "kept: exit " << kept.exit_code << "\n" << kept.err);
    REQUIRE(streamed.exit_code == 1);
    REQUIRE(kept.exit_code == 1);
    const auto streamed_lines = message_lines(streamed.err);
    const auto kept_lines = message_lines(kept.err);
    REQUIRE(streamed_lines.size() == 1);
    REQUIRE(kept_lines.size() == 1);
    CHECK_THAT(kept_lines[0], Catch::Contains("checksum mismatch in window"));
    CHECK(named(kept_lines[0]) == named(streamed_lines[0]));
    CHECK(named(kept_lines[0]).first == 4);
    CHECK(named(kept_lines[0]).second == 229376);
  }
  SECTION("staging file") {
    // Group 7's last byte (the zero padding of its last block, under the block's crc), flipped
    // when the first read of any group file completes: group 7's blocks are the last slab's, whose
    // reads start once slab 0's are placed (the staged blocks of a slab are read at once,
    // EngineBase::build_staged; an earlier group's read could already be in flight).
    const ProcessResult r = run("grid_group.7", -1, "256K", {});
    INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
    CHECK(r.exit_code == 1);
    const auto lines = message_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains("edge grid staging file " + work.path().string()) &&
                             Catch::Contains("checksum mismatch at byte offset"));
  }
  CHECK(work.entries().empty());
}

// Emits to the destination and to a vertex unrelated to the edge, for `supersteps` supersteps.
// Integer sums, so every order gives the same result; the reference is closed-form.
struct RelayProgram {
  struct Vertex {
    std::uint64_t sum;
  };
  struct Update {
    std::uint32_t value;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 2;
  std::uint32_t vertices = 1;
  std::uint32_t supersteps = 3;

  VertexId elsewhere(const Edge& e) const { return static_cast<VertexId>((std::uint64_t{e.dst} * 7919 + 3) % vertices); }
  void init(VertexId, Vertex& v) const { v.sum = 0; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.dst, Update{e.src + 1});
    emit(elsewhere(e), Update{1});
  }
  bool gather(VertexId, Vertex& v, const Update& u, std::uint32_t) const {
    v.sum += u.value;
    return true;
  }
  static void combine(Update& into, const Update& from) { into.value += from.value; }
  bool done(const SuperstepStats& s) const { return s.superstep + 1 >= supersteps; }
};

// RelayProgram with a narrow Source and the promise to emit to edge destinations only, which it
// breaks (every edge also emits elsewhere): the in-memory grid scatters it by destination block
// (Engine::scatter_grid_lines_as), where the broken promise costs buffering, not correctness.
struct RelaySourceProgram : RelayProgram {
  struct Source {
    std::uint32_t unused;
  };
  Source source(const Vertex&, std::uint32_t) const { return Source{0}; }
  template <typename Emit>
  void scatter_source(const Source&, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    scatter(Vertex{}, e, superstep, emit);
  }
  bool emits_to_destination(std::uint32_t) const { return true; }
};
static_assert(ProgramWithSource<RelaySourceProgram> && ProgramWithTargets<RelaySourceProgram>);

// RelaySourceProgram that says its odd supersteps do not emit to the destinations (as PageRank's
// degree count, which emits to the sources): the in-memory grid scatters those by source block
// (Engine::scatter_grid_lines_as), where the updates to block(src) are applied at once.
struct RelayBySourceProgram : RelaySourceProgram {
  bool emits_to_destination(std::uint32_t superstep) const { return superstep % 2 == 0; }
};

// An arrival-order program (as test_grid_build.cpp's) that tells its active vertices (all, every
// superstep), so the grid orders each bucket's records by source (it also gets active vertex bits). Every vertex counts the
// updates whose source is below the one before it from the same block of 2^shift vertices
// (descents) and sums the sources. kWeights: grid records of 8 bytes (4 without).
template <bool kWeights>
struct ArrivalDescentProgram {
  struct Vertex {
    std::uint32_t last;
    std::uint32_t descents;
    std::uint64_t sum;
  };
  struct Update {
    std::uint32_t source;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = kWeights;
  unsigned shift = 0;  // the grid's blocks: 2^shift vertices

  void init(VertexId, Vertex& s) const { s = Vertex{0, 0, 0}; }
  bool active(const Vertex&, std::uint32_t) const { return true; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.dst, Update{e.src});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    s.descents += u.source < s.last && (u.source >> shift) == (s.last >> shift) ? 1 : 0;
    s.last = u.source;
    s.sum += u.source;
    return true;
  }
  bool done(const SuperstepStats&) const { return true; }
};
static_assert(ProgramWithActive<ArrivalDescentProgram<false>> && !ProgramWithSource<ArrivalDescentProgram<false>>);

// The same with a narrow Source and every update to the destination, as bfs: the in-memory grid
// is scattered by destination block (Engine::scatter_grid_lines_as), no active vertex bits, and
// with the promise kEmitsOnlyToDestination its updates are applied there without a test.
struct ArrivalDescentSourceProgram : ArrivalDescentProgram<false> {
  struct Source {
    std::uint8_t on;
  };
  Source source(const Vertex&, std::uint32_t) const { return Source{1}; }
  template <typename Emit>
  void scatter_source(const Source&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.dst, Update{e.src});
  }
  bool emits_to_destination(std::uint32_t) const { return true; }
  static constexpr bool kEmitsOnlyToDestination = true;
};
static_assert(ProgramWithActive<ArrivalDescentSourceProgram> && ProgramWithSource<ArrivalDescentSourceProgram> &&
              ProgramWithTargets<ArrivalDescentSourceProgram> && kProgramEmitsOnlyToDestination<ArrivalDescentSourceProgram>);
static_assert(!kProgramEmitsOnlyToDestination<RelaySourceProgram>);

// The same with the fused step scatter_gather (as bfs), counted: the in-place scatter chooses it or
// scatter_source and gather piece by piece (each line's first piece fused on odd lines only), so a
// run uses both, in record order either way.
struct ArrivalDescentFusedProgram : ArrivalDescentSourceProgram {
  std::atomic<std::uint64_t>* fused_calls = nullptr;
  InPlaceStep scatter_gather(const Source&, const Edge& e, std::uint32_t superstep, Vertex& dst) const {
    fused_calls->fetch_add(1, std::memory_order_relaxed);
    return InPlaceStep{true, gather(e.dst, dst, Update{e.src}, superstep)};
  }
};
static_assert(ProgramWithInPlaceStep<ArrivalDescentFusedProgram> && !ProgramWithInPlaceStep<ArrivalDescentSourceProgram>);

TEST_CASE("grid of a program that tells its active vertices: every bucket by source, in memory and on disk", "[edge_grid]") {
  // (In memory, unless the program scatters from a narrow Source: those buckets keep input order.)
  // A vertex's updates from one source block all come from one bucket (of cell {block(src),
  // block(dst)}), applied in record order; with each bucket's records by source (the in-memory
  // grid: sorted once placed) they arrive with no descent. (On disk the Elias-Fano keys give one
  // destination its sources in order in either key order: there this checks the decoded grid.)
  TempDir dir;
  const std::uint32_t V = kLongListsVertices;
  const std::vector<Edge> edges = long_in_lists_edges(33);
  const auto info = write_and_read_graph(dir.path(), edges, V);
  std::vector<std::uint64_t> sums(V, 0);
  for (const Edge& e : edges) sums[e.dst] += e.src;
  // where: 0 the in-memory grid, 1 on disk (Elias-Fano), 2 input order (no grid). Returns the
  // vertices that saw a descent (a count: Catch would print 30011 values).
  unsigned shift = 0;
  auto run = [&]<typename Program>(int where, std::size_t read_chunk, unsigned threads) {
    constexpr bool kWeights = Program::kReadsWeights;
    INFO("where " << where << " weights " << kWeights << " Source " << ProgramWithSource<Program> << " read chunk " << read_chunk
                  << " -p " << threads);
    EngineOptions options;
    options.threads = threads;
    options.cpu_cache_size = 16384;
    options.io.read_chunk = read_chunk;
    options.edge_grid = where < 2;
    if (where == 1) {
      options.cache_edges = false;
      options.disk_grid = DiskGrid::kOn;
      options.grid_codec = GridCodec::kEliasFano;
    }
    options.work_dirs = {dir.path()};
    Program program;
    program.shift = shift;
    std::atomic<std::uint64_t> fused_calls{0};
    if constexpr (ProgramWithInPlaceStep<Program>) program.fused_calls = &fused_calls;
    std::vector<typename Program::Vertex> states(V);
    auto stats = run_engine(info, options, program, [&](VertexId first, std::span<const typename Program::Vertex> got) {
      std::copy(got.begin(), got.end(), states.begin() + static_cast<std::ptrdiff_t>(first));
      return Status::ok();
    });
    REQUIRE(stats.has_value());
    CHECK((stats->plan.grid_bytes > 0) == (where < 2));
    CHECK((stats->plan.grid_window_bytes > 0) == (where == 1));
    if (where < 2) {
      CHECK(stats->plan.grid_record_bytes == (kWeights ? 8U : 4U));
      CHECK(stats->plan.grid_shift == shift);
    }
    std::size_t wrong_sums = 0;
    std::size_t descending = 0;
    for (std::uint32_t v = 0; v < V; ++v) {
      wrong_sums += states[v].sum != sums[v] ? 1 : 0;
      descending += states[v].descents > 0 ? 1 : 0;
    }
    CHECK(wrong_sums == 0);
    if constexpr (ProgramWithInPlaceStep<Program>) {  // one superstep (done() is true): each record once
      if (where < 2) {
        CHECK(fused_calls.load() > 0);
        CHECK(fused_calls.load() < edges.size());
      } else {
        CHECK(fused_calls.load() == 0);  // input order: no grid, no in-place scatter
      }
    }
    return descending;
  };
  {  // the blocks' size, from the plan
    EngineOptions options;
    options.cpu_cache_size = 16384;
    options.work_dirs = {dir.path()};
    auto stats = run_engine(info, options, ArrivalDescentProgram<false>{},
                            [](VertexId, std::span<const ArrivalDescentProgram<false>::Vertex>) { return Status::ok(); });
    REQUIRE(stats.has_value());
    shift = stats->plan.grid_shift;
    REQUIRE((V >> shift) >= 4);  // several blocks
  }
  CHECK(run.template operator()<ArrivalDescentProgram<false>>(2, std::size_t{4} << 20, 2) > 100);  // input order: the check can fail
  // A program that scatters from a narrow Source (as bfs) gets its in-memory buckets in input order
  // (EngineBase::load_grid_records: the sort would not pay): there descents remain.
  auto check_with = [&]<typename Program>() {
    for (const unsigned threads : {1U, 2U}) {
      if constexpr (ProgramWithSource<Program>) {
        CHECK(run.template operator()<Program>(0, std::size_t{4} << 20, threads) > 100);
      } else {
        CHECK(run.template operator()<Program>(0, std::size_t{4} << 20, threads) == 0);
      }
      CHECK(run.template operator()<Program>(1, std::size_t{64} << 10, threads) == 0);
    }
    // Runs of 341 records: the in-memory grid's sort scratch (a share of the run buffer) is
    // smaller than the largest buckets, sorted in pieces: right sums, not every bucket in order.
    CHECK(run.template operator()<Program>(0, 4096, 2) > 0);
  };
  check_with.template operator()<ArrivalDescentProgram<false>>();
  check_with.template operator()<ArrivalDescentProgram<true>>();
  check_with.template operator()<ArrivalDescentSourceProgram>();
  check_with.template operator()<ArrivalDescentFusedProgram>();
}

// The bounded-buffer checks below (their own tag, [edge_grid_buffer]: one CTest entry, started
// first, so that the longest part of the grid's tests does not finish last under the sanitizers).
enum class BufferScatter { kByPair, kByDestination, kAlternating };  // kAlternating: odd supersteps by source block

// Runs `program` (a relay: each edge's updates go to its destination and to program.elsewhere(e))
// on one random graph for buffers of 1 record, 7 records and the default, 1 and 2 threads, the grid
// in memory, on disk (resident) and none (input order): every update must arrive (the sums equal
// the closed form), and on a grid the updates applied at once must be exactly those the `scatter`
// schedule's tasks hold (the rest were buffered and routed).
template <typename Program>
void check_bounded_buffer(Program program, BufferScatter scatter) {
  TempDir dir;
  const std::uint32_t V = 5003;
  const std::vector<Edge> edges = random_edges(V, 8000, 9);
  const auto ini = write_graph(dir.path(), "g", edges, V);
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  program.vertices = V;
  std::vector<std::uint64_t> expected(V, 0);
  for (const Edge& e : edges) {
    expected[e.dst] += program.supersteps * std::uint64_t{e.src + 1};
    expected[program.elsewhere(e)] += program.supersteps;
  }
  for (const std::uint64_t batch : {1, 7, 0}) {  // 1: the buffer holds one record's updates
    for (const unsigned p : {1U, 2U}) {
      for (const int where : {0, 1, 2}) {  // the grid in memory, on disk (resident), none (input order)
        const bool grid = where < 2;
        INFO("batch " << batch << " -p " << p << (where == 0 ? " grid" : where == 1 ? " on-disk grid" : " input order")
                      << " scatter " << static_cast<int>(scatter));
        EngineOptions options;
        options.threads = p;
        options.batch_records = batch;
        options.cpu_cache_size = 8192;
        options.edge_grid = grid;
        if (where == 1) {
          options.cache_edges = false;
          options.disk_grid = DiskGrid::kOn;
        }
        options.work_dirs = {dir.path()};
        std::vector<std::uint64_t> result(V, 0);
        auto stats = run_engine(*info, options, program, [&](VertexId first, std::span<const typename Program::Vertex> states) {
          for (std::size_t i = 0; i < states.size(); ++i) result[first + i] = states[i].sum;
          return Status::ok();
        });
        REQUIRE(stats.has_value());
        CHECK(stats->plan.partitions == 1);
        CHECK((stats->plan.grid_bytes > 0) == grid);
        CHECK((stats->plan.grid_window_bytes > 0) == (where == 1));
        CHECK(stats->updates_emitted == std::uint64_t{program.supersteps} * 2 * edges.size());
        CHECK(result == expected);
        if (grid) {
          // Applied at once: updates inside the task's blocks — by destination block, exactly
          // those to block(dst); by source block, exactly those to block(src); by block pair, at
          // least those to block(src) or block(dst) (a diagonal cell's task in round 0 holds a
          // second block too). The rest were buffered.
          const unsigned shift = stats->plan.grid_shift;
          REQUIRE(V >> shift >= 4);  // several blocks, or the check tells nothing
          auto in_block = [&](VertexId v, VertexId of) { return (v >> shift) == (of >> shift); };
          std::uint64_t to_dst_block = 0;  // updates to block(dst)
          std::uint64_t to_src_block = 0;  // updates to block(src)
          std::uint64_t to_either = 0;     // updates to block(src) or block(dst)
          for (const Edge& e : edges) {
            for (const VertexId target : {e.dst, program.elsewhere(e)}) {
              to_dst_block += in_block(target, e.dst) ? 1 : 0;
              to_src_block += in_block(target, e.src) ? 1 : 0;
              to_either += in_block(target, e.dst) || in_block(target, e.src) ? 1 : 0;
            }
          }
          REQUIRE(to_src_block != to_dst_block);  // or the by-source supersteps could pass as by destination
          REQUIRE(stats->per_superstep.size() == program.supersteps);
          for (const SuperstepStats& superstep : stats->per_superstep) {
            INFO("superstep " << superstep.superstep);
            switch (scatter) {
              case BufferScatter::kByDestination: CHECK(superstep.direct == to_dst_block); break;
              case BufferScatter::kAlternating:
                CHECK(superstep.direct == (superstep.superstep % 2 == 0 ? to_dst_block : to_src_block));
                break;
              case BufferScatter::kByPair:
                CHECK(superstep.direct >= to_either);
                CHECK(superstep.direct < 2 * edges.size());
                break;
            }
          }
        }
      }
    }
  }
}

TEST_CASE("edge grid: updates to other vertices wait in a bounded buffer and all arrive (block pairs)", "[edge_grid_buffer]") {
  check_bounded_buffer(RelayProgram{}, BufferScatter::kByPair);
}

TEST_CASE("edge grid: updates to other vertices wait in a bounded buffer and all arrive (by destination block)",
          "[edge_grid_buffer]") {
  check_bounded_buffer(RelaySourceProgram{}, BufferScatter::kByDestination);
}

TEST_CASE("edge grid: updates to other vertices wait in a bounded buffer and all arrive (by source block on odd supersteps)",
          "[edge_grid_buffer]") {
  check_bounded_buffer(RelayBySourceProgram{}, BufferScatter::kAlternating);
}

}  // namespace
