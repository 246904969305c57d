// Tiny hand-drawn graphs whose expected results are worked out by hand from CONTRACT.md §4 (not from
// the reference functions): empty graphs, isolated vertices, self-loops, duplicate edges, a directed
// cycle, components joined only in the undirected view, weighted paths, unreachable vertices,
// dangling PageRank mass, and BFS's smallest-id parent rule. Each graph runs at -k 1, -k 2 and
// -k 2 -p 2 (in-process), with --verify.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

using Rows = std::vector<std::vector<std::string>>;

using TinyConfig = DriverConfig;
const TinyConfig kConfigs[] = {{"1", "1", true}, {"2", "1", false}, {"2", "2", true}};

// Runs `algorithm` on the graph in every configuration; returns the rows of each run.
std::vector<Rows> run_all(const std::filesystem::path& ini, const std::string& algorithm,
                          const std::vector<std::string>& extra = {}, const char* expect_components = nullptr) {
  std::vector<Rows> all;
  for (const TinyConfig& c : kConfigs) {
    DriverRun r = run_driver_config(ini, algorithm, c, extra);
    INFO("-b " << algorithm << " " << describe(c));
    CHECK(stat_value(r.proc.out, "CORE::CONFIG::PARTITIONS") == c.k);
    if (expect_components != nullptr) CHECK(stat_value(r.proc.out, "ALGORITHM::CC::COMPONENTS") == expect_components);
    all.push_back(std::move(r.rows));
  }
  return all;
}

void expect_rows(const std::filesystem::path& ini, const std::string& algorithm, const Rows& want,
                 const std::vector<std::string>& extra = {}, const char* expect_components = nullptr) {
  const auto all = run_all(ini, algorithm, extra, expect_components);
  for (std::size_t i = 0; i < all.size(); ++i) {
    INFO("-b " << algorithm << " -k " << kConfigs[i].k << " -p " << kConfigs[i].p);
    CHECK(all[i] == want);
  }
}

// PageRank values are compared numerically (single-precision engine vs hand arithmetic).
void expect_ranks(const std::filesystem::path& ini, const std::vector<double>& want, int iterations) {
  const auto all = run_all(ini, "pagerank", {"--pagerank::niters", std::to_string(iterations)});
  for (std::size_t i = 0; i < all.size(); ++i) {
    INFO("pagerank niters " << iterations << " -k " << kConfigs[i].k << " -p " << kConfigs[i].p);
    REQUIRE(all[i].size() == want.size());
    for (std::size_t v = 0; v < want.size(); ++v) {
      INFO("vertex " << v << " got '" << (all[i][v].empty() ? std::string("?") : all[i][v][0]) << "'");
      REQUIRE(all[i][v].size() == 1);
      CHECK(std::strtod(all[i][v][0].c_str(), nullptr) == Approx(want[v]).epsilon(1e-6));
    }
  }
}

Edge e(VertexId s, VertexId d, float w = 1.0F) { return Edge{s, d, w}; }

}  // namespace

