// Tests of pagerank_ddf, bfs_forest, sssp_forest, spmv and conductance, and of pagerank's summary of
// its top ranks: tiny hand-drawn graphs with answers worked out by hand; the in-memory references
// against independent brute force; the verifiers catching broken results; random and rmat graphs
// with --verify and bit-identical output across K in {1, 2, 7}, -p in {1, 2}, direct and --no_dio;
// soc-Slashdot0902 against its published SCC facts and against -b bfs / -b pagerank.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/bfs_forest.hpp"
#include "algorithms/conductance.hpp"
#include "algorithms/pagerank.hpp"
#include "algorithms/pagerank_ddf.hpp"
#include "algorithms/spmv.hpp"
#include "algorithms/sssp.hpp"
#include "algorithms/sssp_forest.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

using Rows = std::vector<std::vector<std::string>>;

using Config = DriverConfig;
// K in {1, 2, 7} (7 odd and more than the tiny graphs' useful ranges), -p 1 and 2, both I/O modes.
const Config kConfigs[] = {{"1", "1", true}, {"2", "2", false}, {"7", "1", false}, {"7", "2", true}, {"2", "1", true}};

using Result = DriverRun;

Result run_one(const std::filesystem::path& ini, const std::string& algorithm, const Config& c,
               const std::vector<std::string>& extra = {}) {
  Result r = run_driver_config(ini, algorithm, c, extra);
  // Equal ranges of ceil(V/K) ids: tiny graphs get fewer partitions than asked (8 vertices, -k 7: 4).
  const auto info = read_graph_ini(ini);
  REQUIRE(info);
  const std::uint64_t asked = std::stoull(c.k);
  const std::uint64_t per = std::max<std::uint64_t>(1, (info->vertices + asked - 1) / asked);
  const std::uint64_t expected = std::max<std::uint64_t>(1, (info->vertices + per - 1) / per);
  INFO("-b " << algorithm << " " << describe(c));
  CHECK(stat_value(r.proc.out, "CORE::CONFIG::PARTITIONS") == std::to_string(expected));
  return r;
}

// Runs every configuration; every run passes --verify and all outputs are identical. Returns them.
// `configs` limits the runs to the first n configurations (0: all). Under a sanitizer (which looks
// for memory and threading errors; the Release suite checks every configuration's results) the
// first three: each K, each thread count and each I/O mode once.
std::vector<Result> run_all(const std::filesystem::path& ini, const std::string& algorithm,
                            const std::vector<std::string>& extra = {}, std::size_t configs = 0) {
  if (kSanitized && (configs == 0 || configs > 3)) configs = 3;
  std::vector<Result> all;
  for (const Config& c : kConfigs) {
    if (configs != 0 && all.size() == configs) break;
    all.push_back(run_one(ini, algorithm, c, extra));
  }
  for (std::size_t i = 1; i < all.size(); ++i) {
    INFO("-b " << algorithm << ": -k " << kConfigs[i].k << " -p " << kConfigs[i].p << " against -k 1 -p 1");
    CHECK(all[i].rows == all[0].rows);
  }
  return all;
}

Edge e(VertexId s, VertexId d, float w = 1.0F) { return Edge{s, d, w}; }

// The hand-drawn graph used by several tests (8 vertices):
//   0 -> 7 (0.25), 7 -> 5 (0.25), 5 -> 3 (1.5), 0 -> 3 (4), 3 -> 1 (2), 1 -> 3 (1), 2 -> 1 (0.5),
//   6 -> 6 (3); vertex 4 isolated.
// Vertex 0 reaches 7, 5, 3, 1; 2 reaches only 1 and 3; 4 and 6 reach nothing smaller.
std::vector<Edge> hand_graph() {
  return {e(0, 7, 0.25F), e(7, 5, 0.25F), e(5, 3, 1.5F), e(0, 3, 4.0F),
          e(3, 1, 2.0F),  e(1, 3, 1.0F),  e(2, 1, 0.5F), e(6, 6, 3.0F)};
}

double number(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

}  // namespace

// ---- tiny hand-drawn graphs ------------------------------------------------------------------------

