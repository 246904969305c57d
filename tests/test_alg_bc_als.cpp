// Tests of -b bc (single-source Brandes dependencies) and -b als (alternating least squares):
// hand-drawn graphs with answers worked out by hand (a path, a star, a diamond with two shortest
// paths, duplicate edges and self-loops, trees where the dependency is the subtree size; a rank-1
// rating matrix ALS must fit), random and skewed graphs against the in-memory references computed
// here, agreement across K in {1, 2, 7}, -p in {1, 2}, direct and --no_dio within the documented
// tolerances, --verify PASS, the objective never rising, parameter errors, and a memory budget that
// forces K > 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "algorithms/als.hpp"
#include "algorithms/bc.hpp"
#include "algorithms/reference_graph.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

using Rows = std::vector<std::vector<std::string>>;

using Config = DriverConfig;
const Config kMatrix[] = {{"1", "1", true},  {"1", "2", false}, {"2", "1", false},
                          {"2", "2", true},  {"7", "1", true},  {"7", "2", false}};
const Config kSmall[] = {{"1", "1", true}, {"2", "1", false}, {"3", "2", true}};
// Values in --output are printed with 9 significant digits.
constexpr double kPrinted = 1e-8;

struct Run {
  Rows rows;
  std::string out;
};

Run run(const std::filesystem::path& ini, const std::string& algorithm, const Config& c,
        const std::vector<std::string>& extra = {}) {
  DriverRun r = run_driver_config(ini, algorithm, c, extra);
  INFO("-b " << algorithm << " " << describe(c));
  CHECK(stat_value(r.proc.out, "CORE::CONFIG::PARTITIONS") == c.k);
  return Run{std::move(r.rows), r.proc.out};
}

std::vector<double> column(const Rows& rows, std::size_t c = 0) {
  std::vector<double> out;
  for (const auto& row : rows) out.push_back(row.size() > c ? std::strtod(row[c].c_str(), nullptr) : NAN);
  return out;
}

bool within(double a, double b, double tolerance) { return std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(b)); }

Edge e(VertexId s, VertexId d, float w = 1.0F) { return Edge{s, d, w}; }

// A skewed (R-MAT, a = 0.57, b = c = 0.19) edge list over 2^scale vertices.
std::vector<Edge> rmat_edges(unsigned scale, std::uint64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Edge> out;
  for (std::uint64_t i = 0; i < count; ++i) {
    VertexId s = 0;
    VertexId d = 0;
    for (unsigned bit = 0; bit < scale; ++bit) {
      const double r = u(rng);
      const unsigned q = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
      s = (s << 1) | (q >> 1);
      d = (d << 1) | (q & 1);
    }
    out.push_back(Edge{s, d, static_cast<float>(1 + (i % 5))});
  }
  return out;
}

// ---- bc ------------------------------------------------------------------------------------

// Runs bc in every small configuration and checks the dependencies against `want` (tolerance).
void expect_bc(const std::filesystem::path& ini, VertexId source, const std::vector<double>& want) {
  for (const Config& c : kSmall) {
    const Run r = run(ini, "bc", c, {"--bc::source", std::to_string(source)});
    const std::vector<double> got = column(r.rows);
    INFO("-k " << c.k << " -p " << c.p);
    REQUIRE(got.size() == want.size());
    for (std::size_t v = 0; v < want.size(); ++v) {
      INFO("vertex " << v);
      CHECK(r.rows[v].size() == 1);
      CHECK(within(got[v], want[v], kPrinted));
    }
  }
}

