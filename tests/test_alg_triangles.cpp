// Tests of -b triangle_counting (exact out-of-core counter and the approximate min-hash estimator)
// and -b reverse: hand-drawn graphs with known answers, random and skewed graphs against the
// in-memory reference (itself checked against brute force), identical results across block counts,
// memory budgets, -p and I/O modes, the real-graph facts, and reverse's round trip and refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "algorithms/reverse.hpp"
#include "algorithms/triangle_counting.hpp"
#include "core/cancellation.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

using Config = DriverConfig;
const Config kConfigs[] = {{"1", "1", true}, {"3", "2", false}, {"7", "1", true}, {"2", "2", true}};

// Runs the exact counter through the driver in every configuration (--verify); returns the
// per-vertex counts of each run and checks the total line.
std::vector<std::vector<std::uint64_t>> run_exact_all(const std::filesystem::path& ini, std::uint64_t want_total) {
  std::vector<std::vector<std::uint64_t>> all;
  for (const Config& c : kConfigs) {
    const DriverRun r = run_driver_config(ini, "triangle_counting", c);
    INFO(describe(c));
    CHECK(stat_value(r.proc.out, "ALGORITHM::TRIANGLE_COUNTING::TRIANGLES") == std::to_string(want_total));
    std::vector<std::uint64_t> counts;
    for (const auto& row : r.rows) {
      REQUIRE(row.size() == 1);
      counts.push_back(std::stoull(row[0]));
    }
    all.push_back(counts);
  }
  return all;
}

// O(V^3) brute force on the undirected simple view: the yardstick for the reference itself.
TriangleCounts brute_force(const std::vector<Edge>& edges, std::uint64_t n) {
  std::vector<std::vector<char>> adj(n, std::vector<char>(n, 0));
  for (const Edge& e : edges) {
    if (e.src != e.dst) adj[e.src][e.dst] = adj[e.dst][e.src] = 1;
  }
  TriangleCounts t;
  t.per_vertex.assign(n, 0);
  for (std::uint64_t a = 0; a < n; ++a)
    for (std::uint64_t b = a + 1; b < n; ++b)
      for (std::uint64_t c = b + 1; c < n; ++c)
        if (adj[a][b] && adj[b][c] && adj[a][c]) {
          ++t.total;
          ++t.per_vertex[a];
          ++t.per_vertex[b];
          ++t.per_vertex[c];
        }
  return t;
}

Expected<TriangleCounts> exact(const std::filesystem::path& ini, unsigned threads, std::uint64_t blocks, bool direct,
                               ExactTriangleStats* detail_out = nullptr) {
  ES_ASSIGN_OR_RETURN(const GraphInfo g, read_graph_ini(ini));
  EngineOptions o;
  o.threads = threads;
  o.forced_partitions = blocks;
  o.io.direct = direct;
  o.physical_memory = std::uint64_t{8} << 30;
  RunStats stats;
  ExactTriangleStats detail;
  auto r = count_triangles_exact(g, o, stats, detail);
  if (detail_out != nullptr) *detail_out = detail;
  return r;
}

}  // namespace

TEST_CASE("triangle_counting: K4 has 4 triangles, 3 through each vertex", "[alg_triangles]") {
  TempDir dir;
  // Each undirected edge listed once, in mixed directions.
  const std::vector<Edge> k4 = {{0, 1, 1}, {2, 0, 1}, {0, 3, 1}, {1, 2, 1}, {3, 1, 1}, {2, 3, 1}};
  const auto ini = write_graph(dir.path(), "k4", k4, 4);
  for (const auto& counts : run_exact_all(ini, 4)) CHECK(counts == std::vector<std::uint64_t>{3, 3, 3, 3});
}

