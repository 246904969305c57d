// Tests of the two model-based algorithms, hyperanf and belief_propagation: hand-drawn graphs with
// known answers, the in-memory references against exact answers (BFS balls for HyperANF, brute-
// force marginals on trees for BP), and the engine against the references on random and skewed
// graphs, with identical output for every K (1, 2, 7), thread count (1, 2) and I/O mode.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "algorithms/belief_propagation.hpp"
#include "algorithms/hyperanf.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

using Rows = std::vector<std::vector<std::string>>;

using Config = DriverConfig;
const Config kConfigs[] = {{"1", "1", true}, {"2", "2", false}, {"7", "1", true}, {"7", "2", false}};

using Run = DriverRun;

// The ALGORITHM:: lines of a run (everything algorithm-specific, in order).
std::string algorithm_lines(const std::string& out) {
  std::string lines;
  std::size_t at = 0;
  while ((at = out.find("ALGORITHM::", at)) != std::string::npos) {
    const std::size_t end = out.find('\n', at);
    lines += out.substr(at, end - at) + "\n";
    at = end;
  }
  return lines;
}

// Runs every configuration; all must PASS and give identical output and ALGORITHM:: lines.
std::vector<Run> run_everywhere(const std::filesystem::path& ini, const std::string& algorithm,
                                const std::vector<std::string>& extra = {}) {
  std::vector<Run> runs;
  for (const Config& c : kConfigs) runs.push_back(run_driver_config(ini, algorithm, c, extra));
  for (std::size_t i = 1; i < runs.size(); ++i) {
    INFO("-k " << kConfigs[i].k << " -p " << kConfigs[i].p << " against -k 1 -p 1");
    CHECK(runs[i].rows == runs[0].rows);
    CHECK(algorithm_lines(runs[i].proc.out) == algorithm_lines(runs[0].proc.out));
  }
  return runs;
}

InMemoryGraph graph_of(std::vector<Edge> edges, std::uint64_t vertices) {
  InMemoryGraph g;
  g.vertices = vertices;
  g.edges = std::move(edges);
  return g;
}

std::vector<Edge> skewed_edges(std::uint64_t vertices, std::uint64_t count, std::uint64_t seed) {
  auto edges = random_edges(vertices, count, seed);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (i % 5 == 0 || i % 5 == 1) edges[i].dst = 0;  // a hub with a huge in-degree
    if (i % 10 == 2) edges[i].src = 1;                // a hub with a huge out-degree
    if (i % 97 == 0) edges[i].dst = edges[i].src;     // self-loops
  }
  for (std::size_t i = 0; i < 200; ++i) edges.push_back(edges[i * 7]);  // duplicates
  return edges;
}

// ---- HyperANF ----------------------------------------------------------------------------------

