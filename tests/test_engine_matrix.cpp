// Configuration matrix of the engine: every algorithm of this build, on random graphs (type 1 and 2,
// uniform and skewed), across forced partition counts, thread counts, direct vs buffered I/O,
// io_uring vs sync, chunk sizes and queue depths. Results must equal the in-memory references
// (computed here, not by the driver), be identical across configurations (PageRank within
// kPageRankTolerance), --verify must PASS, the partition count must be the one the plan promises,
// and the scratch directory must be empty afterwards. A second case checks that autotune under a
// small --physical_memory splits the graph (K > 1) and gives the same result as a 1G budget (K = 1).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/bfs.hpp"
#include "algorithms/cc.hpp"
#include "algorithms/pagerank.hpp"
#include "algorithms/reference_graph.hpp"
#include "algorithms/sssp.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

// One row of the sampled matrix. k == 0: autotune.
struct Config {
  std::uint64_t k;
  unsigned p;
  bool direct;
  const char* engine;
  const char* read_chunk;
  const char* write_chunk;
  unsigned depth;
  bool subprocess;
};

std::string describe(const Config& c) {
  std::ostringstream s;
  s << "-k " << c.k << " -p " << c.p << (c.direct ? " direct" : " --no_dio") << " --io_engine " << c.engine
    << " --read_chunk " << c.read_chunk << " --write_chunk " << c.write_chunk << " --io_depth " << c.depth
    << (c.subprocess ? " (subprocess)" : " (in-process)");
  return s.str();
}

// Every value of every dimension appears at least twice; K in {auto, 1, 2, 8, 33}.
const std::vector<Config>& configs() {
  static const std::vector<Config> rows = {
      {1, 1, true, "uring", "4M", "4M", 4, false},
      {2, 2, false, "sync", "4K", "64K", 1, false},
      {8, 1, false, "uring", "64K", "4K", 2, false},
      {33, 2, true, "sync", "4M", "4K", 8, true},
      {0, 2, true, "uring", "64K", "64K", 4, false},
      {8, 2, true, "sync", "4K", "4M", 3, false},
      {33, 1, false, "uring", "4K", "64K", 16, false},
      {2, 1, true, "uring", "64K", "4M", 1, true},
      {1, 2, false, "sync", "64K", "4K", 2, false},
  };
  return rows;
}

struct GraphCase {
  std::string name;
  std::filesystem::path ini;
  InMemoryGraph graph;
  VertexId root = 0;  // bfs root and sssp source
};

// The partition count a forced -k must give: partitions of ceil(V / k) vertices each (the last may
// hold fewer), i.e. exactly k for every graph here, and never more than k.
std::uint64_t expected_partitions(std::uint64_t vertices, std::uint64_t k) {
  const std::uint64_t size = (vertices + k - 1) / k;
  return (vertices + size - 1) / size;
}

const std::vector<GraphCase>& graphs() {
  static TempDir dir;
  static const std::vector<GraphCase> cases = [] {
    std::vector<GraphCase> out;
    auto add = [&](const std::string& name, std::vector<Edge> edges, std::uint64_t vertices, EdgeFileType type, VertexId root) {
      GraphCase c;
      c.name = name;
      c.ini = write_graph(dir.path(), name, edges, vertices, type);
      auto info = read_graph_ini(c.ini);
      if (!info) throw std::runtime_error(info.status().message());
      auto g = load_graph_in_memory(*info);
      if (!g) throw std::runtime_error(g.status().message());
      c.graph = std::move(*g);
      c.root = root;
      out.push_back(std::move(c));
    };
    add("uniform1", random_edges(2000, 10000, 11), 2000, EdgeFileType::kWeighted, 0);
    {
      auto edges = random_edges(5000, 40000, 12);
      for (auto& e : edges) e.weight = 1.0F;
      add("uniform2", edges, 5000, EdgeFileType::kUnweighted, 17);
    }
    {
      // Skew: 40% of the edges point at vertex 0, 10% leave vertex 1, some self-loops and
      // duplicates; vertices 19990.. only appear as sources of edges into 0.
      auto edges = random_edges(20000, 100000, 13);
      for (std::size_t i = 0; i < edges.size(); ++i) {
        if (i % 5 == 0 || i % 5 == 1) edges[i].dst = 0;
        if (i % 10 == 2) edges[i].src = 1;
        if (i % 997 == 0) edges[i].dst = edges[i].src;
      }
      for (std::size_t i = 0; i < 2000; ++i) edges.push_back(edges[i * 37]);
      add("skewed", edges, 20000, EdgeFileType::kWeighted, 1);
    }
    return out;
  }();
  return cases;
}