TEST_CASE("bc: a path, a star, a diamond, duplicates and self-loops", "[alg_bc_als]") {
  TempDir dir;
  // Path 0 -> 1 -> 2 -> 3 -> 4 from 0: vertex v lies on the paths to the 4 - v vertices after it.
  expect_bc(write_graph(dir.path(), "path", {e(0, 1), e(1, 2), e(2, 3), e(3, 4)}, 5), 0, {0, 3, 2, 1, 0});
  // From the middle: 2 -> 3 -> 4 only; 0 and 1 unreached.
  expect_bc(write_graph(dir.path(), "path", {e(0, 1), e(1, 2), e(2, 3), e(3, 4)}, 5), 2, {0, 0, 0, 1, 0});
  // Star with edges both ways around centre 0, from leaf 1: every path to another leaf crosses 0.
  std::vector<Edge> star;
  for (VertexId leaf = 1; leaf <= 4; ++leaf) {
    star.push_back(e(leaf, 0));
    star.push_back(e(0, leaf));
  }
  expect_bc(write_graph(dir.path(), "star", star, 5), 1, {3, 0, 0, 0, 0});
  // Diamond 0 -> {1, 2} -> 3 -> 4: two shortest paths to 3 and 4; 1 and 2 carry half of each.
  expect_bc(write_graph(dir.path(), "diamond", {e(0, 1), e(0, 2), e(1, 3), e(2, 3), e(3, 4)}, 5, EdgeFileType::kUnweighted),
            0, {0, 1, 1, 1, 0});
  // A duplicate edge doubles the paths through it (multigraph); self-loops change nothing.
  // 0 =2=> 1 -> 2, 0 -> 3 -> 2: sigma(2) = 3, 1 carries 2/3 of the path to 2 and 3 carries 1/3.
  expect_bc(write_graph(dir.path(), "multi", {e(0, 1), e(0, 1), e(1, 1), e(1, 2), e(0, 3), e(3, 2), e(2, 2)}, 5), 0,
            {0, 2.0 / 3.0, 0, 1.0 / 3.0, 0});
}

TEST_CASE("bc: on a tree the dependency is the size of the subtree below", "[alg_bc_als]") {
  TempDir dir;
  const std::uint64_t V = 3000;
  std::mt19937_64 rng(5);
  std::vector<Edge> edges;
  std::vector<VertexId> parent(V, 0);
  // Vertex v (v >= 1, v < 2900) hangs under a random earlier vertex; 2900.. are isolated.
  for (VertexId v = 1; v < 2900; ++v) {
    parent[v] = static_cast<VertexId>(rng() % v);
    edges.push_back(e(parent[v], v));
  }
  std::shuffle(edges.begin(), edges.end(), rng);
  std::vector<double> below(V, 0.0);
  for (VertexId v = 2899; v >= 1; --v) below[parent[v]] += below[v] + 1;
  below[0] = 0;  // the source
  const auto ini = write_graph(dir.path(), "tree", edges, V);
  for (const Config& c : kSmall) {
    const Run r = run(ini, "bc", c);
    const std::vector<double> got = column(r.rows);
    std::size_t wrong = 0;
    for (std::uint64_t v = 0; v < V; ++v) wrong += got[v] == below[v] ? 0 : 1;  // integers: exact
    CHECK(wrong == 0);
    CHECK(stat_value(r.out, "ALGORITHM::BC::REACHED") == "2900");
    // The largest subtree below a non-source vertex.
    double best = 0;
    VertexId best_v = 0;
    for (VertexId v = 1; v < V; ++v) {
      if (below[v] > best) {
        best = below[v];
        best_v = v;
      }
    }
    CHECK(stat_value(r.out, "ALGORITHM::BC::MAX_CENTRALITY_VERTEX") == std::to_string(best_v));
  }
}

