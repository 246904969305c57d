// Tests of -b scc, -b mis and -b checkbip: tiny hand-drawn graphs with answers worked out by hand
// (cycles, chains, DAGs, self-loops, duplicate edges, isolated vertices, complete bipartite, odd
// cycles); random and skewed graphs against references written here independently of the
// algorithms' own (reachability-intersection SCC, greedy MIS, BFS colouring) plus property checks;
// identical output for K in {1, 2, 7}, -p in {1, 2}, direct and --no_dio, with --verify PASS; the
// summary lines; and the published facts of the real graphs (cnr-2000 and soc-Slashdot0902 SCCs,
// cnr-2000's SCC size multiset).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "algorithms/checkbip.hpp"
#include "algorithms/mis.hpp"
#include "algorithms/reference_graph.hpp"
#include "algorithms/scc.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

using Rows = std::vector<std::vector<std::string>>;

struct Config {
  int k;
  int p;
  bool direct;
};

std::string describe(const Config& c) {
  return "-k " + std::to_string(c.k) + " -p " + std::to_string(c.p) + (c.direct ? "" : " --no_dio");
}

// Every K in {1, 2, 7} x -p 1 and 2 x both I/O modes; under a sanitizer (which looks for memory and
// threading errors, not for configuration-dependent results, which the Release suite checks) three
// that still cover each K, each thread count and each I/O mode.
const std::vector<Config>& all_configs() {
  static const std::vector<Config> configs = [] {
    if (kSanitized) return std::vector<Config>{{1, 2, true}, {2, 1, false}, {7, 2, true}};
    std::vector<Config> v;
    for (const int k : {1, 2, 7}) {
      for (const int p : {1, 2}) {
        for (const bool direct : {true, false}) v.push_back({k, p, direct});
      }
    }
    return v;
  }();
  return configs;
}

const std::vector<Config> kFewConfigs = {{1, 1, true}, {2, 2, false}, {7, 1, true}};

using RunResult = DriverRun;

RunResult run_one(const std::filesystem::path& ini, const std::string& algorithm, const Config& c,
                  const std::vector<std::string>& extra = {}) {
  return run_driver_config(ini, algorithm, DriverConfig{std::to_string(c.k), std::to_string(c.p), c.direct}, extra,
                           /*verify=*/true, /*write_chunk=*/"8K");
}

// Runs every configuration in `configs`; all outputs must equal `want` (one value per vertex).
std::vector<RunResult> expect_values(const std::filesystem::path& ini, const std::string& algorithm,
                                     const std::vector<std::uint64_t>& want, const std::vector<Config>& configs) {
  Rows want_rows;
  for (const auto v : want) want_rows.push_back({std::to_string(v)});
  std::vector<RunResult> runs;
  for (Config c : configs) {
    c.k = std::max<int>(1, std::min<int>(c.k, static_cast<int>(want.size())));  // at most one partition per vertex
    INFO("-b " << algorithm << " " << describe(c));
    runs.push_back(run_one(ini, algorithm, c));
    CHECK(runs.back().rows == want_rows);
  }
  return runs;
}

Edge e(VertexId s, VertexId d) { return Edge{s, d, 1.0F}; }

// ---- independent references (not the ones the runners use) ---------------------------------

// SCC by reachability: the smallest unlabelled vertex v labels (reached from v) ∩ (reaching v).
std::vector<std::uint64_t> scc_by_reachability(const InMemoryGraph& g) {
  const Csr out = build_csr(g, CsrDirection::kOut);
  const Csr in = build_csr(g, CsrDirection::kIn);
  const std::uint64_t n = g.vertices;
  std::vector<std::uint64_t> label(n, UINT64_MAX);
  auto reach = [&](const Csr& adj, VertexId from, std::vector<std::uint8_t>& seen) {
    std::vector<VertexId> stack{from};
    seen.assign(n, 0);
    seen[from] = 1;
    while (!stack.empty()) {
      const VertexId u = stack.back();
      stack.pop_back();
      for (std::uint64_t i = adj.offsets[u]; i < adj.offsets[u + 1]; ++i) {
        const VertexId w = adj.targets[i];
        if (seen[w] == 0 && label[w] == UINT64_MAX) {
          seen[w] = 1;
          stack.push_back(w);
        }
      }
    }
  };
  std::vector<std::uint8_t> fw, bw;
  for (std::uint64_t v = 0; v < n; ++v) {
    if (label[v] != UINT64_MAX) continue;
    reach(out, static_cast<VertexId>(v), fw);
    reach(in, static_cast<VertexId>(v), bw);
    for (std::uint64_t w = 0; w < n; ++w) {
      if (fw[w] != 0 && bw[w] != 0) label[w] = v;
    }
  }
  return label;
}

