// The edge grid's build (K = 1): the records of every bucket keep input order (or source order for
// a program that tells its active vertices, test_edge_grid.cpp), in memory and on disk, staged from
// the input check's entries or not, whatever the threads and the input's runs; the on-disk grid is
// staged in groups and read back once and ahead, and a run's share of a group larger than its
// staging buffer is moved by one task in input order. The on-disk cases carry their own tag
// ([grid_build]): the build runs threads (staging tasks, staged blocks read ahead by std::async), so
// the TSan run (scripts/sanitize.sh, which compiles only the files of its tags) takes them, without
// compiling test_edge_grid.cpp's seven engine instantiations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "tests/test_support.hpp"
#include "utils/mix64.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

// Every vertex hashes the sources of its in-edges in the order their updates arrive: in the grid
// scattered by block pair every update lands in the task's blocks, applied in record order, so
// the hashes tell the order of the records in each bucket.
struct ArrivalOrderProgram {
  struct Vertex {
    std::uint64_t hash;
  };
  struct Update {
    std::uint32_t source;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // grid records of 4 bytes (whole records: the input's 12)

  void init(VertexId v, Vertex& s) const { s.hash = v; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.dst, Update{e.src});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    s.hash = mix64(s.hash * 31 + u.source);
    return true;
  }
  bool done(const SuperstepStats&) const { return true; }
};

// The same with the weights (grid records of 8 bytes): every vertex hashes the sources and the
// weights of its in-edges in the order their updates arrive.
struct WeightedArrivalOrderProgram : ArrivalOrderProgram {
  struct Update {
    std::uint32_t source;
    float weight;
  };
  static constexpr bool kReadsWeights = true;

  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.dst, Update{e.src, e.weight});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    std::uint32_t weight_bits = 0;
    std::memcpy(&weight_bits, &u.weight, 4);
    s.hash = mix64(s.hash * 31 + (u.source | std::uint64_t{weight_bits} << 32));
    return true;
  }
};

// A run of an arrival-order program: its statistics and every vertex's hash.
struct ArrivalHashes {
  RunStats stats;
  std::vector<std::uint64_t> hashes;
};
template <typename Program>
ArrivalHashes arrival_hashes(const GraphInfo& info, const EngineOptions& options) {
  std::vector<std::uint64_t> hashes(info.vertices, 0);
  auto stats = run_engine(info, options, Program{}, [&](VertexId first, std::span<const typename Program::Vertex> states) {
    for (std::size_t i = 0; i < states.size(); ++i) hashes[first + i] = states[i].hash;
    return Status::ok();
  });
  REQUIRE(stats.has_value());
  return {std::move(*stats), std::move(hashes)};
}

// The options of the cases below: the in-memory grid, or (disk) the on-disk grid of records as they
// are (--grid_codec none) in 64 KiB windows, with at most grid_memory bytes of room.
EngineOptions grid_build_options(const std::filesystem::path& dir, unsigned threads, std::size_t read_chunk, bool disk,
                                 std::uint64_t grid_memory = UINT64_MAX) {
  EngineOptions options;
  options.threads = threads;
  options.cpu_cache_size = 16384;
  options.io.read_chunk = read_chunk;
  options.work_dirs = {dir};
  if (disk) {
    options.cache_edges = false;
    options.disk_grid = DiskGrid::kOn;
    options.grid_codec = GridCodec::kNone;
    options.grid_window = 64 << 10;
    options.grid_memory = grid_memory;
  }
  return options;
}

// How many vertices' hashes differ from `reference`'s (a count: Catch would print every value).
std::size_t count_differing(const std::vector<std::uint64_t>& hashes, const std::vector<std::uint64_t>& reference) {
  REQUIRE(hashes.size() == reference.size());
  std::size_t count = 0;
  for (std::size_t v = 0; v < hashes.size(); ++v) count += hashes[v] != reference[v] ? 1 : 0;
  return count;
}

