// COST baselines, the Hilbert curve and the hilbert_order tool: the curve is a bijection with
// adjacent consecutive cells; the radix sort equals a stable sort; the baselines (both orders) give
// the engine's PageRank (within kPageRankTolerance) and exactly its CC labels on random, RMAT and
// real graphs; hilbert_order keeps the edge multiset, sorts along the curve within a memory bound
// (several runs), and the engine gives the same results on the reordered file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/pagerank.hpp"
#include "algorithms/reference_graph.hpp"
#include "benchmarks/cost_baseline.hpp"
#include "tests/test_support.hpp"
#include "utils/graph_generator.hpp"
#include "utils/hilbert_curve.hpp"
#include "utils/hilbert_order.hpp"
#include "utils/radix_sort.hpp"

using namespace edgestream;
using namespace edgestream::test;

namespace {

using Rows = std::vector<std::vector<std::string>>;

InMemoryGraph load(const std::filesystem::path& ini) {
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  auto g = load_graph_in_memory(*info);
  REQUIRE(g.has_value());
  return std::move(*g);
}

void check_pagerank_rows(const Rows& rows, const std::vector<float>& ranks, const std::string& what) {
  REQUIRE(rows.size() == ranks.size());
  std::size_t bad = 0;
  for (std::size_t v = 0; v < ranks.size(); ++v) {
    REQUIRE(rows[v].size() == 1);
    const double engine = std::stod(rows[v][0]);
    if (!(std::fabs(engine - ranks[v]) <= kPageRankTolerance * std::max(1.0, std::fabs(engine)))) {
      if (bad++ < 5) UNSCOPED_INFO(what << ": vertex " << v << " engine " << engine << " baseline " << ranks[v]);
    }
  }
  CHECK(bad == 0);
}

void check_label_rows(const Rows& rows, const std::vector<VertexId>& labels, const std::string& what) {
  REQUIRE(rows.size() == labels.size());
  std::size_t bad = 0;
  for (std::size_t v = 0; v < labels.size(); ++v) {
    REQUIRE(rows[v].size() == 1);
    if (rows[v][0] != std::to_string(labels[v]) && bad++ < 5) {
      UNSCOPED_INFO(what << ": vertex " << v << " engine " << rows[v][0] << " baseline " << labels[v]);
    }
  }
  CHECK(bad == 0);
}

// Runs the engine (-p 2, in memory) and both baseline orders on `ini`; compares.
void compare_with_engine(const std::filesystem::path& ini, const std::string& what) {
  const InMemoryGraph g = load(ini);
  const DriverConfig config{"1", "2", true};
  const DriverRun pr = run_driver_config(ini, "pagerank", config, {"--pagerank::niters", "20"}, /*verify=*/false);
  const DriverRun cc = run_driver_config(ini, "cc", config, {}, /*verify=*/false);
  for (const CostOrder order : {CostOrder::kVertex, CostOrder::kHilbert}) {
    const std::string label = what + " order=" + cost_order_name(order);
    INFO(label);
    const CostGraph cg = make_cost_graph(g.vertices, g.edges, order);
    CHECK(cg.edges == g.edges.size());
    check_pagerank_rows(pr.rows, cost_pagerank(cg, 20), label);
    check_label_rows(cc.rows, cost_connected_components(cg), label);
  }
}

std::vector<std::tuple<VertexId, VertexId, float>> multiset(const std::vector<Edge>& edges) {
  std::vector<std::tuple<VertexId, VertexId, float>> m;
  for (const Edge& e : edges) m.emplace_back(e.src, e.dst, e.weight);
  std::sort(m.begin(), m.end());
  return m;
}

}  // namespace