TEST_CASE("triangle_counting: duplicates, both directions and self-loops are ignored", "[alg_triangles]") {
  TempDir dir;
  // Triangle 0-1-2 (0->1 three times, 1->0, 2->2 loop, 1->2 and 2->1, 0->2), pendant 2-3, loop 4->4,
  // and a path 5-6-7 that is not closed. One triangle.
  const std::vector<Edge> edges = {{0, 1, 1}, {0, 1, 1}, {1, 0, 1}, {0, 1, 1}, {2, 2, 1}, {1, 2, 1}, {2, 1, 1},
                                   {0, 2, 1}, {2, 3, 1}, {4, 4, 1}, {5, 6, 1}, {6, 7, 1}, {7, 7, 1}};
  const auto ini = write_graph(dir.path(), "dups", edges, 8, EdgeFileType::kUnweighted);
  for (const auto& counts : run_exact_all(ini, 1)) {
    CHECK(counts == std::vector<std::uint64_t>{1, 1, 1, 0, 0, 0, 0, 0});
  }
}

TEST_CASE("triangle_counting: empty graph and graph without triangles", "[alg_triangles]") {
  TempDir dir;
  const auto empty = write_graph(dir.path(), "empty", {}, 5);
  for (const auto& counts : run_exact_all(empty, 0)) CHECK(counts == std::vector<std::uint64_t>(5, 0));
  // A 4-cycle, vertex 4 joined to the opposite corners 0 and 2, and a pendant 5: no triangles.
  const std::vector<Edge> edges = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 0, 1}, {4, 0, 1}, {2, 4, 1}, {5, 4, 1}};
  const auto ini = write_graph(dir.path(), "c4", edges, 6);
  for (const auto& counts : run_exact_all(ini, 0)) CHECK(counts == std::vector<std::uint64_t>(6, 0));
}

TEST_CASE("triangle_counting: the reference equals brute force on small random graphs", "[alg_triangles]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const std::uint64_t n = 5 + seed * 2;
    InMemoryGraph g;
    g.vertices = n;
    g.edges = random_edges(n, n * 3, seed);
    const TriangleCounts ref = reference_triangle_counts(g);
    const TriangleCounts bf = brute_force(g.edges, n);
    INFO("seed " << seed);
    CHECK(ref.total == bf.total);
    CHECK(ref.per_vertex == bf.per_vertex);
  }
}

TEST_CASE("triangle_counting: random and skewed graphs equal the reference for every block count and -p",
          "[alg_triangles]") {
  TempDir dir;
  std::vector<std::filesystem::path> graphs;
  graphs.push_back(write_graph(dir.path(), "er", random_edges(3000, 40000, 7), 3000));
  graphs.push_back(write_graph(dir.path(), "dense", random_edges(200, 6000, 9), 200, EdgeFileType::kUnweighted));
  const auto rmat = dir / "rmat";
  const ProcessResult gen = run_tool("rmat", {"--name", rmat.string(), "--scale", "13", "--edges", "120000"});
  REQUIRE(gen.exit_code == 0);
  graphs.push_back(rmat.string() + ".ini");
  for (const auto& ini : graphs) {
    auto info = read_graph_ini(ini);
    REQUIRE(info.has_value());
    auto g = load_graph_in_memory(*info);
    REQUIRE(g.has_value());
    const TriangleCounts ref = reference_triangle_counts(*g);
    CHECK(ref.total > 0);
    std::uint64_t sum = 0;
    for (auto c : ref.per_vertex) sum += c;
    CHECK(sum == 3 * ref.total);
    for (const std::uint64_t blocks : {1, 2, 5, 13}) {
      for (const unsigned p : {1U, 2U}) {
        ExactTriangleStats detail;
        auto got = exact(ini, p, blocks, blocks % 2 == 1, &detail);
        INFO(ini.string() << " blocks " << blocks << " -p " << p);
        REQUIRE(got.has_value());
        CHECK(detail.blocks >= std::min<std::uint64_t>(blocks, 2));
        CHECK(got->total == ref.total);
        CHECK(got->per_vertex == ref.per_vertex);
      }
    }
  }
}