std::vector<std::uint64_t> greedy_mis(const InMemoryGraph& g) {
  std::vector<std::vector<VertexId>> adj(g.vertices);
  for (const Edge& x : g.edges) {
    adj[x.src].push_back(x.dst);
    adj[x.dst].push_back(x.src);
  }
  std::vector<std::uint64_t> in(g.vertices, 0);
  for (std::uint64_t v = 0; v < g.vertices; ++v) {
    bool free = true;
    for (const VertexId w : adj[v]) free = free && !(w < v && in[w] != 0);
    in[v] = free ? 1 : 0;
  }
  return in;
}

// Colour = parity of BFS level from the component's smallest id; bipartite = no edge inside a colour.
std::pair<std::vector<std::uint64_t>, bool> bfs_colours(const InMemoryGraph& g) {
  std::vector<std::vector<VertexId>> adj(g.vertices);
  for (const Edge& x : g.edges) {
    adj[x.src].push_back(x.dst);
    adj[x.dst].push_back(x.src);
  }
  std::vector<std::int64_t> level(g.vertices, -1);
  for (std::uint64_t r = 0; r < g.vertices; ++r) {
    if (level[r] >= 0) continue;
    level[r] = 0;
    std::vector<VertexId> q{static_cast<VertexId>(r)};
    for (std::size_t h = 0; h < q.size(); ++h) {
      for (const VertexId w : adj[q[h]]) {
        if (level[w] < 0) {
          level[w] = level[q[h]] + 1;
          q.push_back(w);
        }
      }
    }
  }
  std::vector<std::uint64_t> colour(g.vertices);
  for (std::uint64_t v = 0; v < g.vertices; ++v) colour[v] = static_cast<std::uint64_t>(level[v] & 1);
  bool bipartite = true;
  for (const Edge& x : g.edges) bipartite = bipartite && colour[x.src] != colour[x.dst];
  return {colour, bipartite};
}

// A skewed (R-MAT-like, a=0.57 b=c=0.19) directed graph on 2^scale vertices.
std::vector<Edge> skewed_edges(unsigned scale, std::uint64_t edges, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Edge> out;
  for (std::uint64_t i = 0; i < edges; ++i) {
    VertexId s = 0, d = 0;
    for (unsigned b = 0; b < scale; ++b) {
      const double r = u(rng);
      const unsigned q = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
      s = (s << 1) | (q >> 1);
      d = (d << 1) | (q & 1U);
    }
    out.push_back(Edge{s, d, 1.0F});
  }
  return out;
}

std::vector<std::uint64_t> column(const Rows& rows) {
  std::vector<std::uint64_t> v;
  for (const auto& r : rows) v.push_back(std::stoull(r.at(0)));
  return v;
}

std::uint64_t largest_class(const std::vector<std::uint64_t>& labels) {
  std::map<std::uint64_t, std::uint64_t> size;
  for (const auto l : labels) ++size[l];
  std::uint64_t best = 0;
  for (const auto& [l, s] : size) best = std::max(best, s);
  return best;
}

}  // namespace

// ---- scc ---------------------------------------------------------------------------------------