TEST_CASE("hilbert curve: a bijection whose consecutive cells are adjacent", "[cost]") {
  for (unsigned k = 1; k <= 6; ++k) {
    INFO("k=" << k);
    const std::uint32_t n = 1U << k;
    std::vector<int> seen(std::size_t{n} * n, 0);
    for (std::uint32_t x = 0; x < n; ++x) {
      for (std::uint32_t y = 0; y < n; ++y) {
        const std::uint64_t d = hilbert_index(k, x, y);
        REQUIRE(d < std::uint64_t{n} * n);
        ++seen[d];
        CHECK(hilbert_cell(k, d) == std::make_pair(x, y));
      }
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
    for (std::uint64_t d = 0; d + 1 < std::uint64_t{n} * n; ++d) {
      const auto [x0, y0] = hilbert_cell(k, d);
      const auto [x1, y1] = hilbert_cell(k, d + 1);
      const auto dist = std::abs(static_cast<long>(x0) - static_cast<long>(x1)) + std::abs(static_cast<long>(y0) - static_cast<long>(y1));
      REQUIRE(dist == 1);
    }
    CHECK(hilbert_index(k, 0, 0) == 0);
  }
  // Order 32 (the largest graphs): round trips, and the quadrant structure (the first quarter of the
  // curve is the low-x low-y quadrant).
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const auto x = static_cast<std::uint32_t>(rng());
    const auto y = static_cast<std::uint32_t>(rng());
    for (const unsigned k : {32U}) REQUIRE(hilbert_cell(k, hilbert_index(k, x, y)) == std::make_pair(x, y));
    const std::uint32_t lx = x >> 12, ly = y >> 12;  // 20-bit coordinates
    REQUIRE(hilbert_cell(20, hilbert_index(20, lx, ly)) == std::make_pair(lx, ly));
    REQUIRE((hilbert_index(32, x >> 1, y >> 1) < (std::uint64_t{1} << 62)));
  }
  CHECK(hilbert_index(32, 0xFFFFFFFFU, 0) == ~std::uint64_t{0});  // the curve ends at (2^32-1, 0)
  CHECK(hilbert_order_for(1) == 1);
  CHECK(hilbert_order_for(2) == 1);
  CHECK(hilbert_order_for(3) == 2);
  CHECK(hilbert_order_for(1 << 20) == 20);
  CHECK(hilbert_order_for((1 << 20) + 1) == 21);
  CHECK(hilbert_order_for(std::uint64_t{1} << 32) == 32);
}

TEST_CASE("radix_sort_by_key equals a stable sort", "[cost]") {
  std::mt19937_64 rng(3);
  using Records = std::vector<std::pair<std::uint64_t, int>>;
  // Sorts v in place, and a copy of it into another buffer (radix_sort_by_key_into); both must
  // equal the stable sort.
  auto sort_both_ways = [](Records& v, unsigned bits) {
    auto expected = v;
    std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Records from = v;
    Records into(v.size(), {UINT64_MAX, -1});
    radix_sort_by_key(v, bits, [](const auto& r) { return r.first; });
    CHECK(v == expected);
    radix_sort_by_key_into(std::span(from), std::span(into), bits, [](const auto& r) { return r.first; });
    CHECK(into == expected);
  };
  for (const unsigned bits : {1U, 8U, 13U, 40U, 64U}) {
    std::vector<std::pair<std::uint64_t, int>> v;
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t key = bits == 64 ? rng() : rng() & ((std::uint64_t{1} << bits) - 1);
      v.emplace_back(key, i);
    }
    sort_both_ways(v, bits);
  }
  // Large enough for the MSD splits (> 64 Ki records), skewed so that some buckets split again,
  // with many equal keys (stability across both phases).
  for (const unsigned bits : {17U, 29U, 40U, 64U}) {
    INFO("bits " << bits);
    std::vector<std::pair<std::uint64_t, int>> v;
    for (int i = 0; i < 400000; ++i) {
      std::uint64_t key = bits == 64 ? rng() : rng() & ((std::uint64_t{1} << bits) - 1);
      if (i % 3 != 0) key &= ~std::uint64_t{0} >> (64 - bits + 8);  // two thirds in the lowest 1/256th
      if (i % 5 == 0) key = 12345 & ((std::uint64_t{1} << (bits - 1)) - 1);
      v.emplace_back(key, i);
    }
    sort_both_ways(v, bits);
  }
  {  // into: no record, one record, and keys of no bits
    Records none;
    Records one = {{5, 0}};
    Records zero = {{0, 0}, {0, 1}, {0, 2}};
    sort_both_ways(none, 8);
    sort_both_ways(one, 8);
    sort_both_ways(zero, 0);
  }
  // Ranges sorted by LSD in wider digits (from 256 records: 11, 12 or 10 bits by key width) and
  // just below that in bytes; keys with many equal ones, and with their lowest 12 bits all equal
  // (a digit pass skipped).
  for (const unsigned bits : {17U, 22U, 23U, 24U, 25U, 29U, 30U, 31U}) {
    for (const int n : {255, 256, 1000, 4096, 20000, 65536}) {
      for (const bool low_equal : {false, true}) {
        INFO("bits " << bits << " records " << n << " low digits equal " << low_equal);
        std::vector<std::pair<std::uint64_t, int>> v;
        for (int i = 0; i < n; ++i) {
          std::uint64_t key = rng() & ((std::uint64_t{1} << bits) - 1);
          if (i % 7 == 0) key = 777;
          if (low_equal) key = (key & ~std::uint64_t{0xFFF}) | 0xABC;
          v.emplace_back(key, i);
        }
        sort_both_ways(v, bits);
      }
    }
  }
}