TEST_CASE("triangle_counting: a budget that forces several blocks gives identical counts within it",
          "[alg_triangles]") {
  TempDir dir;
  const auto rmat = dir / "rmat";
  const ProcessResult gen = run_tool("rmat", {"--name", rmat.string(), "--scale", "16", "--edges", "2000000"});
  REQUIRE(gen.exit_code == 0);
  std::string total;
  std::string outputs[2];
  // The arrays and stream buffers need ~17 MiB (the process baseline varies by machine); 20M leaves
  // >= 3 MiB for the adjacency of a block (4 blocks here). Sanitizers add 45-100 MiB of baseline (it
  // varies by build): there the small budget is larger and -k asks for blocks.
  const char* budgets[2] = {"1G", kSanitized ? "256M" : "20M"};
  const std::uint64_t small_budget = (kSanitized ? std::uint64_t{256} : std::uint64_t{20}) << 20;
  for (int b = 0; b < 2; ++b) {
    TempDir work;
    const auto output = dir / ("out" + std::to_string(b));
    std::vector<std::string> args = {"-g", rmat.string(), "-b", "triangle_counting", "-p", "2", "--physical_memory",
                                     budgets[b], "--work_dir", work.path().string(), "--output", output.string()};
    if (b == 1) args.push_back("--verify");
    if (b == 1 && kSanitized) {
      args.push_back("-k");
      args.push_back("5");
    }
    const ProcessResult r = run_tool("benchmark_driver", args);
    INFO("budget " << budgets[b] << "\nstdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string blocks = stat_value(r.out, "ALGORITHM::TRIANGLE_COUNTING::BLOCKS");
    if (b == 0) {
      CHECK(blocks == "1");
      total = stat_value(r.out, "ALGORITHM::TRIANGLE_COUNTING::TRIANGLES");
    } else {
      CHECK(std::stoull(blocks) > 2);
      CHECK(r.out.find("Verification: PASS") != std::string::npos);
      CHECK(stat_value(r.out, "ALGORITHM::TRIANGLE_COUNTING::TRIANGLES") == total);
      CHECK(std::stoull(stat_value(r.out, "CORE::UTILS::PEAK_RSS")) <= small_budget);
    }
    CHECK(work.entries().empty());
    outputs[b] = slurp(output);
  }
  CHECK(!outputs[0].empty());
  CHECK(outputs[0] == outputs[1]);
}

TEST_CASE("triangle_counting: a budget below the per-vertex arrays is refused with the need", "[alg_triangles]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "big", random_edges(4000000, 10, 3), 4000000, EdgeFileType::kUnweighted);
  const ProcessResult r = run_tool("benchmark_driver", {"-g", ini.string(), "-b", "triangle_counting",
                                                        "--physical_memory", "16M"});
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("12 bytes per vertex") != std::string::npos);
}