TEST_CASE("bc: random and skewed graphs equal Brandes in memory across K, -p and I/O", "[alg_bc_als]") {
  TempDir dir;
  struct Case {
    const char* name;
    std::vector<Edge> edges;
    std::uint64_t vertices;
    EdgeFileType type;
  };
  const std::vector<Case> cases = {{"uniform", random_edges(2000, 8000, 3), 2000, EdgeFileType::kWeighted},
                                   {"rmat", rmat_edges(11, 16000, 9), 2048, EdgeFileType::kUnweighted}};
  for (const Case& g : cases) {
    INFO(g.name);
    const auto ini = write_graph(dir.path(), g.name, g.edges, g.vertices, g.type);
    // A source that reaches a good part of the graph.
    InMemoryGraph mem{g.vertices, g.edges};
    VertexId source = 0;
    BcResult ref = bc_reference(mem, source);
    while (std::count_if(ref.level.begin(), ref.level.end(), [](auto l) { return l >= 0; }) < 500) {
      ref = bc_reference(mem, ++source);
    }
    REQUIRE(*std::max_element(ref.level.begin(), ref.level.end()) >= 3);
    std::string max_vertex;
    for (const Config& c : kMatrix) {
      INFO("-k " << c.k << " -p " << c.p << (c.direct ? "" : " --no_dio"));
      const Run r = run(ini, "bc", c, {"--bc::source", std::to_string(source)});
      const std::vector<double> got = column(r.rows);
      REQUIRE(got.size() == g.vertices);
      std::size_t wrong = 0;
      for (std::uint64_t v = 0; v < g.vertices; ++v) wrong += within(got[v], ref.delta[v], kPrinted) ? 0 : 1;
      CHECK(wrong == 0);
      if (max_vertex.empty()) max_vertex = stat_value(r.out, "ALGORITHM::BC::MAX_CENTRALITY_VERTEX");
      CHECK(stat_value(r.out, "ALGORITHM::BC::MAX_CENTRALITY_VERTEX") == max_vertex);
      CHECK(stat_value(r.out, "ALGORITHM::BC::SOURCE") == std::to_string(source));
    }
  }
}

// Brandes' identity: every shortest s -> t path has d(s, t) - 1 inner vertices, so the dependencies
// sum to sum over reached t != s of (level(t) - 1); the levels come from -b bfs, not from bc.
TEST_CASE("bc: real directed graph; dependencies sum to the inner vertices of all shortest paths", "[alg_bc_als]") {
  const auto ini = real_graph("email-enron-undirected.txt.gz");  // each edge once: a directed view
  const Config c{"3", "2", true};
  const Run bc = run(ini, "bc", c, {"--bc::source", "5"});
  const Run bfs = run(ini, "bfs", c, {"--bfs::root", "5"});
  REQUIRE(bc.rows.size() == 36692);
  REQUIRE(bfs.rows.size() == bc.rows.size());
  double sum = 0;
  double inner = 0;
  std::uint64_t reached = 0;
  for (std::size_t v = 0; v < bc.rows.size(); ++v) {
    sum += std::strtod(bc.rows[v][0].c_str(), nullptr);
    const long level = std::strtol(bfs.rows[v][0].c_str(), nullptr, 10);
    if (level >= 0) ++reached;
    if (level >= 1) inner += static_cast<double>(level - 1);
  }
  CHECK(reached > 1000);
  CHECK(stat_value(bc.out, "ALGORITHM::BC::REACHED") == std::to_string(reached));
  CHECK(sum == Approx(inner).epsilon(1e-7));
}

TEST_CASE("bc: a source out of range is an error naming the option", "[alg_bc_als]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", {e(0, 1)}, 2);
  const ProcessResult r = run_driver_in_process({"-g", ini.string(), "-b", "bc", "--bc::source", "2"});
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("--bc::source 2") != std::string::npos);
}

// ---- als -----------------------------------------------------------------------------------

// Objective values of the ITER<i>::OBJECTIVE lines.
std::vector<double> objectives(const std::string& out, std::uint64_t iterations) {
  std::vector<double> o;
  for (std::uint64_t i = 0; i <= iterations; ++i) {
    const std::string v = stat_value(out, "ALGORITHM::ALS::ITER" + std::to_string(i) + "::OBJECTIVE");
    REQUIRE(!v.empty());
    o.push_back(std::strtod(v.c_str(), nullptr));
  }
  return o;
}