TEST_CASE("hilbert curve: the table-driven code equals the one-level-per-step reference", "[cost]") {
  std::mt19937_64 rng(11);
  for (unsigned k = 1; k <= 32; ++k) {
    INFO("k=" << k);
    const std::uint64_t mask = (std::uint64_t{1} << k) - 1;
    bool all_equal = true;
    for (int i = 0; i < 20000; ++i) {
      const auto x = static_cast<std::uint32_t>(rng() & mask);
      const auto y = static_cast<std::uint32_t>(rng() & mask);
      const std::uint64_t d = hilbert_index_bitwise(k, x, y);
      all_equal = all_equal && hilbert_index(k, x, y) == d && hilbert_cell(k, d) == hilbert_cell_bitwise(k, d) &&
                  hilbert_cell(k, d) == std::make_pair(x, y);
    }
    CHECK(all_equal);
  }
}

TEST_CASE("cost baselines equal the engine: random, rmat and real graphs, both orders", "[cost]") {
  TempDir dir;
  SECTION("random graph (duplicates, self loops, isolated vertices)") {
    auto edges = random_edges(3000, 12000, 11);
    edges.push_back(Edge{5, 5, 1.0F});
    compare_with_engine(write_graph(dir.path(), "random", edges, 3500), "random");
  }
  SECTION("rmat scale 13 (skewed)") {
    RmatOptions o;
    o.scale = 13;
    o.edges = 8 << 13;
    o.threads = 2;
    o.name = (dir / "rmat").string();
    REQUIRE(generate_rmat(o).is_ok());
    compare_with_engine(dir / "rmat.ini", "rmat13");
  }
  SECTION("real graph: email-enron") {
    compare_with_engine(real_graph("email-enron-undirected.txt.gz"), "email-enron");
  }
  SECTION("hand-drawn: two components, a dangling vertex, an isolated vertex") {
    const std::vector<Edge> edges = {{3, 1, 1}, {1, 2, 1}, {2, 3, 1}, {4, 6, 1}, {6, 4, 1}, {7, 6, 1}};
    const CostGraph g = make_cost_graph(9, edges, CostOrder::kHilbert);
    CHECK(cost_connected_components(g) == std::vector<VertexId>{0, 1, 1, 1, 4, 5, 4, 4, 8});
    compare_with_engine(write_graph(dir.path(), "hand", edges, 9), "hand");
  }
}

TEST_CASE("cost_baseline tool: COST line and --output in benchmark_driver's format", "[cost]") {
  TempDir dir;
  const auto edges = random_edges(2000, 9000, 5);
  const auto ini = write_graph(dir.path(), "g", edges, 2000);
  const DriverRun engine = run_driver_config(ini, "pagerank", DriverConfig{"1", "2", true}, {"--pagerank::niters", "7"}, false);
  const DriverRun engine_cc = run_driver_config(ini, "cc", DriverConfig{"1", "2", true}, {}, false);
  for (const std::string order : {"vertex", "hilbert"}) {
    INFO(order);
    const auto out = dir / ("pr-" + order);
    const auto r = run_tool("cost_baseline", {"-g", ini.string(), "--algorithm", "pagerank", "--order", order, "--iterations", "7",
                                              "--output", out.string()});
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("COST algorithm=pagerank order=" + order + " vertices=2000 edges=9000 load_seconds="));
    CHECK_THAT(r.out, Catch::Contains(" compute_seconds=") && Catch::Contains(" total_seconds="));
    const Rows rows = read_output(out);
    std::vector<float> ranks;
    for (const auto& row : rows) ranks.push_back(std::stof(row.at(0)));
    check_pagerank_rows(engine.rows, ranks, "tool " + order);
    const auto out_cc = dir / ("cc-" + order);
    const auto c = run_tool("cost_baseline", {"-g", (dir / "g").string(), "-a", "cc", "--order", order, "--output", out_cc.string()});
    REQUIRE(c.exit_code == 0);
    CHECK_THAT(c.out, Catch::StartsWith("COST algorithm=cc order=" + order));
    CHECK(read_output(out_cc) == engine_cc.rows);
  }
  SECTION("bad command lines exit 2, a bad graph exits 1 naming the file") {
    CHECK(run_tool("cost_baseline", {"-g", ini.string(), "--algorithm", "bfs"}).exit_code == 2);
    CHECK(run_tool("cost_baseline", {"-g", ini.string(), "-a", "cc", "--order", "random"}).exit_code == 2);
    CHECK(run_tool("cost_baseline", {"-a", "cc"}).exit_code == 2);
    const auto bad_ini = write_graph(dir.path(), "bad", {{0, 1, 1}, {1, 7, 1}}, 3);
    const auto b = run_tool("cost_baseline", {"-g", bad_ini.string(), "-a", "cc"});
    CHECK(b.exit_code == 1);
    CHECK_THAT(b.err, Catch::Contains("record 1") && Catch::Contains("bad"));
  }
}