TEST_CASE("hyperanf: hand-drawn graphs give the exact ball sizes (in-neighbour direction)", "[alg_models]") {
  TempDir dir;
  // A directed path 0->1->...->7 and an in-star 9,10,11,12,13 -> 8.
  std::vector<Edge> edges;
  for (VertexId v = 0; v < 7; ++v) edges.push_back({v, v + 1, 1.0F});
  for (VertexId v = 9; v <= 13; ++v) edges.push_back({v, 8, 1.0F});
  const auto ini = write_graph(dir.path(), "g", edges, 14, EdgeFileType::kUnweighted);
  const auto runs = run_everywhere(ini, "hyperanf");
  const Rows& rows = runs[0].rows;
  REQUIRE(rows.size() == 14);
  // Balls grow along the path: |B(v, t)| = min(v, t) + 1; the path needs 7 iterations, the
  // 8th changes nothing (epsilon stop at t = 8). Small sets are counted almost exactly (these ids
  // land in distinct registers; linear counting then over-estimates by < 5%).
  const double want[14] = {1, 2, 3, 4, 5, 6, 7, 8, 6, 1, 1, 1, 1, 1};
  for (int v = 0; v < 14; ++v) {
    INFO("vertex " << v << " estimate " << rows[v][0]);
    CHECK(std::lround(std::stod(rows[v][0])) == std::lround(want[v]));
    CHECK(std::fabs(std::stod(rows[v][0]) - want[v]) < 0.05 * want[v] + 0.01);
  }
  const std::string& out = runs[0].proc.out;
  CHECK(stat_value(out, "ALGORITHM::HYPERANF::REGISTERS") == "128");
  CHECK(stat_value(out, "ALGORITHM::HYPERANF::ITERATIONS") == "8");  // N(8) = N(7): epsilon stop
  CHECK(!stat_value(out, "ALGORITHM::HYPERANF::EPSILON_STOP").empty());
  // N(0) = 14, N(1) = 14 + 7 + 5 = 26 (about: HLL), N(7) = 36 + 6 + 5 = 47.
  CHECK(std::lround(std::stod(stat_value(out, "ALGORITHM::HYPERANF::ANF::0"))) == 14);
  CHECK(std::lround(std::stod(stat_value(out, "ALGORITHM::HYPERANF::ANF::1"))) == 26);
  CHECK(std::fabs(std::stod(stat_value(out, "ALGORITHM::HYPERANF::ANF::7")) - 47) < 1.0);
  CHECK(stat_value(out, "ALGORITHM::HYPERANF::ANF::8") == stat_value(out, "ALGORITHM::HYPERANF::ANF::7"));
  CHECK(stat_value(out, "ALGORITHM::HYPERANF::ANF::9").empty());
  CHECK(stat_value(out, "ALGORITHM::HYPERANF::SEED::7") == "7");
  CHECK(stat_value(out, "ALGORITHM::HYPERANF::SEED::1") == "8");  // the star centre: 6 at t = 1
}

TEST_CASE("hyperanf: X-Stream's stopping rules", "[alg_models]") {
  TempDir dir;
  std::vector<Edge> edges;
  for (VertexId v = 0; v < 29; ++v) edges.push_back({v, v + 1, 1.0F});  // a path of 30 vertices
  const auto ini = write_graph(dir.path(), "path", edges, 30, EdgeFileType::kUnweighted);
  const Config c{"2", "2", true};
  SECTION("maxiters M prints N(0) .. N(M - 2)") {
    const Run r = run_driver_config(ini, "hyperanf", c, {"--hyperanf::maxiters", "5"});
    CHECK(stat_value(r.proc.out, "ALGORITHM::HYPERANF::ITER_STOP") == "5");
    CHECK(stat_value(r.proc.out, "ALGORITHM::HYPERANF::ITERATIONS") == "3");
    CHECK(!stat_value(r.proc.out, "ALGORITHM::HYPERANF::ANF::3").empty());
    CHECK(stat_value(r.proc.out, "ALGORITHM::HYPERANF::ANF::4").empty());
    CHECK(std::lround(std::stod(r.rows[29][0])) == 4);  // B(29, 3)
  }
  SECTION("epsilon: the relative change of N(t) is below it") {
    // N(t) of a path of 30 = 30 + 29 + 28 + ...: the change at t = 20 is 10/450 ~ 0.022.
    const Run r = run_driver_config(ini, "hyperanf", c, {"--hyperanf::epsilon", "0.05"});
    CHECK(!stat_value(r.proc.out, "ALGORITHM::HYPERANF::EPSILON_STOP").empty());
    const int t = std::stoi(stat_value(r.proc.out, "ALGORITHM::HYPERANF::ITERATIONS"));
    CHECK(t > 5);
    CHECK(t < 29);
  }
  SECTION("epsilon 0 runs until nothing changes") {
    const Run r = run_driver_config(ini, "hyperanf", c, {"--hyperanf::epsilon", "0"});
    CHECK(stat_value(r.proc.out, "ALGORITHM::HYPERANF::STABLE_STOP") == "30");
    CHECK(std::fabs(std::stod(r.rows[29][0]) - 30) < 3);  // 30 ids in 128 registers: some collide
  }
}