TEST_CASE("scc: hand-drawn graphs", "[alg_components]") {
  TempDir dir;
  SECTION("two cycles joined by one edge, a tail, an isolated vertex, a self-loop") {
    // 0->1->2->0 (SCC {0,1,2}), 2->3, 3->4->5->3 ({3,4,5}), 5->6 (alone), 7 isolated, 8 self-loop.
    const auto ini = write_graph(dir.path(), "g", {e(1, 2), e(0, 1), e(2, 0), e(2, 3), e(3, 4), e(4, 5), e(5, 3),
                                                   e(5, 6), e(8, 8)}, 9);
    const auto runs = expect_values(ini, "scc", {0, 0, 0, 3, 3, 3, 6, 7, 8}, all_configs());
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::SCC::COMPONENTS") == "5");
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::SCC::LARGEST") == "3");
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::SCC_COUNT") == "5");
  }
  SECTION("a cycle whose smallest id sits in the middle of the numbering") {
    // 5->2->7->4->5 plus 1->2 and 7->0: SCC {2,4,5,7} labelled 2.
    const auto ini = write_graph(dir.path(), "g", {e(5, 2), e(2, 7), e(7, 4), e(4, 5), e(1, 2), e(7, 0)}, 8,
                                 EdgeFileType::kUnweighted);
    expect_values(ini, "scc", {0, 1, 2, 3, 2, 2, 6, 2}, kFewConfigs);
  }
  SECTION("a DAG: every vertex alone") {
    const auto ini = write_graph(dir.path(), "g", {e(0, 1), e(0, 2), e(1, 3), e(2, 3), e(3, 4), e(0, 4)}, 5);
    const auto runs = expect_values(ini, "scc", {0, 1, 2, 3, 4}, kFewConfigs);
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::SCC::LARGEST") == "1");
  }
  SECTION("ascending and descending chains finish in a few rounds") {
    std::vector<Edge> edges;
    const VertexId n = 150;
    for (VertexId v = 0; v + 1 < n; ++v) edges.push_back(e(v, v + 1));           // 0 -> 1 -> ... -> 149
    for (VertexId v = n + 1; v < 2 * n; ++v) edges.push_back(e(v, v - 1));       // 299 -> ... -> 150
    const auto ini = write_graph(dir.path(), "g", edges, 2 * n);
    std::vector<std::uint64_t> want(2 * n);
    for (std::uint64_t v = 0; v < want.size(); ++v) want[v] = v;
    const auto runs = expect_values(ini, "scc", want, kFewConfigs);
    CHECK(std::stoul(stat_value(runs[0].proc.out, "ALGORITHM::SCC::ROUNDS")) <= 3);
  }
  SECTION("duplicate edges and a two-cycle") {
    const auto ini = write_graph(dir.path(), "g", {e(1, 0), e(0, 1), e(0, 1), e(1, 0), e(2, 1), e(2, 2)}, 3);
    const auto runs = expect_values(ini, "scc", {0, 0, 2}, kFewConfigs);
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::SCC::LARGEST") == "2");
  }
  SECTION("empty graph and edgeless graph") {
    const auto empty = write_graph(dir.path(), "empty", {}, 0);
    const RunResult r = run_one(empty, "scc", {1, 1, true});
    CHECK(r.rows.empty());
    CHECK(stat_value(r.proc.out, "ALGORITHM::SCC::COMPONENTS") == "0");
    CHECK(stat_value(r.proc.out, "ALGORITHM::SCC::LARGEST") == "0");
    const auto edgeless = write_graph(dir.path(), "edgeless", {}, 4);
    expect_values(edgeless, "scc", {0, 1, 2, 3}, kFewConfigs);
  }
}

TEST_CASE("scc: random and skewed graphs equal the reachability reference in every configuration",
          "[alg_components]") {
  TempDir dir;
  struct Case {
    const char* name;
    std::uint64_t vertices;
    std::vector<Edge> edges;
    bool every_config;  // all 12 configurations, or three
  };
  std::vector<Case> cases;
  cases.push_back({"uniform V=2000 E=2600", 2000, random_edges(2000, 2600, 7), true});   // near the giant-SCC threshold
  cases.push_back({"uniform V=1500 E=6000", 1500, random_edges(1500, 6000, 8), false});   // a giant SCC
  cases.push_back({"skewed 2^11 E=8000", 2048, skewed_edges(11, 8000, 9), true});
  for (const Case& c : cases) {
    INFO(c.name);
    const auto ini = write_graph(dir.path(), "g", c.edges, c.vertices);
    const InMemoryGraph g{c.vertices, c.edges};
    const auto want = scc_by_reachability(g);
    std::vector<VertexId> tarjan = scc_reference(g);
    CHECK(std::vector<std::uint64_t>(tarjan.begin(), tarjan.end()) == want);  // the runner's reference agrees
    const auto runs = expect_values(ini, "scc", want, c.every_config ? all_configs() : kFewConfigs);
    std::uint64_t components = 0;
    for (std::uint64_t v = 0; v < want.size(); ++v) components += want[v] == v ? 1 : 0;
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::SCC::COMPONENTS") == std::to_string(components));
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::SCC::LARGEST") == std::to_string(largest_class(want)));
    CHECK(components > 10);
  }
}