TEST_CASE("in-memory grid: input order inside every bucket, whatever the threads and the input's runs", "[edge_grid]") {
  // The grid of block-local records is grouped while the input is read (each task's share of a
  // run, by placement group) and placed group by group; the grid of whole records is placed
  // from contiguous input ranges. Both keep each bucket's records in input order.
  TempDir dir;
  const std::uint32_t V = kLongListsVertices;
  const std::vector<Edge> edges = long_in_lists_edges(21);
  const auto info = write_and_read_graph(dir.path(), edges, V);
  auto run = [&](const GraphInfo& graph, unsigned threads, bool compact, std::size_t read_chunk) {
    EngineOptions options;
    options.threads = threads;
    options.cpu_cache_size = 16384;
    options.compact_grid = compact;
    options.io.read_chunk = read_chunk;
    options.work_dirs = {dir.path()};
    auto [stats, hashes] = arrival_hashes<ArrivalOrderProgram>(graph, options);
    CHECK(stats.plan.grid_bytes > 0);
    CHECK(stats.plan.grid_record_bytes == (compact ? 4 : 12));
    REQUIRE(stats.plan.grid_shift < 15);  // several blocks
    CHECK(stats.updates_emitted == edges.size());
    std::uint64_t direct = 0;
    for (const SuperstepStats& superstep : stats.per_superstep) direct += superstep.direct;
    CHECK(direct == edges.size());  // every update applied in record order
    return hashes;
  };
  const std::vector<std::uint64_t> whole = run(info, 2, false, std::size_t{4} << 20);
  auto differing = [&](const std::vector<std::uint64_t>& hashes) { return count_differing(hashes, whole); };
  // Not in input order: the hashes differ (the check above can fail).
  {
    std::vector<Edge> reversed(edges.rbegin(), edges.rend());
    TempDir other;
    CHECK(differing(run(write_and_read_graph(other.path(), reversed, V), 2, true, std::size_t{4} << 20)) > 1000);
  }
  for (const unsigned threads : {1U, 2U, 3U}) {
    for (const std::size_t chunk : {std::size_t{4} << 20, std::size_t{16384}, std::size_t{4096}}) {
      INFO("-p " << threads << " read chunk " << chunk);
      CHECK(differing(run(info, threads, true, chunk)) == 0);
    }
  }
}

TEST_CASE("on-disk grid of records as they are: input order inside every bucket, staged from the check's entries or not",
          "[grid_build]") {
  // The on-disk grid is staged in groups while the input is read (EngineBase::build_staged). From
  // its second run on, the grid takes the staged entries the check wrote (RunStats::grid_staged_from_check);
  // the first run, and runs too long for a group's buffer, are staged from the input again. Kept
  // as they are (--grid_codec none, not sorted), a bucket's records are in input order either way:
  // the arrival hashes equal the in-memory grid's of whole records, whose buckets keep input order
  // (the test above). Grid records of 4 bytes, and of 8 (a program that reads the weights).
  TempDir dir;
  const std::uint32_t V = kLongListsVertices;
  const std::vector<Edge> edges = long_in_lists_edges(23);
  const auto info = write_and_read_graph(dir.path(), edges, V);
  std::uint64_t from_check = 0;
  std::uint64_t serially = 0;
  const auto check_program = [&]<typename Program>(std::size_t disk_record_bytes) {
    INFO("grid records of " << disk_record_bytes << " bytes on disk");
    auto run = [&](bool disk, unsigned threads, std::size_t read_chunk, std::uint64_t grid_memory = UINT64_MAX) {
      INFO((disk ? "on disk" : "in memory") << " -p " << threads << " read chunk " << read_chunk << " grid memory " << grid_memory);
      EngineOptions options = grid_build_options(dir.path(), threads, read_chunk, disk, grid_memory);
      options.compact_grid = disk;  // in memory: whole records
      auto [stats, hashes] = arrival_hashes<Program>(info, options);
      CHECK(stats.plan.grid_record_bytes == (disk ? disk_record_bytes : 12));
      REQUIRE(stats.plan.grid_shift < 15);  // several blocks
      if (disk) {
        CHECK(stats.plan.grid_window_bytes == (64 << 10));
        CHECK(stats.plan.grid_file_bytes > 4 * (64 << 10));  // several slabs: staged, not placed from the input
      }
      from_check = stats.grid_staged_from_check;
      serially = stats.grid_runs_staged_serially;
      return hashes;
    };
    const std::vector<std::uint64_t> input_order = run(false, 2, std::size_t{4} << 20);
    CHECK(from_check == 0);
    auto differing = [&](const std::vector<std::uint64_t>& hashes) { return count_differing(hashes, input_order); };
    for (const unsigned threads : {1U, 2U, 3U}) {
      INFO("-p " << threads);
      // Runs of 1365 records: every run after the first staged from the check's entries.
      CHECK(differing(run(true, threads, 16384)) == 0);
      CHECK(from_check > 0);
      CHECK(from_check < edges.size());
      CHECK(from_check + 16384 / 12 >= edges.size());
      CHECK(serially == 0);
      // One run: staged from the input.
      CHECK(differing(run(true, threads, std::size_t{4} << 20)) == 0);
      CHECK(from_check == 0);
      // Small staging buffers, runs of 21845 records: a run's share of a group is more than a
      // buffer, so one task moves the run's entries, in order, flushing as it goes. (8-byte
      // records get a little more room: in 256 KiB, 3 tasks' staging blocks of 12-byte entries
      // would be smaller than a page of them, and the grid placed from the input.)
      CHECK(differing(run(true, threads, 256 << 10, (disk_record_bytes == 4 ? 256 : 320) << 10)) == 0);
      CHECK(from_check > 0);
      CHECK(serially > 0);
    }
    return input_order;
  };
  const std::vector<std::uint64_t> unweighted = check_program.template operator()<ArrivalOrderProgram>(4);
  const std::vector<std::uint64_t> weighted = check_program.template operator()<WeightedArrivalOrderProgram>(8);
  // The weights count in the hashes: a grid whose records lost them would fail the checks above.
  CHECK(count_differing(weighted, unweighted) > 1000);
}

