// -b mcst (minimum spanning forest of the undirected view): hand-drawn graphs with answers worked
// out by hand (ties, parallel edges, self-loops, negative weights, disconnected and isolated
// vertices, directed input); random, tie-heavy and skewed graphs against Kruskal with identical
// output for K in {1, 2, 7}, -p in {1, 2}, direct and --no_dio; --verify PASS; the real graphs
// (type 2: forest weight = V - #WCC).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <span>
#include <tuple>
#include <string>
#include <vector>

#include "algorithms/mcst.hpp"
#include "algorithms/engine_instances.hpp"
#include "core/engine.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

using Rows = std::vector<std::vector<std::string>>;

struct Run {
  Rows rows;
  std::string out;
};

Run run_mcst(const std::filesystem::path& ini, const std::string& k, const std::string& p, bool direct,
             bool verify = true) {
  // The scratch directory checked empty afterwards holds the engine streams and the forest graph.
  DriverRun r = run_driver_config(ini, "mcst", DriverConfig{k, p, direct}, {}, verify);
  INFO(describe(DriverConfig{k, p, direct}));
  CHECK(stat_value(r.proc.out, "CORE::CONFIG::PARTITIONS") == k);
  return Run{std::move(r.rows), r.proc.out};
}

// The expected rows from Kruskal (the reference), printed the way --output prints floats.
Rows kruskal_rows(const InMemoryGraph& g, double* total) {
  std::vector<VertexId> parent;
  const std::vector<float> w = mcst_parent_weights(g.vertices, mcst_kruskal(g), &parent);
  Rows rows(g.vertices);
  *total = 0.0;
  for (std::uint64_t v = 0; v < g.vertices; ++v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<double>(w[v]));
    rows[v] = {buffer};
    if (parent[v] != v) *total += static_cast<double>(w[v]);
  }
  return rows;
}

Edge e(VertexId s, VertexId d, float w = 1.0F) { return Edge{s, d, w}; }

std::vector<std::string> col(const Rows& rows) {
  std::vector<std::string> c;
  for (const auto& r : rows) c.push_back(r.empty() ? "?" : r[0]);
  return c;
}

}  // namespace

TEST_CASE("mcst: hand-drawn graph with parallel edges, self-loops, directed input and isolated vertices", "[alg_mcst]") {
  TempDir dir;
  // {0,1,2}: triangle 0-1 (4), 1-2 (1), 2-0 (3) plus a cheaper parallel 2->1 (0.5) and a self-loop
  // 0-0 (-5, ignored); {3,4}: 3->4 (2) and the reverse 4->3 (7) (directed input, never symmetrised);
  // 5 isolated; 6 only a self-loop. Forest: 1-2 (0.5), 0-2 (3), 3-4 (2): weight 5.5, 4 trees.
  // Rooted at the smallest ids: 2's parent is 0 (3), 1's parent is 2 (0.5), 4's parent is 3 (2).
  const auto ini = write_graph(dir.path(), "g",
                               {e(0, 1, 4), e(1, 2, 1), e(2, 0, 3), e(2, 1, 0.5F), e(0, 0, -5), e(3, 4, 2), e(4, 3, 7),
                                e(6, 6, 1)},
                               7);
  for (const auto& [k, p, direct] : {std::tuple{"1", "1", true}, std::tuple{"2", "2", false}, std::tuple{"7", "2", true}}) {
    const Run r = run_mcst(ini, k, p, direct);
    CHECK(col(r.rows) == std::vector<std::string>{"-1", "0.5", "3", "-1", "2", "-1", "-1"});
    CHECK(stat_value(r.out, "ALGORITHM::MCST::WEIGHT") == "5.5");
    CHECK(stat_value(r.out, "ALGORITHM::MCST::TREES") == "4");
    CHECK(stat_value(r.out, "ALGORITHM::MCST::EDGES") == "3");
  }
}