TEST_CASE("hyperanf: rejects bad parameters", "[alg_models]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", {{0, 1, 1.0F}}, 2, EdgeFileType::kUnweighted);
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--hyperanf::rsd", "0"},
                                                                {"--hyperanf::rsd", "0.001"},
                                                                {"--hyperanf::rsd", "2"},
                                                                {"--hyperanf::epsilon", "-1"}}) {
    std::vector<std::string> args = {"-g", ini.string(), "-b", "hyperanf"};
    args.insert(args.end(), bad.begin(), bad.end());
    const ProcessResult r = run_driver_in_process(args);
    INFO(bad[0] << " " << bad[1] << ": " << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find(bad[0]) != std::string::npos);
  }
}

TEST_CASE("hyperanf: register count from rsd as in X-Stream", "[alg_models]") {
  CHECK(hll_params(0.10)->m == 128);
  CHECK(hll_params(0.05)->m == 512);
  CHECK(hll_params(0.5)->m == 16);  // X-Stream would take 8: clamped to HLL's smallest table
  CHECK(!hll_params(0.01));
}

TEST_CASE("hyperanf: the HLL reference is within a few rsd of exact BFS balls", "[alg_models]") {
  for (const bool skewed : {false, true}) {
    const std::uint64_t n = 3000;
    const InMemoryGraph g = graph_of(skewed ? skewed_edges(n, 15000, 5) : random_edges(n, 4500, 4), n);
    for (const double rsd : {0.10, 0.05}) {
      const HllParams params = *hll_params(rsd);
      const HyperAnfReference ref = hyperanf_reference(g, params, 0.0, 100);
      const std::uint64_t t = ref.iterations.size() - 1;
      const Csr in = build_csr(g, CsrDirection::kIn);
      // Every 15th vertex: relative error of the final estimate against the exact ball.
      double sum_error = 0;
      double max_error = 0;
      std::string worst;
      std::uint64_t samples = 0;
      std::uint64_t big = 0;
      std::uint64_t exact_total = 0;
      for (VertexId v = 0; v < n; ++v) {
        const double exact = static_cast<double>(exact_ball_size(in, v, t));
        exact_total += static_cast<std::uint64_t>(exact);
        if (v % 15 != 0) continue;
        ++samples;
        const double error = std::fabs(ref.estimate[v] - exact) / exact;
        // Tiny balls: two ids can share a register (an error of one element is HLL's, not ours).
        CHECK(std::fabs(ref.estimate[v] - exact) <= std::max(4.5 * rsd * exact, 1.5));
        big += exact >= 100 ? 1 : 0;
        sum_error += error;
        if (exact < 100) continue;
        if (error > max_error) worst = "v " + std::to_string(v) + " exact " + std::to_string(exact) + " estimate " + std::to_string(ref.estimate[v]);
        max_error = std::max(max_error, error);
      }
      INFO((skewed ? "skewed" : "uniform") << " rsd " << rsd << " t " << t << " mean error " << sum_error / samples
                                           << " max error " << max_error << " " << worst);
      CHECK(sum_error / samples < 1.5 * rsd);  // skewed graphs: many vertices share one ball (and its error)
      CHECK(max_error < 4.5 * rsd);  // over the balls of at least 100 vertices
      CHECK(big >= 20);
      const double nf = static_cast<double>(ref.iterations.back().sum) / kHyperAnfFixedScale;
      CHECK(std::fabs(nf - exact_total) / exact_total < 1.5 * rsd);
      // N(t) never decreases and the balls reach their final size.
      for (std::size_t i = 1; i < ref.iterations.size(); ++i) CHECK(ref.iterations[i].sum >= ref.iterations[i - 1].sum);
    }
  }
}

TEST_CASE("hyperanf: random and skewed graphs, identical for every K, -p and I/O mode", "[alg_models]") {
  TempDir dir;
  const auto uniform = write_graph(dir.path(), "uniform", random_edges(1500, 6000, 21), 1500);
  const auto skewed = write_graph(dir.path(), "skewed", skewed_edges(3000, 12000, 22), 3000);
  for (const auto& ini : {uniform, skewed}) {
    const auto runs = run_everywhere(ini, "hyperanf");
    CHECK(!stat_value(runs[0].proc.out, "ALGORITHM::HYPERANF::ANF::2").empty());
  }
  // Another register count (rsd 0.2 -> 32 registers) through the same paths.
  run_everywhere(skewed, "hyperanf", {"--hyperanf::rsd", "0.2"});
}