TEST_CASE("scc: the Tarjan reference handles long paths without recursion", "[alg_components]") {
  // One cycle of 300,000 vertices in shuffled order plus a 200,000-vertex chain into it.
  const std::uint64_t n = 500000;
  std::vector<VertexId> order(300000);
  for (VertexId i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(3));
  InMemoryGraph g{n, {}};
  for (std::size_t i = 0; i < order.size(); ++i) g.edges.push_back(e(order[i], order[(i + 1) % order.size()]));
  for (VertexId v = 300000; v + 1 < n; ++v) g.edges.push_back(e(v + 1, v));
  g.edges.push_back(e(300000, 5));
  const auto label = scc_reference(g);
  for (std::uint64_t v = 0; v < 300000; ++v) REQUIRE(label[v] == 0);
  for (std::uint64_t v = 300000; v < n; ++v) REQUIRE(label[v] == v);
}

// ---- mis ---------------------------------------------------------------------------------------

TEST_CASE("mis: hand-drawn graphs", "[alg_components]") {
  TempDir dir;
  SECTION("a path, lowest id wins") {
    // 0-1-2-3-4 listed in mixed directions: {0, 2, 4}.
    const auto ini = write_graph(dir.path(), "g", {e(1, 0), e(1, 2), e(3, 2), e(3, 4)}, 5);
    const auto runs = expect_values(ini, "mis", {1, 0, 1, 0, 1}, all_configs());
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::MIS::SIZE") == "3");
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::MIS::NOT_IN_MIS") == "2");
  }
  SECTION("a star centred on a high id, self-loops, duplicates and isolated vertices") {
    // 5 joined to 0..3 (duplicates, both directions); self-loops on 0 and 6; 4 isolated.
    const auto ini = write_graph(dir.path(), "g", {e(5, 0), e(0, 5), e(5, 1), e(2, 5), e(5, 3), e(5, 3), e(0, 0),
                                                   e(6, 6)}, 7);
    expect_values(ini, "mis", {1, 1, 1, 1, 1, 0, 1}, kFewConfigs);
  }
  SECTION("a star centred on the lowest id") {
    const auto ini = write_graph(dir.path(), "g", {e(1, 0), e(0, 2), e(3, 0), e(4, 0), e(1, 2)}, 5);
    expect_values(ini, "mis", {1, 0, 0, 0, 0}, kFewConfigs);
  }
  SECTION("a triangle with a pendant and a complete bipartite K3,3") {
    // Triangle 0,1,2 with 2-3; K3,3 on {4,5,6} x {7,8,9}.
    std::vector<Edge> edges = {e(0, 1), e(1, 2), e(2, 0), e(2, 3)};
    for (VertexId a = 4; a <= 6; ++a) {
      for (VertexId b = 7; b <= 9; ++b) edges.push_back(e(b, a));
    }
    expect_values(write_graph(dir.path(), "g", edges, 10), "mis", {1, 0, 0, 1, 1, 1, 1, 0, 0, 0}, kFewConfigs);
  }
  SECTION("edgeless") {
    expect_values(write_graph(dir.path(), "g", {}, 3), "mis", {1, 1, 1}, kFewConfigs);
  }
}

TEST_CASE("mis: random and skewed graphs equal the greedy set in every configuration", "[alg_components]") {
  TempDir dir;
  for (const int which : {0, 1}) {
    const std::uint64_t V = which == 0 ? 3000 : 4096;
    const std::vector<Edge> edges = which == 0 ? random_edges(V, 9000, 21) : skewed_edges(12, 20000, 22);
    INFO((which == 0 ? "uniform" : "skewed"));
    const InMemoryGraph g{V, edges};
    const auto want = greedy_mis(g);
    const auto lib = mis_reference(g);
    CHECK(std::vector<std::uint64_t>(lib.begin(), lib.end()) == want);
    const auto runs = expect_values(write_graph(dir.path(), "g", edges, V), "mis", want, all_configs());
    const auto size = static_cast<std::uint64_t>(std::count(want.begin(), want.end(), 1U));
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::MIS::SIZE") == std::to_string(size));
  }
}

// ---- checkbip ----------------------------------------------------------------------------------

