// PageRank runner (output: rank per vertex), reference and verifier.
#include "algorithms/pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <sstream>

#include "algorithms/runner_support.hpp"

namespace edgestream {

std::vector<double> pagerank_reference(const InMemoryGraph& g, std::uint32_t iterations) {
  std::vector<std::uint64_t> degree(g.vertices, 0);
  for (const Edge& e : g.edges) ++degree[e.src];
  std::vector<double> rank(g.vertices, 1.0);
  std::vector<double> sum(g.vertices);
  for (std::uint32_t it = 0; it < iterations; ++it) {
    std::fill(sum.begin(), sum.end(), 0.0);
    for (const Edge& e : g.edges) sum[e.dst] += rank[e.src] / static_cast<double>(degree[e.src]);
    for (std::uint64_t v = 0; v < g.vertices; ++v) rank[v] = 0.15 + 0.85 * sum[v];
  }
  return rank;
}

Expected<AlgorithmReport> run_pagerank(const AlgorithmRequest& request) {
  PageRankProgram program;
  if (request.params.pagerank_iterations > UINT32_MAX - 2) return invalid_argument("--pagerank::niters is too large");
  program.iterations = static_cast<std::uint32_t>(request.params.pagerank_iterations);
  std::vector<float> ranks;
  if (request.verify) ranks.resize(request.graph.vertices);
  // The highest ranks (min-heap of the best 10), and the total.
  using Ranked = std::pair<float, VertexId>;
  auto worse = [](const Ranked& a, const Ranked& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  std::priority_queue<Ranked, std::vector<Ranked>, decltype(worse)> top(worse);
  double total = 0;
  auto on_partition = [&](VertexId first, std::span<const PageRankProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const float rank = states[i].rank;
      total += rank;
      // The heap's top is the worst of the 10 kept: a vertex enters only when it is better (the
      // same 10 as pushing every vertex and popping the worst, without a heap operation per
      // vertex: rmat22's 4M of them took ~0.1 s of the final pass, on one thread).
      if (top.size() < 10) {
        top.emplace(rank, v);
      } else if (worse(Ranked{rank, v}, top.top())) {
        top.pop();
        top.emplace(rank, v);
      }
      if (!ranks.empty()) ranks[v] = rank;
      if (out.active()) {
        out.begin_line(v);
        out.add(rank);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("PAGERANK::ITERATIONS", std::to_string(program.iterations));
  std::ostringstream sum;
  sum.precision(9);
  sum << total;
  report.summary.emplace_back("PAGERANK::SUM", sum.str());
  std::vector<Ranked> best;
  while (!top.empty()) {
    best.push_back(top.top());
    top.pop();
  }
  std::reverse(best.begin(), best.end());
  for (std::size_t i = 0; i < best.size(); ++i) {
    std::ostringstream line;
    line.precision(9);
    line << best[i].second << " " << best[i].first;
    report.summary.emplace_back("PAGERANK::TOP" + std::to_string(i + 1), line.str());
  }
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<double> reference = pagerank_reference(g, program.iterations);
    ProblemList problems;
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const double expected = reference[v];
      if (!(std::fabs(ranks[v] - expected) <= kPageRankTolerance * std::max(1.0, std::fabs(expected)))) {
        std::ostringstream p;
        p.precision(9);
        p << "vertex " << v << ": rank " << ranks[v] << ", reference " << expected;
        problems.add(p.str());
      }
    }
    set_verification(report, problems.finish(),
                     "ranks equal the double-precision reference within relative " + std::to_string(kPageRankTolerance));
  }
  return report;
}

}  // namespace edgestream
