// The real graphs of shared/data/real (converted at test time by real_graph(): type 2, vertices =
// max id + 1): their vertex and edge counts against the README, the published facts the engine's
// algorithms can check (weakly connected components, self-loops, degree sums), cc at -k 1 and
// -k 4 -p 2 giving identical labels, and pagerank/bfs/sssp passing --verify at K = 1 and K > 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

struct RealGraph {
  const char* file;
  std::uint64_t vertices;    // README
  std::uint64_t edge_lines;  // README
};

const RealGraph kCnr{"cnr-2000.txt.gz", 325557, 3216152};
const RealGraph kSlashdot{"soc-slashdot0902-directed.txt.gz", 82168, 948464};
const RealGraph kTwitter{"ego-twitter-undirected.txt.gz", 81306, 1342310};
const RealGraph kEnron{"email-enron-undirected.txt.gz", 36692, 183831};
const RealGraph kFacebook{"facebook-combined-undirected.txt.gz", 4039, 88234};

GraphInfo info_of(const RealGraph& g) {
  auto info = read_graph_ini(real_graph(g.file));
  if (!info) throw std::runtime_error(info.status().message());
  return *info;
}

struct Run {
  ProcessResult proc;
  std::vector<std::vector<std::string>> rows;
};

Run run(const RealGraph& g, const std::string& algorithm, const std::vector<std::string>& extra) {
  TempDir work;
  TempDir out_dir;
  const auto output = out_dir / "out.txt";
  std::vector<std::string> args = {"-g", real_graph(g.file).string(), "-b", algorithm, "--work_dir", work.path().string(),
                                   "--output", output.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  Run r;
  r.proc = run_driver_in_process(args);
  INFO(g.file << " -b " << algorithm << "\nstdout: " << r.proc.out << "\nstderr: " << r.proc.err);
  REQUIRE(r.proc.exit_code == 0);
  CHECK(work.entries().empty());
  r.rows = read_output(output);
  return r;
}

struct Components {
  std::uint64_t count = 0;
  std::uint64_t largest = 0;
};

// A forced -k gives partitions of ceil(V / k) vertices each (the last may hold fewer).
std::string expected_partitions(std::uint64_t vertices, std::uint64_t k) {
  const std::uint64_t size = (vertices + k - 1) / k;
  return std::to_string((vertices + size - 1) / size);
}

Components components_of(const std::vector<std::vector<std::string>>& rows) {
  std::unordered_map<std::uint64_t, std::uint64_t> sizes;
  for (const auto& row : rows) ++sizes[std::stoull(row.at(0))];
  Components c;
  c.count = sizes.size();
  for (const auto& [label, size] : sizes) c.largest = std::max(c.largest, size);
  return c;
}

// cc at -k 1 -p 1 and -k 4 -p 2: identical labels; returns the components.
Components check_cc(const RealGraph& g) {
  const Run one = run(g, "cc", {"-k", "1", "-p", "1"});
  const Run four = run(g, "cc", {"-k", "4", "-p", "2"});
  INFO(g.file);
  CHECK(stat_value(one.proc.out, "CORE::CONFIG::PARTITIONS") == "1");
  CHECK(stat_value(four.proc.out, "CORE::CONFIG::PARTITIONS") == expected_partitions(g.vertices, 4));
  CHECK(std::stoull(stat_value(four.proc.out, "CORE::CONFIG::PARTITIONS")) > 1);
  REQUIRE(one.rows.size() == g.vertices);
  REQUIRE(four.rows.size() == g.vertices);
  CHECK(one.rows == four.rows);
  const Components c = components_of(one.rows);
  CHECK(stat_value(one.proc.out, "ALGORITHM::CC::COMPONENTS") == std::to_string(c.count));
  CHECK(stat_value(four.proc.out, "ALGORITHM::CC::COMPONENTS") == std::to_string(c.count));
  return c;
}

// Vertex and edge counts against the README; degree_cnt's degree sums equal the edge lines.
void check_counts(const RealGraph& g) {
  const GraphInfo info = info_of(g);
  INFO(g.file);
  CHECK(info.vertices == g.vertices);
  CHECK(info.edges == g.edge_lines);
  const Run r = run(g, "degree_cnt", {"-k", "2", "-p", "2"});
  REQUIRE(r.rows.size() == info.vertices);
  std::uint64_t out = 0;
  std::uint64_t in = 0;
  for (const auto& row : r.rows) {
    out += std::stoull(row.at(0));
    in += std::stoull(row.at(1));
  }
  CHECK(out == g.edge_lines);
  CHECK(in == g.edge_lines);
}

}  // namespace

TEST_CASE("real: email-Enron has 1,065 WCCs, the largest with 33,696 vertices", "[real]") {
  check_counts(kEnron);
  const Components c = check_cc(kEnron);
  CHECK(c.count == 1065);
  CHECK(c.largest == 33696);
}

TEST_CASE("real: ego-Facebook is one WCC", "[real]") {
  check_counts(kFacebook);
  const Components c = check_cc(kFacebook);
  CHECK(c.count == 1);
  CHECK(c.largest == 4039);
}

TEST_CASE("real: ego-Twitter is one WCC", "[real]") {
  check_counts(kTwitter);
  const Components c = check_cc(kTwitter);
  CHECK(c.count == 1);
  CHECK(c.largest == 81306);
}

TEST_CASE("real: soc-Slashdot0902's largest WCC has 82,168 vertices", "[real]") {
  check_counts(kSlashdot);
  const Components c = check_cc(kSlashdot);
  CHECK(c.largest == 82168);
}

TEST_CASE("real: cnr-2000 is one WCC with 87,442 self-loops", "[real]") {
  check_counts(kCnr);
  const Components c = check_cc(kCnr);
  CHECK(c.count == 1);
  CHECK(c.largest == 325557);
  auto g = load_graph_in_memory(info_of(kCnr));
  REQUIRE(g);
  const auto loops = std::count_if(g->edges.begin(), g->edges.end(), [](const Edge& e) { return e.src == e.dst; });
  CHECK(loops == 87442);
}

TEST_CASE("real: pagerank, bfs and sssp pass --verify on soc-Slashdot0902 at K = 1 and K = 4", "[real]") {
  for (const std::vector<std::string>& config : {std::vector<std::string>{"-k", "1", "-p", "1"},
                                                 std::vector<std::string>{"-k", "4", "-p", "2", "--no_dio"}}) {
    for (const std::vector<std::string>& algorithm :
         {std::vector<std::string>{"pagerank", "--pagerank::niters", "10"}, std::vector<std::string>{"bfs", "--bfs::root", "0"},
          std::vector<std::string>{"sssp", "--sssp::source", "5"}}) {
      std::vector<std::string> extra = config;
      extra.insert(extra.end(), algorithm.begin() + 1, algorithm.end());
      extra.push_back("--verify");
      const Run r = run(kSlashdot, algorithm[0], extra);
      INFO(algorithm[0] << " " << config[0] << " " << config[1] << "\n" << r.proc.out);
      CHECK(r.proc.out.find("Verification: PASS") != std::string::npos);
      CHECK(stat_value(r.proc.out, "CORE::CONFIG::PARTITIONS") == expected_partitions(kSlashdot.vertices, std::stoull(config[1])));
      CHECK(r.rows.size() == kSlashdot.vertices);
    }
  }
}