TEST_CASE("bfs_forest: hand-drawn graph", "[alg_basic]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", hand_graph(), 8);
  // root = smallest id reaching the vertex; level = hops from it (0->3 directly: 1 hop, though the
  // lighter path 0->7->5->3 has 3).
  const Rows want = {{"0", "0"}, {"0", "2"}, {"2", "0"}, {"0", "1"}, {"4", "0"}, {"0", "2"}, {"6", "0"}, {"0", "1"}};
  const auto all = run_all(ini, "bfs_forest");
  CHECK(all[0].rows == want);
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::BFS_FOREST::TREES") == "4");
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::BFS_FOREST::TREE0_VERTICES") == "5");
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::BFS_FOREST::DEPTH") == "2");
}

TEST_CASE("bfs_forest: a chain numbered against its direction", "[alg_basic]") {
  // 7 -> 6 -> ... -> 0: every vertex is its own smallest reacher except none; then 0 -> 7 closes
  // the cycle and 0 becomes every vertex's root, at level = 8 - v (7 at 1, 6 at 2, ...).
  TempDir dir;
  std::vector<Edge> chain;
  for (VertexId v = 7; v > 0; --v) chain.push_back(e(v, v - 1));
  const auto open = write_graph(dir.path(), "open", chain, 8);
  Rows want_open;
  for (int v = 0; v < 8; ++v) want_open.push_back({std::to_string(v), "0"});
  CHECK(run_all(open, "bfs_forest")[0].rows == want_open);
  chain.push_back(e(0, 7));
  const auto closed = write_graph(dir.path(), "closed", chain, 8);
  Rows want_closed = {{"0", "0"}};
  for (int v = 1; v < 8; ++v) want_closed.push_back({"0", std::to_string(8 - v)});
  CHECK(run_all(closed, "bfs_forest")[0].rows == want_closed);
}

TEST_CASE("sssp_forest: hand-drawn graph, type 1 and type 2", "[alg_basic]") {
  TempDir dir;
  const auto weighted = write_graph(dir.path(), "w", hand_graph(), 8, EdgeFileType::kWeighted);
  // Distances from root 0: 7 = 0.25, 5 = 0.5, 3 = min(4, 0.5 + 1.5) = 2, 1 = 2 + 2 = 4.
  const Rows want = {{"0", "0"}, {"0", "4"}, {"2", "0"}, {"0", "2"}, {"4", "0"}, {"0", "0.5"}, {"6", "0"}, {"0", "0.25"}};
  const auto all = run_all(weighted, "sssp_forest");
  CHECK(all[0].rows == want);
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::SSSP_FOREST::TREES") == "4");
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::SSSP_FOREST::MAX_DISTANCE") == "4");
  // Type 2: every weight 1, so the distance is bfs_forest's level.
  const auto unweighted = write_graph(dir.path(), "u", hand_graph(), 8, EdgeFileType::kUnweighted);
  const Rows want_hops = {{"0", "0"}, {"0", "2"}, {"2", "0"}, {"0", "1"}, {"4", "0"}, {"0", "2"}, {"6", "0"}, {"0", "1"}};
  CHECK(run_all(unweighted, "sssp_forest")[0].rows == want_hops);
}

TEST_CASE("sssp_forest: negative and NaN weights are rejected", "[alg_basic]") {
  TempDir dir;
  for (const float bad : {-1.0F, std::numeric_limits<float>::quiet_NaN()}) {
    auto edges = hand_graph();
    edges[4].weight = bad;
    const auto ini = write_graph(dir.path(), "bad", edges, 8);
    const ProcessResult r = run_driver_in_process({"-g", ini.string(), "-b", "sssp_forest"});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("record 4") != std::string::npos);
    CHECK(r.err.find("non-negative") != std::string::npos);
  }
}