// ArrivalOrderProgram undirected, each edge of a symmetric input used once per direction: the grid
// keeps one record of each pair (src <= dst: a halved grid), scattered both ways.
struct OneWayArrivalOrderProgram : ArrivalOrderProgram {
  static constexpr bool kUndirected = true;
  static constexpr bool kOneWayOnSymmetricInput = true;
};

TEST_CASE("halved grid (a symmetric input used one way), on disk staged from the check's packed entries or not, and in memory: the same order",
          "[grid_build]") {
  // A halved grid drops the reverse records while the input is checked, so the check's tasks pack
  // the entries of the records kept (EngineBase::build_staged), or the records kept (the in-memory
  // grid: EngineBase::load_grid_records). Kept as they are (--grid_codec none; the in-memory grid
  // of a program that does not tell its active vertices is not sorted), a bucket's records are in
  // input order: the arrival hashes do not depend on where or how the grid was built, nor on the
  // threads or the input's runs.
  TempDir dir;
  const std::uint32_t V = kLongListsVertices;
  const std::vector<Edge> edges = with_reverses(long_in_lists_edges(29));
  const auto ini = write_graph(dir.path(), "s", edges, V, EdgeFileType::kUnweighted);
  std::ofstream(ini, std::ios::app) << "symmetric=1\n";
  const auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  std::uint64_t from_check = 0;
  auto run = [&](unsigned threads, std::size_t read_chunk, bool disk = true) {
    INFO((disk ? "on disk" : "in memory") << " -p " << threads << " read chunk " << read_chunk);
    auto [stats, hashes] = arrival_hashes<OneWayArrivalOrderProgram>(*info, grid_build_options(dir.path(), threads, read_chunk, disk));
    CHECK(stats.symmetric_one_way);
    CHECK(stats.plan.grid_record_bytes == 4);
    REQUIRE(stats.plan.grid_shift < 15);  // several blocks
    if (disk) {
      CHECK(stats.plan.grid_window_bytes == (64 << 10));
      CHECK(stats.plan.grid_file_bytes > 4 * (64 << 10));  // several slabs: staged, not placed from the input
    } else {
      CHECK(stats.plan.grid_bytes > 0);
      CHECK(stats.plan.grid_records == edges.size() / 2);  // the records kept, placed
    }
    CHECK(stats.updates_emitted == edges.size());         // each record kept scattered both ways
    from_check = stats.grid_staged_from_check;
    return hashes;
  };
  const std::vector<std::uint64_t> staged_from_input = run(2, std::size_t{4} << 20);  // one run
  CHECK(from_check == 0);
  auto differing = [&](const std::vector<std::uint64_t>& hashes) { return count_differing(hashes, staged_from_input); };
  for (const unsigned threads : {1U, 2U, 3U}) {
    INFO("-p " << threads);
    // Runs of 2048 records (of which about half kept): every run after the first staged from the check's entries.
    CHECK(differing(run(threads, 16384)) == 0);
    CHECK(from_check > edges.size() / 2 - 2048);
    CHECK(from_check < edges.size() / 2);
    CHECK(differing(run(threads, std::size_t{4} << 20)) == 0);
    CHECK(from_check == 0);
    // In memory: each run's records kept packed by the check's tasks, then grouped and placed.
    for (const std::size_t chunk : {std::size_t{4} << 20, std::size_t{16384}, std::size_t{4096}}) {
      CHECK(differing(run(threads, chunk, false)) == 0);
    }
  }
}