TEST_CASE("als: fits a rank-1 rating matrix; both directions listed give the same vectors", "[alg_bc_als]") {
  TempDir dir;
  // Users 0..5, items 6..11, rating = u * i with u = 1 + user / 2, i = 1 + (item - 6) / 3, all 36 pairs.
  std::vector<Edge> ratings;
  std::vector<Edge> both;
  for (VertexId u = 0; u < 6; ++u) {
    for (VertexId i = 6; i < 12; ++i) {
      const float r = (1.0F + static_cast<float>(u) / 2.0F) * (1.0F + static_cast<float>(i - 6) / 3.0F);
      ratings.push_back(e(u, i, r));
      both.push_back(e(u, i, r));
      both.push_back(e(i, u, r));
    }
  }
  // A user id above the items is not what X-Stream's layout allows; here the direction of a record
  // is irrelevant, so the item -> user copies are harmless.
  const auto one = write_graph(dir.path(), "one", ratings, 12);
  const auto two = write_graph(dir.path(), "two", both, 12);
  const std::vector<std::string> niters = {"--als::niters", "10"};
  Rows reference_rows;
  for (const Config& c : kSmall) {
    const Run r = run(one, "als", c, niters);
    REQUIRE(r.rows.size() == 12);
    for (const auto& row : r.rows) CHECK(row.size() == kAlsRank);
    const double rmse = std::strtod(stat_value(r.out, "ALGORITHM::ALS::RMSE").c_str(), nullptr);
    const double initial = std::strtod(stat_value(r.out, "ALGORITHM::ALS::ITER0::RMSE").c_str(), nullptr);
    CHECK(rmse < 0.05);   // ratings 1 .. 7.5; regularisation costs a little
    CHECK(initial > 1.0);
    CHECK(stat_value(r.out, "ALGORITHM::ALS::RATINGS") == "36");
    CHECK(stat_value(r.out, "ALGORITHM::ALS::USERS") == "6");
    CHECK(stat_value(r.out, "ALGORITHM::ALS::ITEMS") == "6");
    CHECK(stat_value(r.out, "ALGORITHM::ALS::MIXED_VERTICES") == "0");
    const std::vector<double> o = objectives(r.out, 10);
    for (std::size_t i = 1; i < o.size(); ++i) CHECK(o[i] <= o[i - 1] * (1 + 1e-9));
    // Every predicted rating is close to the true one.
    for (VertexId u = 0; u < 6; ++u) {
      for (VertexId i = 6; i < 12; ++i) {
        double dot = 0;
        for (unsigned j = 0; j < kAlsRank; ++j) dot += column(r.rows, j)[u] * column(r.rows, j)[i];
        CHECK(dot == Approx((1.0 + u / 2.0) * (1.0 + (i - 6) / 3.0)).epsilon(0.03));
      }
    }
    if (reference_rows.empty()) reference_rows = r.rows;
    const Run r2 = run(two, "als", c, niters);
    CHECK(stat_value(r2.out, "ALGORITHM::ALS::RATINGS") == "72");
    CHECK(std::strtod(stat_value(r2.out, "ALGORITHM::ALS::RMSE").c_str(), nullptr) == Approx(rmse).epsilon(1e-6));
    for (unsigned j = 0; j < kAlsRank; ++j) {
      const auto a = column(reference_rows, j);
      const auto b = column(r.rows, j);
      const auto d = column(r2.rows, j);
      for (std::size_t v = 0; v < 12; ++v) {
        CHECK(within(b[v], a[v], kAlsTolerance));
        CHECK(within(d[v], a[v], kAlsTolerance));
      }
    }
  }
}