TEST_CASE("spmv: hand-drawn graph, type 1 and type 2", "[alg_basic]") {
  TempDir dir;
  // y(v) = sum over u->v of w * u: y1 = 0.5*2 + 2*3 = 7, y3 = 1*1 + 1.5*5 + 4*0 = 8.5,
  // y5 = 0.25*7 = 1.75, y6 = 3*6 = 18, y7 = 0.25*0 = 0.
  const Rows want = {{"0"}, {"7"}, {"0"}, {"8.5"}, {"0"}, {"1.75"}, {"18"}, {"0"}};
  const auto all = run_all(write_graph(dir.path(), "w", hand_graph(), 8), "spmv");
  CHECK(all[0].rows == want);
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::SPMV::SUM") == "35.25");
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::SPMV::NONZERO") == "4");
  // Type 2: y(v) = sum of the in-neighbours' ids.
  const Rows want_ids = {{"0"}, {"5"}, {"0"}, {"6"}, {"0"}, {"7"}, {"6"}, {"0"}};
  CHECK(run_all(write_graph(dir.path(), "u", hand_graph(), 8, EdgeFileType::kUnweighted), "spmv")[0].rows == want_ids);
}

TEST_CASE("spmv: negative, infinite and NaN weights follow IEEE arithmetic", "[alg_basic]") {
  TempDir dir;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Edge> edges = {
      e(1, 0, inf),  e(2, 0, -inf),                     // inf - inf: nan
      e(3, 1, -2),   e(5, 1, 0.5F),                     // -6 + 2.5 = -3.5
      e(2, 2, inf),                                     // inf
      e(0, 3, inf),                                     // inf * 0: nan
      e(6, 4, -inf), e(7, 4, 1),                        // -inf
      e(7, 5, std::numeric_limits<float>::quiet_NaN()), // nan
      e(6, 6, 1e30F), e(7, 6, -1e30F),                  // 6e30 - 7e30 = -1e30
      e(6, 7, 3e-30F), e(5, 7, 1),                      // 5 + 1.8e-29
  };
  const Rows want = {{"nan"}, {"-3.5"}, {"inf"}, {"nan"}, {"-inf"}, {"nan"}, {"-1.00000002e+30"}, {"5"}};
  const auto all = run_all(write_graph(dir.path(), "g", edges, 8), "spmv");
  CHECK(all[0].rows == want);
}

TEST_CASE("spmv program: ids above 2^24 and mixed magnitudes are summed exactly", "[alg_basic]") {
  // Drives the program by hand (one vertex, terms in two orders): ids above 2^24 are not floats
  // (X-Stream's x(u) = u in float loses them); the sum must not depend on the order of the terms.
  const SpmvProgram program;
  const std::vector<Edge> in = {e(16777217, 0, 1), e(16777219, 0, 1), e(3, 0, 1e-20F), e(4294967295U, 0, -0.5F),
                                e(4294967295U, 0, 0.5F), e(16777217, 0, 2)};
  auto evaluate = [&](std::vector<Edge> edges) {
    SpmvProgram::Vertex s{};
    program.init(0, s);
    for (const Edge& x : edges) program.scatter(s, x, 0, [&](VertexId, const SpmvProgram::Update& u) { program.gather(0, s, u, 0); });
    const SpmvProgram::Vertex frozen = s;
    for (const Edge& x : edges) {
      program.scatter_reverse(frozen, x, 1, [&](VertexId, const SpmvProgram::Update& u) { program.gather(0, s, u, 1); });
    }
    return SpmvProgram::result(s);
  };
  const double forward = evaluate(in);
  std::vector<Edge> reversed(in.rbegin(), in.rend());
  CHECK(evaluate(reversed) == forward);
  // 16777217 + 16777219 + 2 * 16777217 = 67108870 (exact in double); the 3e-20 term is below the
  // resolution 2^(31 - 62) (the largest term, 0.5 * (2^32 - 1), is below 2^31) and dropped.
  CHECK(forward == 67108870.0);
}