struct RunResult {
  ProcessResult proc;
  std::vector<std::vector<std::string>> rows;
  std::string json;
};

std::string verification_line(const std::string& out) {
  const auto at = out.find("Verification:");
  return at == std::string::npos ? std::string("(no verification line)") : out.substr(at, out.find('\n', at) - at);
}

// Runs one configuration with --verify, --output and --stats_json, and checks what every run must
// satisfy: exit 0, PASS, partitions as planned, empty scratch directory, one output row per vertex.
RunResult run_config(const GraphCase& g, const std::string& algorithm, const Config& c,
                     const std::vector<std::string>& extra, const std::string& memory = "1G", bool verify = true) {
  TempDir work;
  TempDir out_dir;
  const auto output = out_dir / "out.txt";
  const auto json = out_dir / "stats.json";
  std::vector<std::string> args = {"-g", g.ini.string(), "-b", algorithm, "-p", std::to_string(c.p),
                                   "--physical_memory", memory, "--io_engine", c.engine, "--read_chunk", c.read_chunk,
                                   "--write_chunk", c.write_chunk, "--io_depth", std::to_string(c.depth),
                                   "--work_dir", work.path().string(), "--output", output.string(),
                                   "--stats_json", json.string()};
  if (verify) args.push_back("--verify");
  if (c.k > 0) {
    args.push_back("-k");
    args.push_back(std::to_string(c.k));
  }
  if (!c.direct) args.push_back("--no_dio");
  args.insert(args.end(), extra.begin(), extra.end());
  RunResult r;
  r.proc = c.subprocess ? run_tool("benchmark_driver", args) : run_driver_in_process(args);
  INFO("graph " << g.name << ", -b " << algorithm << ", " << describe(c) << ", --physical_memory " << memory);
  INFO("stderr: " << r.proc.err);
  INFO(verification_line(r.proc.out));
  CHECK(r.proc.exit_code == 0);
  REQUIRE((r.proc.exit_code == 0 || r.proc.exit_code == 3));  // 3: --verify failed; compare anyway
  if (verify) CHECK(r.proc.out.find("Verification: PASS") != std::string::npos);
  const std::string partitions = stat_value(r.proc.out, "CORE::CONFIG::PARTITIONS");
  REQUIRE_FALSE(partitions.empty());
  const std::uint64_t k = std::stoull(partitions);
  if (c.k > 0) {
    CHECK(k == expected_partitions(g.graph.vertices, c.k));
    CHECK(k <= c.k);
    if (c.k > 1) CHECK(k > 1);
  }
  CHECK(stat_value(r.proc.out, "CORE::PARTITIONS") == partitions);
  r.json = slurp(json);
  CHECK(r.json.find("\"partitions\":" + partitions + ",") != std::string::npos);
  CHECK(work.entries().empty());
  r.rows = read_output(output);
  REQUIRE(r.rows.size() == g.graph.vertices);
  return r;
}

// Collects mismatches so that one CHECK reports the first few instead of thousands of CHECKs.
class Mismatches {
 public:
  void add(const std::string& what) {
    if (first_.size() < 5) first_.push_back(what);
    ++count_;
  }
  std::string report() const {
    std::string s = std::to_string(count_) + " mismatches";
    for (const auto& f : first_) s += "; " + f;
    return s;
  }
  bool empty() const { return count_ == 0; }

 private:
  std::vector<std::string> first_;
  std::size_t count_ = 0;
};

std::string row_text(const std::vector<std::string>& row) {
  std::string s;
  for (const auto& f : row) s += (s.empty() ? "" : " ") + f;
  return s;
}