TEST_CASE("checkbip: hand-drawn graphs", "[alg_components]") {
  TempDir dir;
  SECTION("an even cycle, a path and an isolated vertex: bipartite") {
    // 0-1-2-3-0 (directions mixed), 4-5-6, 7 alone.
    const auto ini = write_graph(dir.path(), "g", {e(1, 0), e(1, 2), e(3, 2), e(0, 3), e(6, 5), e(4, 5)}, 8);
    const auto runs = expect_values(ini, "checkbip", {0, 1, 0, 1, 0, 1, 0, 0}, all_configs());
    for (const auto& r : runs) {
      CHECK(stat_value(r.proc.out, "ALGORITHM::CHECKBIP::BIPARTITE") == "1");
      CHECK(r.proc.out.find("ALGORITHM::CHECKBIP::NOT_BIPARTITE") == std::string::npos);
    }
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::CHECKBIP::COMPONENTS") == "3");
  }
  SECTION("complete bipartite K3,4 numbered across the sides: bipartite") {
    // Sides {0,3,4} and {1,2,5,6}.
    std::vector<Edge> edges;
    for (const VertexId a : {0U, 3U, 4U}) {
      for (const VertexId b : {1U, 2U, 5U, 6U}) edges.push_back(a % 2 == 0 ? e(a, b) : e(b, a));
    }
    const auto runs = expect_values(write_graph(dir.path(), "g", edges, 7), "checkbip", {0, 1, 1, 0, 0, 1, 1}, kFewConfigs);
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::CHECKBIP::BIPARTITE") == "1");
  }
  SECTION("an odd cycle in one component of two: not bipartite") {
    // 0-1-2-0 triangle, 3-4 edge.
    const auto ini = write_graph(dir.path(), "g", {e(0, 1), e(1, 2), e(2, 0), e(3, 4)}, 5);
    const auto runs = expect_values(ini, "checkbip", {0, 1, 1, 0, 1}, all_configs());
    for (const auto& r : runs) {
      CHECK(stat_value(r.proc.out, "ALGORITHM::CHECKBIP::BIPARTITE") == "0");
      CHECK(stat_value(r.proc.out, "ALGORITHM::CHECKBIP::NOT_BIPARTITE") == "1");
      CHECK(stat_value(r.proc.out, "ALGORITHM::CHECKBIP::CONFLICT_VERTICES") == "2");  // 1 and 2
    }
  }
  SECTION("a self-loop is an odd cycle") {
    const auto ini = write_graph(dir.path(), "g", {e(0, 1), e(1, 2), e(2, 2)}, 3);
    const auto runs = expect_values(ini, "checkbip", {0, 1, 0}, kFewConfigs);
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::CHECKBIP::NOT_BIPARTITE") == "1");
  }
  SECTION("a 5-cycle: the long way round") {
    const auto ini = write_graph(dir.path(), "g", {e(0, 1), e(1, 2), e(2, 3), e(3, 4), e(4, 0)}, 5);
    const auto runs = expect_values(ini, "checkbip", {0, 1, 0, 0, 1}, kFewConfigs);
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::CHECKBIP::NOT_BIPARTITE") == "1");
  }
}

TEST_CASE("checkbip: random bipartite and non-bipartite graphs in every configuration", "[alg_components]") {
  TempDir dir;
  std::mt19937_64 rng(31);
  for (const bool make_odd : {false, true}) {
    // A random bipartite graph: sides by a random bit per vertex; then optionally one odd edge.
    const std::uint64_t V = 3000;
    std::vector<std::uint8_t> side(V);
    for (auto& s : side) s = static_cast<std::uint8_t>(rng() & 1U);
    std::vector<Edge> edges;
    for (const Edge& x : random_edges(V, 12000, make_odd ? 41 : 42)) {
      if (side[x.src] != side[x.dst]) edges.push_back(x);
    }
    if (make_odd) {
      for (const Edge& x : edges) {
        // Close a triangle on the first edge: a third vertex joined to both ends.
        const VertexId w = x.src + 1 == x.dst ? x.dst + 1 : x.src + 1;
        if (w < V && w != x.dst) {
          edges.push_back(e(x.src, w));
          edges.push_back(e(w, x.dst));
          break;
        }
      }
    }
    INFO((make_odd ? "with a triangle" : "bipartite"));
    const InMemoryGraph g{V, edges};
    const auto [want, bipartite] = bfs_colours(g);
    REQUIRE(bipartite == !make_odd);
    const CheckBipResult lib = checkbip_reference(g);
    CHECK(lib.bipartite == bipartite);
    const auto runs = expect_values(write_graph(dir.path(), "g", edges, V), "checkbip", want, all_configs());
    CHECK(stat_value(runs[0].proc.out, "ALGORITHM::CHECKBIP::BIPARTITE") == (bipartite ? "1" : "0"));
  }
  // A skewed graph (odd cycles everywhere).
  const std::vector<Edge> skewed = skewed_edges(11, 6000, 43);
  const auto [want, bipartite] = bfs_colours(InMemoryGraph{2048, skewed});
  CHECK_FALSE(bipartite);
  expect_values(write_graph(dir.path(), "s", skewed, 2048), "checkbip", want, kFewConfigs);
}