TEST_CASE("conductance: hand-drawn graph, X-Stream's definition; --output stays empty", "[alg_basic]") {
  TempDir dir;
  // Crossing (ids of different parity): 0->7, 0->3, 2->1 = 3. From odd (red) sources: 7->5, 5->3,
  // 3->1, 1->3 = 4; from even (black): 0->7, 0->3, 2->1, 6->6 = 4. Value 3 / max(4, 4) = 0.75.
  const auto all = run_all(write_graph(dir.path(), "g", hand_graph(), 8), "conductance");
  for (const Result& r : all) {
    CHECK(r.rows.empty());
    CHECK(stat_value(r.proc.out, "ALGORITHM::CONDUCTANCE::VALUE") == "0.75");
    CHECK(stat_value(r.proc.out, "ALGORITHM::CONDUCTANCE::CROSSING_EDGES") == "3");
    CHECK(stat_value(r.proc.out, "ALGORITHM::CONDUCTANCE::EDGES_FROM_RED") == "4");
    CHECK(stat_value(r.proc.out, "ALGORITHM::CONDUCTANCE::EDGES_FROM_BLACK") == "4");
  }
  // The larger side is the base: 1->0, 1->2, 3->2 (all red, all crossing), 0->2 (black) = 3 / 3.
  const auto skew = run_all(write_graph(dir.path(), "s", {e(1, 0), e(1, 2), e(3, 2), e(0, 2)}, 8), "conductance");
  CHECK(stat_value(skew[0].proc.out, "ALGORITHM::CONDUCTANCE::VALUE") == "1");
  // --output is created, and empty.
  TempDir out;
  const ProcessResult direct = run_driver_in_process({"-g", (dir / "g").string(), "-b", "conductance", "--output",
                                                      (out / "c.txt").string()});
  REQUIRE(direct.exit_code == 0);
  CHECK(std::filesystem::exists(out / "c.txt"));
  CHECK(slurp(out / "c.txt").empty());
  // No edges: 0 (X-Stream would divide 0 by 0).
  const auto empty = run_all(write_graph(dir.path(), "e", {}, 8), "conductance");
  CHECK(stat_value(empty[0].proc.out, "ALGORITHM::CONDUCTANCE::VALUE") == "0");
}

TEST_CASE("pagerank_ddf: hand-drawn graph reaches the fixed point", "[alg_basic]") {
  // 0 -> 1 -> 2 -> 0, 2 -> 3 (3 dangling), 4..7 isolated. Fixed point:
  // r1 = .15 + .85 r0, r2 = .15 + .85 r1, r0 = .15 + .85 r2 / 2, r3 = r0; isolated: 0.15.
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", {e(0, 1), e(1, 2), e(2, 0), e(2, 3)}, 8, EdgeFileType::kUnweighted);
  const double r0 = (0.15 + 0.425 * (0.15 + 0.85 * 0.15)) / (1 - 0.425 * 0.85 * 0.85);
  const double r1 = 0.15 + 0.85 * r0;
  const double r2 = 0.15 + 0.85 * r1;
  const std::vector<double> want = {r0, r1, r2, r0, 0.15, 0.15, 0.15, 0.15};
  const auto all = run_all(ini, "pagerank_ddf");
  REQUIRE(all[0].rows.size() == want.size());
  for (std::size_t v = 0; v < want.size(); ++v) {
    INFO("vertex " << v << " rank " << all[0].rows[v][0] << " want " << want[v]);
    CHECK(number(all[0].rows[v][0]) <= want[v] * (1 + 1e-7));
    CHECK(number(all[0].rows[v][0]) >= want[v] * (1 - kPageRankDdfThreshold / 0.15 - 1e-7));
  }
  CHECK(stat_value(all[0].proc.out, "ALGORITHM::PAGERANK_DDF::CONVERGED") == "1");
  // --pagerank::niters does not change the result (documented: it is not a cap here).
  CHECK(run_one(ini, "pagerank_ddf", kConfigs[0], {"--pagerank::niters", "1"}).rows == all[0].rows);
}

// ---- the references against brute force; the verifiers catch broken results ------------------------

TEST_CASE("forest references equal brute force (BFS / Dijkstra from every vertex)", "[alg_basic]") {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    InMemoryGraph g;
    g.vertices = 60 + seed * 7;
    g.edges = random_edges(g.vertices, g.vertices * (seed % 3 == 0 ? 1 : 2), seed);
    InMemoryGraph unit = g;
    for (Edge& x : unit.edges) x.weight = 1;
    std::vector<VertexId> root(g.vertices);
    std::vector<float> distance(g.vertices);
    std::vector<std::uint32_t> level(g.vertices);
    for (std::uint64_t u = g.vertices; u-- > 0;) {  // descending: the last writer is the smallest reacher
      const std::vector<float> d = sssp_reference(g, static_cast<VertexId>(u));
      const std::vector<float> hops = sssp_reference(unit, static_cast<VertexId>(u));
      for (std::uint64_t v = 0; v < g.vertices; ++v) {
        if (d[v] == SsspProgram::kInfinity) continue;
        root[v] = static_cast<VertexId>(u);
        distance[v] = d[v];
        level[v] = static_cast<std::uint32_t>(hops[v]);
      }
    }
    const ForestRoots forest = bfs_forest_reference(g);
    const SsspForestResult weighted = sssp_forest_reference(g);
    INFO("seed " << seed);
    CHECK(forest.root == root);
    CHECK(forest.level == level);
    CHECK(weighted.root == root);
    CHECK(weighted.distance == distance);
  }
}