// Expected rows of the exact algorithms, from the references.
std::vector<std::vector<std::string>> expected_rows(const GraphCase& g, const std::string& algorithm) {
  std::vector<std::vector<std::string>> rows(g.graph.vertices);
  if (algorithm == "cc") {
    const auto labels = cc_reference(g.graph);
    for (std::size_t v = 0; v < rows.size(); ++v) rows[v] = {std::to_string(labels[v])};
  } else if (algorithm == "bfs") {
    const auto r = bfs_reference(g.graph, g.root);
    for (std::size_t v = 0; v < rows.size(); ++v) rows[v] = {std::to_string(r.level[v]), std::to_string(r.parent[v])};
  } else if (algorithm == "degree_cnt") {
    std::vector<std::uint64_t> out(g.graph.vertices, 0);
    std::vector<std::uint64_t> in(g.graph.vertices, 0);
    for (const Edge& e : g.graph.edges) {
      ++out[e.src];
      ++in[e.dst];
    }
    for (std::size_t v = 0; v < rows.size(); ++v) rows[v] = {std::to_string(out[v]), std::to_string(in[v])};
  }
  return rows;
}

void compare_exact(const std::vector<std::vector<std::string>>& got, const std::vector<std::vector<std::string>>& want,
                   const std::string& what) {
  Mismatches m;
  for (std::size_t v = 0; v < want.size(); ++v) {
    if (got[v] != want[v]) m.add("vertex " + std::to_string(v) + ": got '" + row_text(got[v]) + "', want '" + row_text(want[v]) + "'");
  }
  INFO(what << ": " << m.report());
  CHECK(m.empty());
}

void compare_sssp(const std::vector<std::vector<std::string>>& got, const std::vector<float>& want) {
  Mismatches m;
  for (std::size_t v = 0; v < want.size(); ++v) {
    if (got[v].size() != 1) {
      m.add("vertex " + std::to_string(v) + ": row '" + row_text(got[v]) + "'");
      continue;
    }
    if (std::isinf(want[v])) {
      if (got[v][0] != "inf") m.add("vertex " + std::to_string(v) + ": got " + got[v][0] + ", want inf");
    } else if (std::strtof(got[v][0].c_str(), nullptr) != want[v]) {
      std::ostringstream s;
      s.precision(9);
      s << "vertex " << v << ": got " << got[v][0] << ", want " << want[v];
      m.add(s.str());
    }
  }
  INFO("sssp vs sssp_reference: " << m.report());
  CHECK(m.empty());
}

std::vector<double> parse_ranks(const std::vector<std::vector<std::string>>& rows) {
  std::vector<double> ranks(rows.size());
  for (std::size_t v = 0; v < rows.size(); ++v) ranks[v] = rows[v].size() == 1 ? std::strtod(rows[v][0].c_str(), nullptr) : NAN;
  return ranks;
}

void compare_ranks(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  Mismatches m;
  for (std::size_t v = 0; v < want.size(); ++v) {
    if (!(std::fabs(got[v] - want[v]) <= kPageRankTolerance * std::max(1.0, std::fabs(want[v])))) {
      std::ostringstream s;
      s.precision(9);
      s << "vertex " << v << ": got " << got[v] << ", want " << want[v];
      m.add(s.str());
    }
  }
  INFO(what << ": " << m.report());
  CHECK(m.empty());
}

std::vector<std::string> algorithm_args(const GraphCase& g, const std::string& algorithm) {
  if (algorithm == "bfs") return {"--bfs::root", std::to_string(g.root)};
  if (algorithm == "sssp") return {"--sssp::source", std::to_string(g.root)};
  return {};
}