// ---- real graphs -------------------------------------------------------------------------------

namespace {

RunResult run_real(const std::string& file, const std::string& algorithm, const Config& c, bool verify) {
  TempDir work;
  TempDir out_dir;
  const auto output = out_dir / "out.txt";
  std::vector<std::string> args = {"-g", real_graph(file).string(), "-b", algorithm, "-k", std::to_string(c.k), "-p",
                                   std::to_string(c.p), "--work_dir", work.path().string(), "--output", output.string()};
  if (!c.direct) args.push_back("--no_dio");
  if (verify) args.push_back("--verify");
  RunResult r;
  r.proc = run_driver_in_process(args);
  INFO(file << " -b " << algorithm << " " << describe(c) << "\nstdout: " << r.proc.out << "\nstderr: " << r.proc.err);
  REQUIRE(r.proc.exit_code == 0);
  if (verify) CHECK(r.proc.out.find("Verification: PASS") != std::string::npos);
  CHECK(work.entries().empty());
  r.rows = read_output(output);
  return r;
}

std::vector<std::uint64_t> sizes_of(const std::vector<std::uint64_t>& labels) {
  std::map<std::uint64_t, std::uint64_t> size;
  for (const auto l : labels) ++size[l];
  std::vector<std::uint64_t> out;
  for (const auto& [l, s] : size) out.push_back(s);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("scc: cnr-2000 has 100,977 SCCs, the largest of 112,023, and the published size multiset",
          "[alg_components]") {
  const RunResult one = run_real("cnr-2000.txt.gz", "scc", {1, 2, true}, /*verify=*/true);
  CHECK(stat_value(one.proc.out, "ALGORITHM::SCC::COMPONENTS") == "100977");
  CHECK(stat_value(one.proc.out, "ALGORITHM::SCC::LARGEST") == "112023");
  const auto labels = column(one.rows);
  REQUIRE(labels.size() == 325557);
  // cnr-2000.sccsizes: big-endian u32 size of every SCC.
  std::ifstream in(real_data_dir() / "cnr-2000.sccsizes", std::ios::binary);
  REQUIRE(in.good());
  std::vector<std::uint64_t> published;
  unsigned char b[4];
  while (in.read(reinterpret_cast<char*>(b), 4)) {
    published.push_back((std::uint64_t{b[0]} << 24) | (std::uint64_t{b[1]} << 16) | (std::uint64_t{b[2]} << 8) | b[3]);
  }
  std::sort(published.begin(), published.end());
  CHECK(published.size() == 100977);
  CHECK(sizes_of(labels) == published);
  const auto supersteps = std::stoull(stat_value(one.proc.out, "CORE::PHASES"));
  WARN("cnr-2000 scc: " << supersteps << " supersteps, " << stat_value(one.proc.out, "ALGORITHM::SCC::ROUNDS")
                        << " rounds");
  CHECK(supersteps < 400);
}

TEST_CASE("scc: soc-Slashdot0902 has 10,559 SCCs, the largest of 71,307", "[alg_components]") {
  const RunResult one = run_real("soc-slashdot0902-directed.txt.gz", "scc", {3, 2, true}, /*verify=*/true);
  CHECK(stat_value(one.proc.out, "ALGORITHM::SCC::COMPONENTS") == "10559");
  CHECK(stat_value(one.proc.out, "ALGORITHM::SCC::LARGEST") == "71307");
  CHECK(largest_class(column(one.rows)) == 71307);
}

TEST_CASE("mis and checkbip: real graphs pass --verify in and out of core", "[alg_components]") {
  for (const Config& c : {Config{1, 2, true}, Config{3, 2, false}}) {
    const RunResult mis = run_real("email-enron-undirected.txt.gz", "mis", c, /*verify=*/true);
    const RunResult bip = run_real("email-enron-undirected.txt.gz", "checkbip", c, /*verify=*/true);
    CHECK(stat_value(bip.proc.out, "ALGORITHM::CHECKBIP::NOT_BIPARTITE") == "1");  // it has triangles
    CHECK(stat_value(bip.proc.out, "ALGORITHM::CHECKBIP::COMPONENTS") == "1065");
  }
  const RunResult mis = run_real("soc-slashdot0902-directed.txt.gz", "mis", {2, 2, true}, /*verify=*/true);
  CHECK(std::stoull(stat_value(mis.proc.out, "ALGORITHM::MIS::SIZE")) > 0);
}