TEST_CASE("pagerank_fixed_point equals many power iterations", "[alg_basic]") {
  InMemoryGraph g;
  g.vertices = 300;
  g.edges = random_edges(g.vertices, 1500, 42);
  const std::vector<double> fixed = pagerank_fixed_point(g);
  const std::vector<double> iterated = pagerank_reference(g, 400);
  for (std::uint64_t v = 0; v < g.vertices; ++v) CHECK(fixed[v] == Approx(iterated[v]).epsilon(1e-11));
}

TEST_CASE("check_forest_roots catches non-minimal and impossible roots", "[alg_basic]") {
  InMemoryGraph g;
  g.vertices = 8;
  g.edges = hand_graph();
  const ForestRoots good = bfs_forest_reference(g);
  ProblemList none;
  check_forest_roots(g, good.root, none);
  CHECK(none.empty());
  auto bad = good.root;
  bad[3] = 2;  // 0 reaches 3
  ProblemList p1;
  check_forest_roots(g, bad, p1);
  CHECK(!p1.empty());
  bad = good.root;
  bad[2] = 3;  // root larger than the vertex
  ProblemList p2;
  check_forest_roots(g, bad, p2);
  CHECK(!p2.empty());
}

TEST_CASE("spmv terms: exact decomposition and magnitude", "[alg_basic]") {
  for (const float w : {1.0F, 0.75F, -3.5F, 1e-30F, 3e38F, 1.17549435e-38F, 1e-45F}) {
    for (const VertexId u : {1U, 3U, 16777217U, 4294967295U}) {
      const SpmvProgram::Term t = SpmvProgram::term(w, u);
      INFO("w " << w << " u " << u);
      REQUIRE(t.special == 0);
      const long double exact = static_cast<long double>(w) * u;
      CHECK((t.negative ? -1.0L : 1.0L) * std::ldexp(static_cast<long double>(t.mantissa), t.shift) == exact);
      CHECK(std::fabs(exact) < std::ldexp(1.0L, SpmvProgram::magnitude(t)));
      CHECK(std::fabs(exact) >= std::ldexp(1.0L, SpmvProgram::magnitude(t) - 1));
    }
  }
  CHECK(SpmvProgram::term(0.0F, 5).mantissa == 0);
  CHECK(SpmvProgram::term(2.0F, 0).mantissa == 0);
}

// ---- random and skewed graphs: --verify, identical across configurations ----------------------------

TEST_CASE("random and rmat graphs: --verify PASS and identical output for every K, -p, I/O mode", "[alg_basic]") {
  TempDir dir;
  std::vector<std::filesystem::path> graphs;
  graphs.push_back(write_graph(dir.path(), "random", random_edges(3000, 12000, 7), 3000));
  graphs.push_back(write_graph(dir.path(), "sparse", random_edges(4000, 3000, 8), 4000, EdgeFileType::kUnweighted));
  const ProcessResult gen = run_tool("rmat", {"--name", (dir / "rmat").string(), "--scale", "12", "--edges", "40000",
                                              "--threads", "2"});
  INFO("rmat: " << gen.out << gen.err);
  REQUIRE(gen.exit_code == 0);
  graphs.push_back(dir / "rmat.ini");
  for (const auto& ini : graphs) {
    for (const char* algorithm : {"bfs_forest", "sssp_forest", "spmv", "conductance", "pagerank_ddf"}) {
      INFO(ini.filename().string() << " -b " << algorithm);
      // pagerank_ddf runs ~100 supersteps, each costing ~0.1 s at K = 7 whatever the graph's size:
      // K = 1 and 2 here (K = 7 runs on the hand-drawn graph, K = 5 on the rmat test below).
      const bool long_run = std::string(algorithm) == "pagerank_ddf";
      const auto all = run_all(ini, algorithm, {}, long_run ? 2 : 0);
      const std::string value_key = std::string(algorithm) == "conductance" ? "ALGORITHM::CONDUCTANCE::VALUE" : "";
      for (const Result& r : all) {
        if (!value_key.empty()) CHECK(stat_value(r.proc.out, value_key) == stat_value(all[0].proc.out, value_key));
      }
    }
  }
}