// ---- Belief propagation ------------------------------------------------------------------------

// A non-degenerate model (X-Stream's is uniform, see the docs): priors from the vertex id, and an
// attractive or repulsive coupling from the weight; the reverse direction uses the transpose.
BpModel test_model() {
  BpModel model;
  model.prior = [](VertexId v) {
    const double p = 0.15 + 0.7 * static_cast<double>((v * 37U) % 11U) / 10.0;
    return std::array<double, 2>{p, 1.0 - p};
  };
  model.potential = [](const Edge& e, VertexId sender, VertexId) {
    const double same = 0.2 + 1.6 * e.weight;
    BpPotential psi{{{same, 1.0}, {0.5, 2.0 - same * 0.5}}};  // psi[dst state][src state]
    if (sender != e.src) std::swap(psi[0][1], psi[1][0]);   // transpose for dst -> src
    return psi;
  };
  model.initial = [](const Edge&) { return std::array<double, 2>{1.0, 1.0}; };
  return model;
}

TEST_CASE("belief_propagation: the reference is exact on trees (brute-force marginals)", "[alg_models]") {
  // A tree of 9 vertices (edges stored in both orientations), a path, and a star.
  const std::vector<std::vector<Edge>> trees = {
      {{0, 1, 0.9F}, {2, 1, 0.1F}, {1, 3, 0.5F}, {3, 4, 0.8F}, {5, 3, 0.3F}, {4, 6, 0.7F}, {7, 0, 0.2F}, {0, 8, 0.6F}},
      {{0, 1, 0.9F}, {1, 2, 0.9F}, {2, 3, 0.05F}, {3, 4, 0.95F}, {4, 5, 0.6F}},
      {{0, 1, 0.3F}, {0, 2, 0.8F}, {3, 0, 0.9F}, {4, 0, 0.1F}},
  };
  for (const auto& edges : trees) {
    const InMemoryGraph g = graph_of(edges, edges.size() + 1);
    const auto exact = bp_brute_force(g, test_model());
    const auto bp = bp_reference(g, 12, test_model());  // more iterations than the diameter
    for (std::size_t v = 0; v < g.vertices; ++v) {
      INFO("vertex " << v);
      CHECK(bp[v] == Approx(exact[v]).margin(1e-9));
      CHECK(exact[v] != Approx(0.5).margin(1e-3));  // the model is not trivial
    }
    // Too few iterations are not exact yet (the test can tell).
    const auto early = bp_reference(g, 1, test_model());
    bool differs = false;
    for (std::size_t v = 0; v < g.vertices; ++v) differs |= std::fabs(early[v] - exact[v]) > 1e-6;
    CHECK(differs);
    // X-Stream's model: the joint distribution is uniform, so are the marginals and BP's beliefs.
    const auto xs_exact = bp_brute_force(g, xstream_bp_model());
    const auto xs_bp = bp_reference(g, 12, xstream_bp_model());
    for (std::size_t v = 0; v < g.vertices; ++v) {
      CHECK(xs_exact[v] == Approx(0.5).margin(1e-12));
      CHECK(xs_bp[v] == Approx(0.5).margin(1e-12));
    }
  }
}