TEST_CASE("mcst: ties are broken by (weight, smaller endpoint, larger endpoint); negative weights", "[alg_mcst]") {
  TempDir dir;
  // 0-1 (1) and 2-3 (1) are cheapest; 0-2 (5) and 1-3 (5) tie: (5,0,2) < (5,1,3) picks 0-2. Rooted at
  // 0: 1 <- 0 (1), 2 <- 0 (5), 3 <- 2 (1). The other tie choice would print 3 <- 1 (5), 2 <- 3 (1).
  // 4 hangs on 3 by a negative edge (-2.5) cheaper than its 4-0 edge (6).
  const auto ini = write_graph(dir.path(), "g", {e(3, 1, 5), e(2, 0, 5), e(1, 0, 1), e(3, 2, 1), e(4, 3, -2.5F), e(0, 4, 6)}, 5);
  for (const auto& [k, p, direct] : {std::tuple{"1", "2", true}, std::tuple{"2", "1", true}, std::tuple{"5", "1", false}}) {
    const Run r = run_mcst(ini, k, p, direct);
    CHECK(col(r.rows) == std::vector<std::string>{"-1", "1", "5", "1", "-2.5"});
    CHECK(stat_value(r.out, "ALGORITHM::MCST::WEIGHT") == "4.5");
    CHECK(stat_value(r.out, "ALGORITHM::MCST::TREES") == "1");
  }
  // Type 2 (weight 1 everywhere): a 4-cycle with a chord, all tied: (0,1), (0,3), (1,2) win.
  const auto ini2 = write_graph(dir.path(), "h", {e(3, 2), e(2, 1), e(1, 0), e(0, 3), e(1, 3)}, 4, EdgeFileType::kUnweighted);
  const Run r = run_mcst(ini2, "2", "2", true);
  CHECK(col(r.rows) == std::vector<std::string>{"-1", "1", "1", "1"});
  CHECK(stat_value(r.out, "ALGORITHM::MCST::WEIGHT") == "3");
}

TEST_CASE("mcst: graphs without edges", "[alg_mcst]") {
  TempDir dir;
  const auto none = write_graph(dir.path(), "none", {}, 4);
  const auto loops = write_graph(dir.path(), "loops", {e(1, 1, 3), e(2, 2, 0)}, 3);
  for (const auto& ini : {none, loops}) {
    const Run r = run_mcst(ini, "2", "1", true);
    for (const auto& row : r.rows) CHECK(row == std::vector<std::string>{"-1"});
    CHECK(stat_value(r.out, "ALGORITHM::MCST::WEIGHT") == "0");
    CHECK(stat_value(r.out, "ALGORITHM::MCST::EDGES") == "0");
  }
}

TEST_CASE("mcst: random, tie-heavy and skewed graphs equal Kruskal for every K, -p and I/O mode", "[alg_mcst]") {
  TempDir dir;
  struct Case {
    const char* name;
    std::uint64_t V;
    std::vector<Edge> edges;
  };
  std::vector<Case> cases;
  cases.push_back({"random", 3000, random_edges(3000, 7000, 5)});  // sparse: many components
  {
    // Integer weights 0..3: nearly every choice is decided by the endpoint tie rule.
    std::vector<Edge> edges = random_edges(2000, 9000, 6);
    for (Edge& x : edges) x.weight = std::floor(x.weight * 4.0F);
    cases.push_back({"ties", 2000, std::move(edges)});
  }
  {
    // Skewed (rmat-like) endpoints: hubs at low ids, plus parallel edges and self-loops.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<Edge> edges;
    const std::uint64_t V = 4096;
    for (int i = 0; i < 12000; ++i) {
      const auto s = static_cast<VertexId>(V * std::pow(u(rng), 3.0));
      const auto d = static_cast<VertexId>(V * std::pow(u(rng), 2.0));
      edges.push_back(Edge{s, d, static_cast<float>(std::floor(u(rng) * 100.0) / 8.0)});
      if (i % 50 == 0) edges.push_back(Edge{d, s, edges.back().weight});
    }
    cases.push_back({"skewed", V, std::move(edges)});
  }
  for (const Case& c : cases) {
    INFO("graph " << c.name);
    const auto ini = write_graph(dir.path(), c.name, c.edges, c.V);
    const InMemoryGraph g{c.V, c.edges};
    double total = 0.0;
    const Rows want = kruskal_rows(g, &total);
    char weight[64];
    std::snprintf(weight, sizeof weight, "%.17g", total);
    std::string rounds;
    // Every K, -p and I/O mode appears (K = 1 with -p 1 and 2, both I/O modes at K = 2 and 7); the
    // configuration matrix is cut to six runs per graph to keep the tag fast.
    const std::tuple<const char*, const char*, bool> configs[] = {
        {"1", "1", true}, {"1", "2", true}, {"2", "2", true}, {"2", "1", false}, {"7", "2", false}, {"7", "1", true}};
    for (const auto& [k, p, direct] : configs) {
      INFO("-k " << k << " -p " << p << (direct ? "" : " --no_dio"));
      const Run r = run_mcst(ini, k, p, direct, /*verify=*/std::string(k) == "7");
      CHECK(r.rows == want);
      CHECK(stat_value(r.out, "ALGORITHM::MCST::WEIGHT") == weight);
      if (rounds.empty()) rounds = stat_value(r.out, "ALGORITHM::MCST::ROUNDS");
      CHECK(stat_value(r.out, "ALGORITHM::MCST::ROUNDS") == rounds);  // the same Borůvka rounds everywhere
    }
  }
}