TEST_CASE("pagerank_ddf on rmat: the fixed point of pagerank, identical at -k 1 and -k 5", "[alg_basic]") {
  TempDir dir;
  const ProcessResult gen = run_tool("rmat", {"--name", (dir / "g").string(), "--scale", "14", "--edges", "200000",
                                              "--threads", "2"});
  REQUIRE(gen.exit_code == 0);
  TempDir work;
  TempDir out;
  const ProcessResult ddf = run_driver_in_process({"-g", (dir / "g").string(), "-b", "pagerank_ddf", "-p", "2", "-k", "5",
                                                   "--work_dir", work.path().string(), "--output",
                                                   (out / "a.txt").string()});
  INFO(ddf.out << ddf.err);
  REQUIRE(ddf.exit_code == 0);
  CHECK(stat_value(ddf.out, "CORE::CONFIG::PARTITIONS") == "5");
  const ProcessResult one = run_driver_in_process({"-g", (dir / "g").string(), "-b", "pagerank_ddf", "-p", "1",
                                                   "--output", (out / "b.txt").string()});
  REQUIRE(one.exit_code == 0);
  const auto a = read_output(out / "a.txt");
  CHECK(a == read_output(out / "b.txt"));
  const ProcessResult pr = run_driver_in_process({"-g", (dir / "g").string(), "-b", "pagerank", "--pagerank::niters",
                                                  "200", "--output", (out / "c.txt").string()});
  REQUIRE(pr.exit_code == 0);
  const auto c = read_output(out / "c.txt");
  REQUIRE(a.size() == c.size());
  std::size_t off = 0;
  for (std::size_t v = 0; v < a.size(); ++v) {
    const double x = number(a[v].at(0));
    const double y = number(c[v].at(0));
    if (!(std::fabs(x - y) <= 2e-5 * y)) ++off;
  }
  CHECK(off == 0);
}