TEST_CASE("on-disk grid: staged in groups, read back once and ahead, with 2 threads", "[grid_build]") {
  TempDir dir;
  TempDir work;
  const auto ini = skewed_graph(dir.path());
  // 64 KiB windows: a dozen slabs, so the build stages (the grid is more than one slab); records
  // of 4 bytes (bfs, cc) and 8 (sssp: weights), compressed or not, resident or streamed.
  for (const char* codec : {"none", "ef"}) {
    for (const char* algo : {"bfs", "cc", "sssp"}) {
      for (const bool stream : {false, true}) {
        INFO(codec << " " << algo << (stream ? " --stream_grid" : ""));
        std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-p", "2", "--no_edge_cache", "--disk_grid", "on",
                                         "--grid_window", "64K", "--grid_codec", codec, "--physical_memory", "1G",
                                         "--work_dir", work.path().string(), "--verify"};
        if (stream) args.emplace_back("--stream_grid");
        const auto r = run_driver_verified(args);
        CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == "1");
        const std::uint64_t raw = std::stoull(stat_value(r.out, "CORE::CONFIG::GRID_RECORDS")) *
                                  std::stoull(stat_value(r.out, "CORE::CONFIG::GRID_RECORD_BYTES"));
        CHECK(raw > 4 * 2 * 65536);  // several slabs (at most two windows of records each): staged, not placed from the input
        CHECK(work.entries().empty());
      }
    }
  }
}

TEST_CASE("on-disk grid: a run whose share of a group outgrows the group's staging buffer is staged by one task, in order",
          "[grid_build]") {
  // Small staging buffers (--grid_memory) and long runs (--read_chunk): each run's entries of a
  // group (from the input's check) are more than a whole buffer, so one task moves them in input
  // order, flushing the buffer whenever it fills (EngineBase::build_staged). The outputs equal
  // those of the same runs with the input in memory and no grid (input order).
  TempDir dir;
  TempDir work;
  const auto ini = skewed_graph(dir.path());
  for (const char* algo : {"bfs", "cc", "pagerank"}) {
    INFO(algo);
    auto run = [&](const std::vector<std::string>& extra) {
      std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-p", "2", "--pagerank::niters", "3", "--physical_memory", "1G",
                                       "--work_dir", work.path().string(), "--output", (dir / "out.txt").string(), "--verify"};
      args.insert(args.end(), extra.begin(), extra.end());
      const auto r = run_driver_verified(args);
      CHECK(work.entries().empty());
      return std::pair{r.out, slurp(dir / "out.txt")};
    };
    const auto [plain_stats, plain] = run({"--no_edge_grid"});
    for (const char* codec : {"none", "ef"}) {
      INFO(codec);
      const auto [stats, output] = run({"--no_edge_cache", "--disk_grid", "on", "--grid_window", "64K", "--grid_memory", "256K",
                                        "--read_chunk", "1M", "--grid_codec", codec});
      CHECK(stat_value(stats, "CORE::CONFIG::GRID_ON_DISK") == "1");
      CHECK(std::stoull(stat_value(stats, "CORE::GRID::STAGED_FROM_CHECK")) > 0);
      CHECK(std::stoull(stat_value(stats, "CORE::GRID::RUNS_STAGED_SERIALLY")) > 0);
      if (std::string(algo) != "pagerank") CHECK(output == plain);  // (PageRank's sums: another order)
    }
  }
}

}  // namespace