// Runs `algorithm` over the whole matrix on every graph and checks results against the reference
// and across configurations.
void run_matrix(const std::string& algorithm) {
  for (const GraphCase& g : graphs()) {
    const auto extra = algorithm_args(g, algorithm);
    std::vector<std::vector<std::string>> first_rows;
    const auto want = expected_rows(g, algorithm);
    const auto ranks_ref = algorithm == "pagerank" ? pagerank_reference(g.graph, 5) : std::vector<double>{};
    const auto dist_ref = algorithm == "sssp" ? sssp_reference(g.graph, g.root) : std::vector<float>{};
    for (const Config& c : configs()) {
      INFO("graph " << g.name << ", -b " << algorithm << ", " << describe(c));
      const RunResult r = run_config(g, algorithm, c, extra);
      if (algorithm == "pagerank") {
        const auto ranks = parse_ranks(r.rows);
        compare_ranks(ranks, ranks_ref, "pagerank vs pagerank_reference");
        if (first_rows.empty()) {
          first_rows = r.rows;
        } else {
          compare_ranks(ranks, parse_ranks(first_rows), "pagerank vs the first configuration");
        }
      } else {
        if (algorithm == "sssp") {
          compare_sssp(r.rows, dist_ref);
        } else {
          compare_exact(r.rows, want, algorithm + " vs reference");
        }
        if (first_rows.empty()) {
          first_rows = r.rows;
        } else {
          compare_exact(r.rows, first_rows, algorithm + " vs the first configuration");
        }
      }
      if (algorithm == "cc") {
        std::set<VertexId> labels;
        for (const auto& row : want) labels.insert(static_cast<VertexId>(std::stoul(row[0])));
        CHECK(stat_value(r.proc.out, "ALGORITHM::CC::COMPONENTS") == std::to_string(labels.size()));
      }
    }
  }
}

}  // namespace

TEST_CASE("matrix: cc equals union-find on every configuration", "[engine]") { run_matrix("cc"); }
TEST_CASE("matrix: bfs equals the reference on every configuration", "[engine]") { run_matrix("bfs"); }
TEST_CASE("matrix: sssp equals Dijkstra on every configuration", "[engine]") { run_matrix("sssp"); }
TEST_CASE("matrix: pagerank agrees with the reference on every configuration", "[engine]") { run_matrix("pagerank"); }
TEST_CASE("matrix: degree_cnt equals a direct count on every configuration", "[engine]") { run_matrix("degree_cnt"); }

TEST_CASE("matrix: the wcc alias runs cc", "[engine]") {
  const GraphCase& g = graphs()[0];
  const RunResult r = run_config(g, "wcc", configs()[2], {});
  compare_exact(r.rows, expected_rows(g, "cc"), "wcc vs cc_reference");
}