TEST_CASE("triangle_counting: real-graph facts (self-loops never counted)", "[alg_triangles]") {
  struct Fact {
    const char* file;
    std::uint64_t triangles;
    std::uint64_t blocks;
  };
  const Fact facts[] = {{"email-enron-undirected.txt.gz", 727044, 3},
                        {"facebook-combined-undirected.txt.gz", 1612010, 1},
                        {"ego-twitter-undirected.txt.gz", 13082506, 4},
                        {"soc-slashdot0902-directed.txt.gz", 602592, 5}};
  for (const Fact& f : facts) {
    const auto ini = real_graph(f.file);
    for (const std::uint64_t blocks : {std::uint64_t{1}, f.blocks}) {
      ExactTriangleStats detail;
      auto got = exact(ini, 2, blocks, blocks == 1, &detail);
      INFO(f.file << " blocks " << blocks);
      REQUIRE(got.has_value());
      CHECK(got->total == f.triangles);
      std::uint64_t sum = 0;
      for (auto c : got->per_vertex) sum += c;
      CHECK(sum == 3 * f.triangles);
      if (blocks > 1) CHECK(detail.blocks > 1);
    }
  }
  // One through the driver with --verify (the reference agrees vertex by vertex).
  const ProcessResult r = run_driver_in_process(
      {"-g", real_graph("email-enron-undirected.txt.gz").string(), "-b", "triangle_counting", "-p", "2", "-k", "3", "--verify"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("Verification: PASS") != std::string::npos);
  CHECK(stat_value(r.out, "ALGORITHM::TRIANGLE_COUNTING::TRIANGLES") == "727044");
}

TEST_CASE("triangle_counting: approximate min-hash estimator is deterministic and in range", "[alg_triangles]") {
  TempDir dir;
  // A symmetric graph (both directions listed), as X-Stream's estimator expects.
  const std::vector<Edge> edges = with_reverses(random_edges(300, 3000, 11));
  const auto ini = write_graph(dir.path(), "sym", edges, 300);
  InMemoryGraph g;
  g.vertices = 300;
  g.edges = edges;
  const double exact_total = static_cast<double>(reference_triangle_counts(g).total);
  std::string first_total;
  std::string first_output;
  for (const Config& c : kConfigs) {
    TempDir work;
    const auto output = dir / "approx.txt";
    std::vector<std::string> args = {"-g", ini.string(), "-b", "triangle_counting", "--triangle_counting::approximate",
                                     "--triangle_counting::niters", "16", "-k", c.k, "-p", c.p, "--work_dir",
                                     work.path().string(), "--output", output.string(), "--verify"};
    if (!c.direct) args.push_back("--no_dio");
    const ProcessResult r = run_driver_verified(args);
    CHECK(stat_value(r.out, "ALGORITHM::TRIANGLE_COUNTING::MODE") == "approximate");
    const std::string total = stat_value(r.out, "ALGORITHM::TRIANGLE_COUNTING::TRIANGLES");
    const double estimate = std::stod(total);
    CHECK(estimate > exact_total / 3);
    CHECK(estimate < exact_total * 3);
    if (first_total.empty()) {
      first_total = total;
      first_output = slurp(output);
    } else {
      CHECK(total == first_total);
      CHECK(slurp(output) == first_output);
    }
  }
  const ProcessResult bad = run_driver_in_process({"-g", ini.string(), "-b", "triangle_counting",
                                                   "--triangle_counting::approximate", "--triangle_counting::niters", "17"});
  CHECK(bad.exit_code != 0);
  CHECK(bad.err.find("--triangle_counting::niters") != std::string::npos);
}

TEST_CASE("reverse: twice gives the original, the reversed graph runs bfs, weights and type kept", "[alg_triangles]") {
  TempDir dir;
  for (const EdgeFileType type : {EdgeFileType::kWeighted, EdgeFileType::kUnweighted}) {
    const auto ini = write_graph(dir.path(), "g", random_edges(500, 20000, 5), 600, type);
    const auto edge_file = dir / "g";
    for (const bool direct : {true, false}) {
      std::vector<std::string> io = {"--read_chunk", "4K", "--write_chunk", "8K"};
      if (!direct) io.push_back("--no_dio");
      // Default target: "<edge file>-rev" beside the input.
      std::vector<std::string> a1 = {"-g", ini.string(), "-b", "reverse", "--verify"};
      a1.insert(a1.end(), io.begin(), io.end());
      const ProcessResult r1 = run_driver_verified(a1);
      CHECK(stat_value(r1.out, "ALGORITHM::REVERSE::EDGES") == "20000");
      const auto rev_ini = dir / "g-rev.ini";
      auto info = read_graph_ini(rev_ini);
      REQUIRE(info.has_value());
      CHECK(info->vertices == 600);
      CHECK(info->type == type);
      // --output PATH: edge file PATH and PATH.ini.
      const auto back = dir / "back";
      std::vector<std::string> a2 = {"-g", rev_ini.string(), "-b", "reverse", "--output", back.string()};
      a2.insert(a2.end(), io.begin(), io.end());
      const ProcessResult r2 = run_driver_in_process(a2);
      INFO(r2.out << r2.err);
      REQUIRE(r2.exit_code == 0);
      CHECK(slurp(back) == slurp(edge_file));
      CHECK(slurp(dir / "g-rev") != slurp(edge_file));
      auto back_info = read_graph_ini(dir / "back.ini");
      REQUIRE(back_info.has_value());
      CHECK(back_info->edges == 20000);
      // No temporary files left behind.
      for (const auto& name : dir.entries()) CHECK(name.find(".tmp-") == std::string::npos);
    }
  }
  // bfs on the reversed graph = hops along in-edges of the original.
  const std::vector<Edge> path = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {4, 3, 1}};
  const auto ini = write_graph(dir.path(), "p", path, 5);
  REQUIRE(run_driver_in_process({"-g", ini.string(), "-b", "reverse"}).exit_code == 0);
  const auto out = dir / "bfs.txt";
  const ProcessResult b = run_driver_in_process({"-g", (dir / "p-rev.ini").string(), "-b", "bfs", "--bfs::root", "3",
                                                 "--output", out.string(), "--verify"});
  INFO(b.out << b.err);
  REQUIRE(b.exit_code == 0);
  const auto rows = read_output(out);
  REQUIRE(rows.size() == 5);
  CHECK(rows[3][0] == "0");
  CHECK(rows[2][0] == "1");
  CHECK(rows[4][0] == "1");
  CHECK(rows[1][0] == "2");
  CHECK(rows[0][0] == "3");
}