TEST_CASE("hilbert_order: same edges along the curve, bounded memory, engine results unchanged", "[cost]") {
  TempDir dir;
  for (const EdgeFileType type : {EdgeFileType::kWeighted, EdgeFileType::kUnweighted}) {
    const std::string t = type == EdgeFileType::kWeighted ? "1" : "2";
    INFO("type " << t);
    auto edges = random_edges(5000, 100000, 21);  // 100k edges, --memory 1M: runs of 32768 -> 4 runs merged
    for (int i = 0; i < 50; ++i) edges.push_back(edges[static_cast<std::size_t>(i) * 7]);  // duplicates
    if (type == EdgeFileType::kUnweighted) {
      for (auto& e : edges) e.weight = 1.0F;
    }
    const auto ini = write_graph(dir.path(), "in" + t, edges, 5000, type);
    const std::string original_bytes = slurp(dir / ("in" + t));
    for (const std::string memory : {"1M", "64M"}) {
      INFO("--memory " << memory);
      const auto out = dir / ("h" + t + "-" + memory);
      const auto r = run_tool("hilbert_order", {"-g", ini.string(), "--output", out.string(), "--memory", memory});
      REQUIRE(r.exit_code == 0);
      CHECK(slurp(dir / ("in" + t)) == original_bytes);  // input untouched
      const InMemoryGraph h = load(out.string() + ".ini");
      auto info = read_graph_ini(out.string() + ".ini");
      REQUIRE(info.has_value());
      CHECK(info->type == type);
      CHECK(h.vertices == 5000);
      CHECK(multiset(h.edges) == multiset(edges));
      const unsigned k = hilbert_order_for(5000);
      bool sorted = true;
      for (std::size_t i = 1; i < h.edges.size(); ++i) {
        sorted = sorted && hilbert_index(k, h.edges[i - 1].src, h.edges[i - 1].dst) <= hilbert_index(k, h.edges[i].src, h.edges[i].dst);
      }
      CHECK(sorted);
    }
    // No temporary files left behind: exactly the inputs and outputs.
    for (const auto& name : dir.entries()) CHECK(name.find(".tmp-") == std::string::npos);
    // The engine takes the reordered file as an ordinary edge list: same results.
    const auto hilbert_ini = std::filesystem::path(dir / ("h" + t + "-1M")).string() + ".ini";
    const DriverConfig config{"2", "2", true};
    const DriverRun cc_a = run_driver_config(ini, "cc", config);
    const DriverRun cc_b = run_driver_config(hilbert_ini, "cc", config);
    CHECK(cc_a.rows == cc_b.rows);
    const DriverRun pr_a = run_driver_config(ini, "pagerank", config, {"--pagerank::niters", "10"});
    const DriverRun pr_b = run_driver_config(hilbert_ini, "pagerank", config, {"--pagerank::niters", "10"});
    std::vector<float> ranks;
    for (const auto& row : pr_b.rows) ranks.push_back(std::stof(row.at(0)));
    check_pagerank_rows(pr_a.rows, ranks, "engine on the hilbert file");  // float sums in another order
  }
  SECTION("refusals: output = input, ids out of range") {
    const auto ini = write_graph(dir.path(), "x", {{0, 1, 1}, {1, 0, 1}}, 2);
    const auto same = run_tool("hilbert_order", {"-g", ini.string(), "--output", (dir / "x").string()});
    CHECK(same.exit_code == 2);
    CHECK_THAT(same.err, Catch::Contains("input"));
    const auto bad_ini = write_graph(dir.path(), "bad", {{0, 1, 1}, {9, 0, 1}}, 3);
    const auto bad = run_tool("hilbert_order", {"-g", bad_ini.string(), "--output", (dir / "badh").string()});
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains("record 1"));
    CHECK_FALSE(std::filesystem::exists(dir / "badh"));
    CHECK_FALSE(std::filesystem::exists(dir / "badh.ini"));
  }
}
