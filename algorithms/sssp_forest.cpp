// sssp_forest runner (output: root, distance), reference (forest roots + multi-root Dijkstra) and
// verifier (root minimality, triangle inequality and a tight in-edge per non-root, equality).
#include "algorithms/sssp_forest.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <sstream>

#include "algorithms/bfs_forest.hpp"
#include "algorithms/runner_support.hpp"

namespace edgestream {

SsspForestResult sssp_forest_reference(const InMemoryGraph& g) {
  SsspForestResult r;
  r.root = bfs_forest_reference(g).root;
  const Csr out = build_csr(g, CsrDirection::kOut);
  r.distance.assign(g.vertices, std::numeric_limits<float>::infinity());
  using Item = std::pair<float, VertexId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (std::uint64_t v = 0; v < g.vertices; ++v) {
    if (r.root[v] == v) {
      r.distance[v] = 0.0F;
      heap.emplace(0.0F, static_cast<VertexId>(v));
    }
  }
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d > r.distance[u]) continue;
    for (std::uint64_t i = out.offsets[u]; i < out.offsets[u + 1]; ++i) {
      const VertexId v = out.targets[i];
      if (r.root[v] != r.root[u]) continue;
      const float candidate = d + out.weights[i];
      if (candidate < r.distance[v]) {
        r.distance[v] = candidate;
        heap.emplace(candidate, v);
      }
    }
  }
  return r;
}

Expected<AlgorithmReport> run_sssp_forest(const AlgorithmRequest& request) {
  SsspForestProgram program;
  SsspForestResult result;
  if (request.verify) {
    result.root.resize(request.graph.vertices);
    result.distance.resize(request.graph.vertices);
  }
  std::uint64_t trees = 0;
  float farthest = 0;
  auto on_partition = [&](VertexId first, std::span<const SsspForestProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      trees += states[i].root == v ? 1 : 0;
      farthest = std::max(farthest, states[i].distance);
      if (!result.root.empty()) {
        result.root[v] = states[i].root;
        result.distance[v] = states[i].distance;
      }
      if (out.active()) {
        out.begin_line(v);
        out.add_unsigned(states[i].root);
        out.add(states[i].distance);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("SSSP_FOREST::TREES", std::to_string(trees));
  std::ostringstream far;
  far.precision(9);
  far << farthest;
  report.summary.emplace_back("SSSP_FOREST::MAX_DISTANCE", far.str());
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    ProblemList problems;
    check_forest_roots(g, result.root, problems);
    std::vector<std::uint8_t> tight(g.vertices, 0);
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (result.root[v] == v) {
        tight[v] = 1;
        if (result.distance[v] != 0.0F) problems.add("root " + std::to_string(v) + " has a non-zero distance");
      }
    }
    for (const Edge& e : g.edges) {
      if (result.root[e.src] != result.root[e.dst]) continue;
      const float through = result.distance[e.src] + e.weight;
      if (through < result.distance[e.dst]) {
        problems.add("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) + " violates the triangle inequality");
      }
      if (through == result.distance[e.dst]) tight[e.dst] = 1;
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (tight[v] == 0) problems.add("vertex " + std::to_string(v) + " has no in-edge of its tree that gives its distance");
    }
    const SsspForestResult expected = sssp_forest_reference(g);
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (result.root[v] != expected.root[v] || result.distance[v] != expected.distance[v]) {
        std::ostringstream p;
        p.precision(9);
        p << "vertex " << v << ": root/distance " << result.root[v] << "/" << result.distance[v] << ", reference "
          << expected.root[v] << "/" << expected.distance[v];
        problems.add(p.str());
      }
    }
    set_verification(report, problems.finish(),
                     "roots minimal; no edge inside a tree violates the triangle inequality; every non-root has a tight "
                     "in-edge of its tree; roots and distances equal the reference (multi-root Dijkstra)");
  }
  return report;
}

}  // namespace edgestream