TEST_CASE("als: random bipartite and skewed graphs equal the in-memory ALS across K, -p and I/O", "[alg_bc_als]") {
  TempDir dir;
  // Bipartite: 600 users (0..599), 400 items (600..999), ratings 1..5.
  std::mt19937_64 rng(21);
  std::vector<Edge> bip;
  for (int i = 0; i < 6000; ++i) {
    const auto u = static_cast<VertexId>(rng() % 600);
    const auto it = static_cast<VertexId>(600 + rng() % 400);
    bip.push_back(i % 2 == 0 ? e(u, it, static_cast<float>(1 + rng() % 5)) : e(it, u, static_cast<float>(1 + rng() % 5)));
  }
  struct Case {
    const char* name;
    std::vector<Edge> edges;
    std::uint64_t vertices;
    bool bipartite;
  };
  const std::vector<Case> cases = {{"bipartite", bip, 1000, true}, {"rmat", rmat_edges(10, 8000, 4), 1024, false}};
  const std::uint32_t iterations = 4;
  for (const Case& g : cases) {
    INFO(g.name);
    const auto ini = write_graph(dir.path(), g.name, g.edges, g.vertices);
    const InMemoryGraph mem{g.vertices, g.edges};
    const AlsResult ref = als_reference(g.vertices, als_ratings(mem), iterations);
    for (std::size_t t = 1; t < ref.objective.size(); ++t) CHECK(ref.objective[t] <= ref.objective[t - 1] * (1 + 1e-12));
    Rows first;
    for (const Config& c : kMatrix) {
      INFO("-k " << c.k << " -p " << c.p << (c.direct ? "" : " --no_dio"));
      const Run r = run(ini, "als", c, {"--als::niters", std::to_string(iterations)});
      REQUIRE(r.rows.size() == g.vertices);
      if (g.bipartite) CHECK(stat_value(r.out, "ALGORITHM::ALS::MIXED_VERTICES") == "0");
      if (!g.bipartite) CHECK(stat_value(r.out, "ALGORITHM::ALS::MIXED_VERTICES") != "0");
      const double sse = std::strtod(stat_value(r.out, "ALGORITHM::ALS::SSE").c_str(), nullptr);
      CHECK(within(sse, ref.sse.back(), kAlsTolerance));
      const std::vector<double> o = objectives(r.out, iterations);
      for (std::size_t i = 0; i < o.size(); ++i) CHECK(within(o[i], ref.objective[2 * i], kAlsTolerance));
      if (first.empty()) first = r.rows;
      std::size_t wrong = 0;
      for (unsigned j = 0; j < kAlsRank; ++j) {
        const auto a = column(first, j);
        const auto b = column(r.rows, j);
        for (std::size_t v = 0; v < g.vertices; ++v) wrong += within(b[v], a[v], kAlsTolerance) ? 0 : 1;
      }
      CHECK(wrong == 0);
    }
  }
}