TEST_CASE("belief_propagation: without the division by the reverse message only X-Stream's potentials stay exact",
          "[alg_models]") {
  // What the engine program computes (the cavity is the whole product), done in memory.
  auto undivided = [](const InMemoryGraph& g, std::uint32_t iterations, const BpModel& model) {
    std::vector<double> incoming(g.vertices, 0.0);
    std::vector<double> product(g.vertices, 0.0);
    for (std::uint32_t it = 1; it <= iterations; ++it) {
      std::fill(incoming.begin(), incoming.end(), 0.0);
      for (const Edge& e : g.edges) {
        const double prior_src = std::log(model.prior(e.src)[0] / model.prior(e.src)[1]);
        const double prior_dst = std::log(model.prior(e.dst)[0] / model.prior(e.dst)[1]);
        incoming[e.dst] += it == 1 ? 0.0 : bp_message(model.potential(e, e.src, e.dst), prior_src + product[e.src]);
        incoming[e.src] += it == 1 ? 0.0 : bp_message(model.potential(e, e.dst, e.src), prior_dst + product[e.dst]);
      }
      product = incoming;
    }
    std::vector<double> belief(g.vertices);
    for (std::size_t v = 0; v < g.vertices; ++v) {
      belief[v] = bp_belief0(std::log(model.prior(v)[0] / model.prior(v)[1]) + product[v]);
    }
    return belief;
  };
  const InMemoryGraph g = graph_of(random_edges(40, 120, 9), 40);
  const auto xs_literal = bp_reference(g, 6, xstream_bp_model());
  const auto xs_undivided = undivided(g, 6, xstream_bp_model());
  const auto general_literal = bp_reference(g, 6, test_model());
  const auto general_undivided = undivided(g, 6, test_model());
  double xs_diff = 0;
  double general_diff = 0;
  for (std::size_t v = 0; v < g.vertices; ++v) {
    xs_diff = std::max(xs_diff, std::fabs(xs_literal[v] - xs_undivided[v]));
    general_diff = std::max(general_diff, std::fabs(general_literal[v] - general_undivided[v]));
  }
  CHECK(xs_diff == 0.0);
  CHECK(general_diff > 1e-3);
}

TEST_CASE("belief_propagation: engine on hand-drawn graphs (weights 0 and 1, self-loops, isolated vertices)",
          "[alg_models]") {
  TempDir dir;
  const std::vector<Edge> edges = {{0, 1, 0.0F}, {1, 2, 1.0F}, {2, 0, 0.25F}, {3, 3, 0.5F},
                                   {4, 5, 0.75F}, {5, 4, 0.75F}, {6, 7, 0.5F}, {6, 7, 0.5F}};
  for (const EdgeFileType type : {EdgeFileType::kWeighted, EdgeFileType::kUnweighted}) {
    const auto ini = write_graph(dir.path(), type == EdgeFileType::kWeighted ? "w" : "u", edges, 10, type);
    for (const char* iterations : {"0", "1", "5"}) {
      const auto runs = run_everywhere(ini, "belief_propagation", {"--belief_propagation::niters", iterations});
      const Rows& rows = runs[0].rows;
      REQUIRE(rows.size() == 10);
      for (const auto& row : rows) CHECK(row == std::vector<std::string>{"0.5", "0.5"});
      const std::string& out = runs[0].proc.out;
      const std::uint64_t n = std::stoull(iterations);
      CHECK(stat_value(out, "ALGORITHM::BELIEF_PROPAGATION::ITERATIONS") == iterations);
      CHECK(stat_value(out, "ALGORITHM::BELIEF_PROPAGATION::BELIEF_SUM0") == "5");
      CHECK(stat_value(out, "CORE::PHASES") == std::to_string(std::max<std::uint64_t>(n, 1)));
      // One message per direction of every stored edge, per iteration.
      CHECK(stat_value(out, "CORE::UPDATES::EMITTED") == std::to_string(2 * edges.size() * n));
    }
  }
}

TEST_CASE("belief_propagation: random and skewed graphs, identical for every K, -p and I/O mode", "[alg_models]") {
  TempDir dir;
  const auto uniform = write_graph(dir.path(), "uniform", random_edges(2000, 8000, 31), 2000);
  const auto skewed = write_graph(dir.path(), "skewed", skewed_edges(4000, 20000, 32), 4000, EdgeFileType::kUnweighted);
  for (const auto& ini : {uniform, skewed}) {
    const auto runs = run_everywhere(ini, "belief_propagation", {"--belief_propagation::niters", "4"});
    for (const auto& row : runs[0].rows) {
      REQUIRE(row.size() == 2);
      CHECK(std::stod(row[0]) + std::stod(row[1]) == Approx(1.0).margin(kBpTolerance));
    }
  }
}

}  // namespace