TEST_CASE("pagerank: the summary's ten highest ranks are the output's, ties to the smaller id", "[alg_basic]") {
  // The summary's PAGERANK::TOPi ("vertex rank") against the --output file's ranks sorted by rank,
  // then id: on an rmat graph, and on a cycle of 12 whose ranks are all equal (ids 0..9 win).
  TempDir dir;
  const ProcessResult gen = run_tool("rmat", {"--name", (dir / "r").string(), "--scale", "12", "--edges", "40000",
                                              "--threads", "2"});
  REQUIRE(gen.exit_code == 0);
  std::vector<Edge> cycle;
  for (VertexId v = 0; v < 12; ++v) cycle.push_back(e(v, (v + 1) % 12));
  const auto cycle_ini = write_graph(dir.path(), "c", cycle, 12);
  for (const std::string& graph : {(dir / "r").string(), cycle_ini.string()}) {
    TempDir out;
    const ProcessResult pr = run_driver_in_process({"-g", graph, "-b", "pagerank", "--pagerank::niters", "5", "-p", "2",
                                                    "--output", (out / "ranks.txt").string()});
    INFO(graph << "\n" << pr.out << pr.err);
    REQUIRE(pr.exit_code == 0);
    const Rows rows = read_output(out / "ranks.txt");
    REQUIRE(rows.size() >= 10);
    std::vector<std::pair<float, std::uint64_t>> ranked;
    for (std::size_t v = 0; v < rows.size(); ++v) ranked.emplace_back(std::strtof(rows[v].at(0).c_str(), nullptr), v);
    std::sort(ranked.begin(), ranked.end(),
              [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
    for (std::size_t i = 0; i < 10; ++i) {
      std::istringstream line(stat_value(pr.out, "ALGORITHM::PAGERANK::TOP" + std::to_string(i + 1)));
      std::uint64_t vertex = UINT64_MAX;
      double rank = -1;
      line >> vertex >> rank;
      INFO("TOP" << i + 1);
      CHECK(vertex == ranked[i].second);
      CHECK(rank == Approx(ranked[i].first).epsilon(1e-6));
    }
    CHECK(stat_value(pr.out, "ALGORITHM::PAGERANK::TOP11").empty());
  }
}

// ---- a real graph ----------------------------------------------------------------------------------

TEST_CASE("soc-Slashdot0902: forests against its SCC facts and against bfs; pagerank_ddf converges", "[alg_basic]") {
  const auto ini = real_graph("soc-slashdot0902-directed.txt.gz");
  TempDir dir;
  auto run = [&](const std::vector<std::string>& extra, const std::string& name) {
    std::vector<std::string> args = {"-g", ini.string(), "-p", "2", "--output", (dir / name).string(), "--verify"};
    args.insert(args.end(), extra.begin(), extra.end());
    INFO(name);
    const ProcessResult r = run_driver_verified(args);
    return std::make_pair(r, read_output(dir / name));
  };
  const auto [forest_run, forest] = run({"-b", "bfs_forest", "-k", "3"}, "forest.txt");
  REQUIRE(forest.size() == 82168);
  // Every SCC lies inside one tree (its members have the same reachers), so there are at most
  // 10,559 trees and one tree holds the largest SCC's 71,307 vertices.
  std::map<std::string, std::uint64_t> tree_size;
  for (const auto& row : forest) ++tree_size[row.at(0)];
  CHECK(tree_size.size() <= 10559);
  CHECK(std::stoull(stat_value(forest_run.out, "ALGORITHM::BFS_FOREST::TREES")) == tree_size.size());
  std::uint64_t largest = 0;
  for (const auto& [root, size] : tree_size) largest = std::max(largest, size);
  CHECK(largest >= 71307);
  // Tree 0 is exactly what BFS from 0 reaches, at the same levels.
  const auto [bfs_run, bfs] = run({"-b", "bfs", "--bfs::root", "0"}, "bfs.txt");
  REQUIRE(bfs.size() == forest.size());
  std::uint64_t tree0 = 0;
  for (std::size_t v = 0; v < forest.size(); ++v) {
    const bool in_tree0 = forest[v].at(0) == "0";
    tree0 += in_tree0 ? 1 : 0;
    if (in_tree0 != (bfs[v].at(0) != "-1") || (in_tree0 && forest[v].at(1) != bfs[v].at(0))) {
      FAIL("vertex " << v << ": forest " << forest[v].at(0) << "/" << forest[v].at(1) << ", bfs level " << bfs[v].at(0));
    }
  }
  CHECK(std::to_string(tree0) == stat_value(bfs_run.out, "ALGORITHM::BFS::REACHED"));
  // Unit weights: sssp_forest's distances are the forest's levels.
  const auto [sssp_run, sssp] = run({"-b", "sssp_forest", "-k", "2"}, "sssp.txt");
  REQUIRE(sssp.size() == forest.size());
  for (std::size_t v = 0; v < forest.size(); ++v) {
    if (sssp[v] != forest[v]) FAIL("vertex " << v << ": sssp_forest " << sssp[v].at(0) << "/" << sssp[v].at(1));
  }
  // pagerank_ddf against -b pagerank run for many iterations.
  const auto [ddf_run, ddf] = run({"-b", "pagerank_ddf"}, "ddf.txt");
  const auto [pr_run, pr] = run({"-b", "pagerank", "--pagerank::niters", "150"}, "pr.txt");
  REQUIRE(ddf.size() == pr.size());
  for (std::size_t v = 0; v < pr.size(); ++v) {
    const double a = number(ddf[v].at(0));
    const double b = number(pr[v].at(0));
    if (!(std::fabs(a - b) <= 2e-5 * b)) FAIL("vertex " << v << ": pagerank_ddf " << a << ", pagerank " << b);
  }
  CHECK(stat_value(ddf_run.out, "ALGORITHM::PAGERANK_DDF::CONVERGED") == "1");
}