// Autotune: a budget too small for one partition holding every vertex forces K > 1; 1G gives K = 1;
// same results. Subprocesses, so that the budget is measured against the driver's own RSS (the plan's
// baseline is ~11 MiB: the RSS at start, which varies by machine and libraries, plus slack). Each
// budget leaves >= 3 MiB on both sides: above the smallest configuration and below what K = 1 needs.
// bc on 2^19 vertices (24 B each, 12 MiB of state; rmat: few levels, few supersteps): smallest ~16.8
// MiB, K = 1 ~24 MiB, budget 20M. als on 2^16 (272 B each, 17 MiB): smallest ~16.4 MiB, K = 1 ~30 MiB,
// budget 21M.
TEST_CASE("als and bc: a small memory budget forces K > 1 and gives the in-memory result", "[alg_bc_als]") {
  if (kSanitized) {
    WARN("skipped under a sanitizer: its shadow memory alone exceeds the budget used here");
    return;
  }
  TempDir dir;
  struct Case {
    const char* algorithm;
    std::uint64_t vertices;
    std::vector<Edge> edges;
    double tolerance;
    const char* budget;
  };
  const std::vector<Case> cases = {{"bc", std::uint64_t{1} << 19, rmat_edges(19, 1000000, 12), kPrinted, "20M"},
                                   {"als", std::uint64_t{1} << 16, rmat_edges(16, 262144, 12), kAlsTolerance, "21M"}};
  for (const Case& g : cases) {
    INFO(g.algorithm);
    const auto ini = write_graph(dir.path(), g.algorithm, g.edges, g.vertices);
    std::vector<Rows> results;
    for (const char* budget : {"1G", g.budget}) {
      TempDir work;
      TempDir out_dir;
      const auto output = out_dir / "out.txt";
      const ProcessResult r = run_tool("benchmark_driver", {"-g", ini.string(), "-b", g.algorithm, "-p", "2", "--physical_memory",
                                                            budget, "--work_dir", work.path().string(), "--output",
                                                            output.string(), "--verify", "--als::niters", "2"});
      INFO("budget " << budget << "\n" << r.out << r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.out.find("Verification: PASS") != std::string::npos);
      const std::string k = stat_value(r.out, "CORE::CONFIG::PARTITIONS");
      if (std::string(budget) == "1G") CHECK(k == "1");
      if (std::string(budget) != "1G") CHECK(std::strtoull(k.c_str(), nullptr, 10) > 1);
      results.push_back(read_output(output));
    }
    REQUIRE(results[0].size() == g.vertices);
    REQUIRE(results[1].size() == g.vertices);
    std::size_t wrong = 0;
    for (std::size_t c = 0; c < results[0][0].size(); ++c) {
      const auto a = column(results[0], c);
      const auto b = column(results[1], c);
      for (std::size_t v = 0; v < g.vertices; ++v) wrong += within(b[v], a[v], g.tolerance) ? 0 : 1;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("als: a real undirected graph listed once, and the same graph listed both ways", "[alg_bc_als]") {
  // facebook-combined lists every edge once; ALS reads a record's direction-free rating, so the
  // graph doubled into both directions gives the same vectors (the weighted regulariser doubles too).
  const auto ini = real_graph("facebook-combined-undirected.txt.gz");
  const Run once = run(ini, "als", {"2", "2", true}, {"--als::niters", "3"});
  CHECK(stat_value(once.out, "ALGORITHM::ALS::RATINGS") == "88234");
  const std::vector<double> o = objectives(once.out, 3);
  for (std::size_t i = 1; i < o.size(); ++i) CHECK(o[i] <= o[i - 1] * (1 + 1e-9));
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  auto g = load_graph_in_memory(*info);
  REQUIRE(g.has_value());
  std::vector<Edge> both = g->edges;
  for (const Edge& x : g->edges) both.push_back(Edge{x.dst, x.src, x.weight});
  TempDir dir;
  const Run twice = run(write_graph(dir.path(), "both", both, g->vertices, EdgeFileType::kUnweighted), "als",
                        {"3", "1", false}, {"--als::niters", "3"});
  CHECK(stat_value(twice.out, "ALGORITHM::ALS::RATINGS") == "176468");
  CHECK(std::strtod(stat_value(twice.out, "ALGORITHM::ALS::RMSE").c_str(), nullptr) ==
        Approx(std::strtod(stat_value(once.out, "ALGORITHM::ALS::RMSE").c_str(), nullptr)).epsilon(1e-6));
  std::size_t wrong = 0;
  for (unsigned j = 0; j < kAlsRank; ++j) {
    const auto a = column(once.rows, j);
    const auto b = column(twice.rows, j);
    for (std::size_t v = 0; v < a.size(); ++v) wrong += within(b[v], a[v], kAlsTolerance) ? 0 : 1;
  }
  CHECK(wrong == 0);
}

TEST_CASE("als: --als::niters 0 is an error naming the option", "[alg_bc_als]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", {e(0, 1)}, 2);
  const ProcessResult r = run_driver_in_process({"-g", ini.string(), "-b", "als", "--als::niters", "0"});
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("--als::niters 0") != std::string::npos);
}

}  // namespace