// Autotune: a budget too small for one partition holding every vertex forces K > 1; 1G gives K = 1;
// same results. Subprocesses, so that the budget is measured against the driver's own RSS; the
// small-budget run has no --verify (its buffers would count in the driver's RSS), the 1G run does.
// 2^20 vertices at 8-12 B each: K = 1 needs the process baseline (~10 MiB with the plan's slack)
// + >= 8 MiB of vertex state > 17 MiB, while K = 4 needs ~14 MiB. The PEAK_RSS check relies on
// the driver reporting its own peak, not its parent's (see the last [memory] test).
TEST_CASE("matrix: a tiny budget forces partitions and changes nothing", "[engine]") {
  if (kSanitized) {
    WARN("skipped under a sanitizer: its shadow memory alone exceeds the budgets used here");
    return;
  }
  static TempDir dir;
  const std::uint64_t vertices = std::uint64_t{1} << 20;
  const auto edges = random_edges(vertices, 400000, 21);
  const auto ini = write_graph(dir.path(), "big", edges, vertices, EdgeFileType::kWeighted);
  for (const std::string algorithm : {"pagerank", "cc", "bfs", "sssp", "degree_cnt"}) {
    std::string outputs[2];
    std::string stdouts[2];
    const char* budgets[2] = {"17M", "1G"};
    for (int i = 0; i < 2; ++i) {
      TempDir work;
      TempDir out_dir;
      std::vector<std::string> args = {"-g", ini.string(), "-b", algorithm, "-p", "2", "--physical_memory", budgets[i],
                                       "--work_dir", work.path().string(), "--output", (out_dir / "out.txt").string(),
                                       "--bfs::root", std::to_string(edges[0].src), "--sssp::source", std::to_string(edges[0].src)};
      if (i == 1) args.push_back("--verify");
      const ProcessResult r = run_tool("benchmark_driver", args);
      INFO("-b " << algorithm << " --physical_memory " << budgets[i] << "\nstdout: " << r.out << "\nstderr: " << r.err);
      REQUIRE(r.exit_code == 0);
      if (i == 1) CHECK(r.out.find("Verification: PASS") != std::string::npos);
      CHECK(work.entries().empty());
      outputs[i] = slurp(out_dir / "out.txt");
      stdouts[i] = r.out;
    }
    INFO("-b " << algorithm << "\n17M stdout: " << stdouts[0]);
    CHECK(std::stoull(stat_value(stdouts[0], "CORE::CONFIG::PARTITIONS")) > 1);
    CHECK(stat_value(stdouts[1], "CORE::CONFIG::PARTITIONS") == "1");
    CHECK(std::stoull(stat_value(stdouts[0], "CORE::UTILS::PEAK_RSS")) <= 17ULL << 20);
    REQUIRE(std::count(outputs[0].begin(), outputs[0].end(), '\n') == static_cast<std::ptrdiff_t>(vertices));
    if (algorithm == "pagerank") {
      // Compare line by line numerically: the vertex id, a tab, the rank.
      std::istringstream a(outputs[0]);
      std::istringstream b(outputs[1]);
      Mismatches m;
      std::uint64_t va = 0;
      std::uint64_t vb = 0;
      double ra = 0;
      double rb = 0;
      while (a >> va >> ra && b >> vb >> rb) {
        if (va != vb || !(std::fabs(ra - rb) <= kPageRankTolerance * std::max(1.0, std::fabs(rb)))) {
          std::ostringstream s;
          s.precision(9);
          s << "line " << va << "/" << vb << ": " << ra << " vs " << rb;
          m.add(s.str());
        }
      }
      INFO("pagerank 17M vs 1G: " << m.report());
      CHECK(m.empty());
    } else {
      CHECK(outputs[0] == outputs[1]);  // byte for byte
    }
  }
}

// route_and_apply groups a batch's updates with four interleaved counter tables when there are at
// most 2047 keys, with one table beyond. A tiny --cpu_cache_size gives 2^20 vertices per partition
// 2048 cache partitions (> 2047 keys with the 2 streaming partitions): the one-table path; the
// default gives few keys: the four-table path. cc's labels are exact, so the outputs must match byte
// for byte; pagerank verifies against its reference on both paths.
TEST_CASE("matrix: routing with one counter table (many keys) and with four (few keys) agree", "[engine]") {
  static TempDir dir;
  const std::uint64_t vertices = std::uint64_t{1} << 21;
  const auto ini = write_graph(dir.path(), "wide", random_edges(vertices, 300000, 5), vertices);
  for (const std::string algorithm : {"cc", "pagerank"}) {
    std::string outputs[2];
    std::uint64_t cache_partitions[2] = {0, 0};
    const char* cache[2] = {"4K", "2M"};
    for (int i = 0; i < 2; ++i) {
      TempDir work;
      TempDir out_dir;
      const ProcessResult r = run_tool("benchmark_driver", {"-g", ini.string(), "-b", algorithm, "-p", "2", "-k", "2",
                                                            "--pagerank::niters", "3", "--cpu_cache_size", cache[i],
                                                            "--work_dir", work.path().string(), "--output",
                                                            (out_dir / "out.txt").string(), "--verify"});
      INFO("-b " << algorithm << " --cpu_cache_size " << cache[i] << "\nstdout: " << r.out << "\nstderr: " << r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.out.find("Verification: PASS") != std::string::npos);
      cache_partitions[i] = std::stoull(stat_value(r.out, "CORE::CONFIG::CACHE_PARTITIONS"));
      outputs[i] = slurp(out_dir / "out.txt");
    }
    INFO("-b " << algorithm);
    CHECK(cache_partitions[0] + 2 > 2047);  // keys: cache partitions + streaming partitions
    CHECK(cache_partitions[1] + 2 <= 2047);
    if (algorithm == "cc") CHECK(outputs[0] == outputs[1]);
  }
}