TEST_CASE("tiny: empty graph (5 vertices, no edges)", "[engine]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "empty", {}, 5);
  expect_rows(ini, "degree_cnt", {{"0", "0"}, {"0", "0"}, {"0", "0"}, {"0", "0"}, {"0", "0"}});
  expect_rows(ini, "cc", {{"0"}, {"1"}, {"2"}, {"3"}, {"4"}}, {}, "5");
  expect_rows(ini, "bfs", {{"0", "0"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}});
  // Root row: level 0, parent = root.
  expect_rows(ini, "bfs", {{"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"0", "3"}, {"-1", "-1"}}, {"--bfs::root", "3"});
  expect_rows(ini, "sssp", {{"inf"}, {"inf"}, {"0"}, {"inf"}, {"inf"}}, {"--sssp::source", "2"});
  // No in-edges anywhere: after any iteration every rank is 0.15.
  expect_ranks(ini, {0.15, 0.15, 0.15, 0.15, 0.15}, 3);
}

TEST_CASE("tiny: isolated vertices, self-loops and duplicate edges", "[engine]") {
  TempDir dir;
  // 0->1 twice (weights 3 and 2), self-loops 1->1 and 4->4, 1->2; 3 and 5 isolated.
  const auto ini = write_graph(dir.path(), "loops",
                               {e(0, 1, 3.0F), e(1, 1, 0.5F), e(0, 1, 2.0F), e(1, 2, 1.5F), e(4, 4, 1.0F)}, 6);
  // Self-loops and duplicates count every time they appear.
  expect_rows(ini, "degree_cnt", {{"2", "0"}, {"2", "3"}, {"0", "1"}, {"0", "0"}, {"1", "1"}, {"0", "0"}});
  expect_rows(ini, "cc", {{"0"}, {"0"}, {"0"}, {"3"}, {"4"}, {"5"}}, {}, "4");
  expect_rows(ini, "bfs", {{"0", "0"}, {"1", "0"}, {"2", "1"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}});
  // The lighter duplicate wins; the self-loop changes nothing.
  expect_rows(ini, "sssp", {{"0"}, {"2"}, {"3.5"}, {"inf"}, {"inf"}, {"inf"}});
  // bfs from the self-loop vertex: only itself.
  expect_rows(ini, "bfs", {{"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"0", "4"}, {"-1", "-1"}},
              {"--bfs::root", "4"});
  // outdeg 0:2 1:2 4:1. One iteration from r=1:
  //   r1 = 0.15 + 0.85 * (1/2 + 1/2 + 1/2) = 1.425; r2 = 0.15 + 0.85 * 1/2 = 0.575; r4 = 0.15 + 0.85 = 1.
  expect_ranks(ini, {0.15, 1.425, 0.575, 0.15, 1.0, 0.15}, 1);
  // Two: r1 = 0.15 + 0.85 * (0.15/2 * 2 + 1.425/2) = 0.883125; r2 = 0.15 + 0.85 * 1.425/2 = 0.755625.
  expect_ranks(ini, {0.15, 0.883125, 0.755625, 0.15, 1.0, 0.15}, 2);
}

TEST_CASE("tiny: directed cycle 0->1->2->0", "[engine]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "cycle", {e(0, 1), e(1, 2), e(2, 0)}, 3, EdgeFileType::kUnweighted);
  expect_rows(ini, "degree_cnt", {{"1", "1"}, {"1", "1"}, {"1", "1"}});
  expect_rows(ini, "cc", {{"0"}, {"0"}, {"0"}}, {}, "1");
  expect_rows(ini, "bfs", {{"0", "0"}, {"1", "0"}, {"2", "1"}});
  expect_rows(ini, "bfs", {{"2", "2"}, {"0", "1"}, {"1", "1"}}, {"--bfs::root", "1"});
  // Type 2: every weight is 1.
  expect_rows(ini, "sssp", {{"2"}, {"0"}, {"1"}}, {"--sssp::source", "1"});
  // Every vertex has out-degree 1 and one in-edge: 1 is the fixed point.
  expect_ranks(ini, {1.0, 1.0, 1.0}, 5);
  // Zero iterations: r0 = 1 everywhere.
  expect_ranks(ini, {1.0, 1.0, 1.0}, 0);
}

TEST_CASE("tiny: components joined only in the undirected view", "[engine]") {
  TempDir dir;
  // {0,1,2}: 1->0, 2->1 (0 reaches nobody); {3,5,6,7}: 7->3, 5->3, 6->7 (3 and 5 have no path
  // between them along out-edges, nor 5 and 6); 4 isolated.
  const auto ini = write_graph(dir.path(), "weak", {e(7, 3), e(1, 0), e(5, 3), e(6, 7), e(2, 1)}, 8,
                               EdgeFileType::kUnweighted);
  expect_rows(ini, "cc", {{"0"}, {"0"}, {"0"}, {"3"}, {"4"}, {"3"}, {"3"}, {"3"}}, {}, "3");
  expect_rows(ini, "wcc", {{"0"}, {"0"}, {"0"}, {"3"}, {"4"}, {"3"}, {"3"}, {"3"}}, {}, "3");
  // Out-edges only: from 6, 6 -> 7 -> 3.
  expect_rows(ini, "bfs",
              {{"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"2", "7"}, {"-1", "-1"}, {"-1", "-1"}, {"0", "6"}, {"1", "6"}},
              {"--bfs::root", "6"});
  expect_rows(ini, "bfs",
              {{"0", "0"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}, {"-1", "-1"}});
  expect_rows(ini, "sssp", {{"2"}, {"1"}, {"0"}, {"inf"}, {"inf"}, {"inf"}, {"inf"}, {"inf"}}, {"--sssp::source", "2"});
}

TEST_CASE("tiny: bfs parent is the smallest-id in-neighbour one level up", "[engine]") {
  TempDir dir;
  // Levels from 0: {1,2,4} at 1; {3,5} at 2. 5 has level-1 in-neighbours 4 and 2 (listed in that
  // order, in different partitions at -k 2) and a same-level in-neighbour 3; 3 has 1 only.
  const auto ini = write_graph(dir.path(), "parents",
                               {e(0, 4), e(4, 5), e(0, 2), e(3, 5), e(2, 5), e(0, 1), e(1, 3), e(5, 3), e(5, 0)}, 6,
                               EdgeFileType::kUnweighted);
  expect_rows(ini, "bfs", {{"0", "0"}, {"1", "0"}, {"1", "0"}, {"2", "1"}, {"1", "0"}, {"2", "2"}});
  // From 4: 4 -> 5 -> {0, 3} at level 2 (parent 5) -> {1, 2} at level 3 (parent 0).
  expect_rows(ini, "bfs", {{"2", "5"}, {"3", "0"}, {"3", "0"}, {"2", "5"}, {"0", "4"}, {"1", "4"}}, {"--bfs::root", "4"});
}

TEST_CASE("tiny: weighted paths for sssp", "[engine]") {
  TempDir dir;
  // 0->1 (1), 1->2 (2), 2->3 (0.5), 0->3 (4, longer than 0-1-2-3 = 3.5), 3->4 (0.25), 4->1 (0),
  // 5->0 (1): 5 is unreachable from 0.
  const auto ini = write_graph(dir.path(), "paths",
                               {e(0, 3, 4.0F), e(0, 1, 1.0F), e(1, 2, 2.0F), e(2, 3, 0.5F), e(3, 4, 0.25F), e(4, 1, 0.0F),
                                e(5, 0, 1.0F)},
                               6);
  expect_rows(ini, "sssp", {{"0"}, {"1"}, {"3"}, {"3.5"}, {"3.75"}, {"inf"}});
  // From 2: 2 -> 3 (0.5) -> 4 (0.75) -> 1 (0.75, zero-weight edge); 0 and 5 unreachable.
  expect_rows(ini, "sssp", {{"inf"}, {"0.75"}, {"0"}, {"0.5"}, {"0.75"}, {"inf"}}, {"--sssp::source", "2"});
  // From 5: everything, through 0.
  expect_rows(ini, "sssp", {{"1"}, {"2"}, {"4"}, {"4.5"}, {"4.75"}, {"0"}}, {"--sssp::source", "5"});
}

TEST_CASE("tiny: pagerank drops the mass of a vertex without out-edges", "[engine]") {
  TempDir dir;
  // 0->1, 0->2, 1->2; 2 is dangling. outdeg 0:2, 1:1.
  const auto ini = write_graph(dir.path(), "dangling", {e(0, 1), e(0, 2), e(1, 2)}, 3);
  // Iteration 1 from r = 1: r0 = 0.15; r1 = 0.15 + 0.85 * 1/2 = 0.575; r2 = 0.15 + 0.85 * (1/2 + 1) = 1.425.
  expect_ranks(ini, {0.15, 0.575, 1.425}, 1);
  // Iteration 2: r1 = 0.15 + 0.85 * 0.15/2 = 0.21375; r2 = 0.15 + 0.85 * (0.15/2 + 0.575) = 0.7025.
  // The total (1.06625) is far below 3: 2's rank goes nowhere.
  expect_ranks(ini, {0.15, 0.21375, 0.7025}, 2);
  expect_rows(ini, "degree_cnt", {{"2", "0"}, {"1", "1"}, {"0", "2"}});
}
