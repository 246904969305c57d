// SSSP runner (output: distance), reference (Dijkstra) and verifier (triangle inequality + equality).
#include "algorithms/sssp.hpp"

#include <algorithm>
#include <queue>
#include <sstream>

#include "algorithms/engine_instances.hpp"
#include "algorithms/runner_support.hpp"

namespace edgestream {

std::vector<float> sssp_reference(const InMemoryGraph& g, VertexId source) {
  const Csr out = build_csr(g, CsrDirection::kOut);
  std::vector<float> dist(g.vertices, SsspProgram::kInfinity);
  if (source >= g.vertices) return dist;
  using Item = std::pair<float, VertexId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  dist[source] = 0.0F;
  heap.emplace(0.0F, source);
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d > dist[u]) continue;
    for (std::uint64_t i = out.offsets[u]; i < out.offsets[u + 1]; ++i) {
      const float candidate = d + out.weights[i];
      if (candidate < dist[out.targets[i]]) {
        dist[out.targets[i]] = candidate;
        heap.emplace(candidate, out.targets[i]);
      }
    }
  }
  return dist;
}

Expected<AlgorithmReport> run_sssp(const AlgorithmRequest& request) {
  if (request.params.sssp_source >= request.graph.vertices) {
    return invalid_argument("--sssp::source " + std::to_string(request.params.sssp_source) + " is not a vertex of " +
                            request.graph.ini_path.string() + " (it has " + std::to_string(request.graph.vertices) +
                            " vertices)");
  }
  SsspProgram program;
  program.source = static_cast<VertexId>(request.params.sssp_source);
  std::vector<float> dist;
  if (request.verify) dist.resize(request.graph.vertices);
  std::uint64_t reached = 0;
  float farthest = 0;
  auto on_partition = [&](VertexId first, std::span<const SsspProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const float d = states[i].distance;
      if (d != SsspProgram::kInfinity) {
        ++reached;
        farthest = std::max(farthest, d);
      }
      if (!dist.empty()) dist[v] = d;
      if (out.active()) {
        out.begin_line(v);
        out.add(d);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("SSSP::SOURCE", std::to_string(program.source));
  report.summary.emplace_back("SSSP::REACHED", std::to_string(reached));
  std::ostringstream far;
  far.precision(9);
  far << farthest;
  report.summary.emplace_back("SSSP::MAX_DISTANCE", far.str());
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<float> expected = sssp_reference(g, program.source);
    ProblemList problems;
    for (const Edge& e : g.edges) {
      if (dist[e.src] + e.weight < dist[e.dst]) {
        problems.add("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) + " violates the triangle inequality");
      }
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (dist[v] != expected[v]) {
        std::ostringstream p;
        p.precision(9);
        p << "vertex " << v << ": distance " << dist[v] << ", reference " << expected[v];
        problems.add(p.str());
      }
    }
    set_verification(report, problems.finish(), "distances equal Dijkstra's; no edge violates the triangle inequality");
  }
  return report;
}

// The one instantiation of the engine for SsspProgram (algorithms/engine_instances.hpp declares it extern).
template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const SsspProgram&,
                                       const FinalStateVisitor<SsspProgram::Vertex>&);

}  // namespace edgestream