TEST_CASE("mcst: real graphs (type 2, weight 1): forest weight = V - #WCC", "[alg_mcst]") {
  struct Real {
    const char* file;
    const char* weight;
    const char* trees;
  };
  for (const Real& g : {Real{"email-enron-undirected.txt.gz", "35627", "1065"},
                        Real{"facebook-combined-undirected.txt.gz", "4038", "1"}}) {
    INFO(g.file);
    const auto ini = real_graph(g.file);
    for (const auto& [k, p, verify] : {std::tuple{"1", "2", true}, std::tuple{"3", "2", false}}) {
      TempDir work;
      std::vector<std::string> args = {"-g", ini.string(), "-b", "mcst", "-k", k, "-p", p, "--work_dir", work.path().string()};
      if (verify) args.push_back("--verify");
      const ProcessResult r = run_driver_in_process(args);
      INFO("-k " << k << "\n" << r.out << r.err);
      REQUIRE(r.exit_code == 0);
      if (verify) CHECK(r.out.find("Verification: PASS") != std::string::npos);
      CHECK(stat_value(r.out, "ALGORITHM::MCST::WEIGHT") == g.weight);
      CHECK(stat_value(r.out, "ALGORITHM::MCST::TREES") == g.trees);
      CHECK(work.entries().empty());
    }
  }
}

TEST_CASE("mcst: the Borůvka program records exactly Kruskal's forest, with tiny batches (scatter sees in-superstep gathers)", "[alg_mcst]") {
  TempDir dir;
  const std::uint64_t V = 1500;
  std::vector<Edge> edges = random_edges(V, 4000, 9);
  for (std::size_t i = 0; i < edges.size(); i += 3) edges[i].weight = std::floor(edges[i].weight * 3.0F);  // ties
  const auto ini = write_graph(dir.path(), "g", edges, V);
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  std::vector<std::tuple<VertexId, VertexId, float>> want;
  for (const McstEdge& x : mcst_kruskal(InMemoryGraph{V, edges})) want.emplace_back(x.a, x.b, x.weight);
  std::sort(want.begin(), want.end());
  for (const auto& [k, p] : {std::pair{std::uint64_t{1}, 1U}, std::pair{std::uint64_t{1}, 2U}, std::pair{std::uint64_t{3}, 2U}}) {
    {
      INFO("-k " << k << " -p " << p);
      EngineOptions options;
      options.threads = p;
      options.forced_partitions = k;
      options.batch_records = 16;  // many batches: later scatters read states gathered earlier in the superstep
      options.io.read_chunk = 4096;
      options.io.write_chunk = 4096;
      options.work_dirs = {dir.path()};
      McstLog log;
      McstProgram program;
      program.log = &log;
      std::vector<std::tuple<VertexId, VertexId, float>> got;
      std::uint64_t roots = 0;
      auto stats = run_engine(*info, options, program, [&](VertexId first, std::span<const McstProgram::Vertex> states) {
        for (std::size_t i = 0; i < states.size(); ++i) {
          const auto& s = states[i];
          roots += s.comp == first + i ? 1 : 0;
          if (s.record_a != McstProgram::kNone) {
            got.emplace_back(std::min(s.record_a, s.record_b), std::max(s.record_a, s.record_b), s.record_weight);
          }
        }
        return Status::ok();
      });
      REQUIRE(stats.has_value());
      std::sort(got.begin(), got.end());
      CHECK(got == want);
      CHECK(roots + got.size() == V);
      CHECK(log.rounds > 0);
      CHECK(log.rounds < 20);  // Borůvka: at least halves the components with crossing edges per round
    }
  }
}