TEST_CASE("reverse: never overwrites the input", "[alg_triangles]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(50, 200, 2), 50);
  const std::string before = slurp(dir / "g");
  const std::string before_ini = slurp(ini);
  // --output naming the edge file or the .ini: the driver refuses before the run.
  for (const auto& target : {dir / "g", ini}) {
    const ProcessResult r = run_driver_in_process({"-g", ini.string(), "-b", "reverse", "--output", target.string()});
    CHECK(r.exit_code != 0);
  }
  // --output X where X.ini is the input's .ini (an .ini whose edge file has another name).
  const auto other_ini = dir / "h.ini";
  std::filesystem::copy_file(ini, other_ini);
  {
    std::string text = slurp(other_ini);
    // name=g stays: h.ini describes edge file g. Then --output h would write h.ini = the input .ini.
    const ProcessResult r = run_driver_in_process({"-g", other_ini.string(), "-b", "reverse", "--output", (dir / "h").string()});
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("never overwritten") != std::string::npos);
    CHECK(slurp(other_ini) == text);
  }
  // Directly through the API as well.
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  IoCounters rio;
  IoCounters wio;
  CHECK(!write_reversed_graph(*info, ReverseTarget{dir / "g", dir / "g.ini"}, IoOptions{}, &rio, &wio).has_value());
  CHECK(!write_reversed_graph(*info, ReverseTarget{dir / "x", ini}, IoOptions{}, &rio, &wio).has_value());
  CHECK(slurp(dir / "g") == before);
  CHECK(slurp(ini) == before_ini);
  CHECK(!std::filesystem::exists(dir / "x"));
}

TEST_CASE("triangle_counting: a run stopped while its scratch files exist removes them", "[alg_triangles]") {
  TempDir dir;
  TempDir work;
  const auto ini = write_graph(dir.path(), "er", random_edges(20000, 300000, 4), 20000, EdgeFileType::kUnweighted);
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  EngineOptions o;
  o.threads = 1;
  o.forced_partitions = 40;
  o.work_dirs = {work.path()};
  o.io.read_chunk = 4096;  // many small chunks: the cancellation is seen quickly
  std::atomic<bool> fired{false};
  std::atomic<bool> stop{false};
  std::thread watcher([&] {
    while (!stop.load()) {
      for (const auto& sub : std::filesystem::recursive_directory_iterator(work.path())) {
        if (sub.path().filename().string().rfind("tc-", 0) == 0) {
          set_cancel_signal_for_testing(SIGINT);
          fired = true;
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  RunStats stats;
  ExactTriangleStats detail;
  auto r = count_triangles_exact(*info, o, stats, detail);
  stop = true;
  watcher.join();
  set_cancel_signal_for_testing(0);
  if (fired) {
    REQUIRE(!r.has_value());
    CHECK(r.status().code() == StatusCode::kCancelled);
  }
  CHECK(work.entries().empty());
}

TEST_CASE("reverse: stays within --physical_memory by shrinking its chunks", "[alg_triangles]") {
  if (kSanitized) return;  // the sanitizers' own baseline exceeds the small budget
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(100000, 400000, 8), 100000);
  const ProcessResult r = run_tool("benchmark_driver", {"-g", ini.string(), "-b", "reverse", "--physical_memory", "16M",
                                                        "--read_chunk", "16M", "--write_chunk", "16M", "--output",
                                                        (dir / "rev").string()});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(std::stoull(stat_value(r.out, "CORE::UTILS::PEAK_RSS")) <= std::uint64_t{16} << 20);
  CHECK(std::stoull(stat_value(r.out, "CORE::CONFIG::READ_CHUNK")) < std::uint64_t{16} << 20);
  CHECK(std::filesystem::file_size(dir / "rev") == 400000 * 12);
}
