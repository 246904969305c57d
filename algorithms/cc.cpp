// Connected components runner (output: label), reference (union-find) and verifier.
#include "algorithms/cc.hpp"

#include <numeric>

#include "algorithms/engine_instances.hpp"
#include "algorithms/runner_support.hpp"

namespace edgestream {

std::vector<VertexId> cc_reference(const InMemoryGraph& g) {
  std::vector<VertexId> parent(g.vertices);
  std::iota(parent.begin(), parent.end(), 0U);
  auto find = [&](VertexId v) {
    while (parent[v] != v) {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
    return v;
  };
  for (const Edge& e : g.edges) {
    const VertexId a = find(e.src);
    const VertexId b = find(e.dst);
    // Union by smaller id: the root is always the component's smallest id.
    if (a < b) parent[b] = a;
    if (b < a) parent[a] = b;
  }
  std::vector<VertexId> label(g.vertices);
  for (std::uint64_t v = 0; v < g.vertices; ++v) label[v] = find(static_cast<VertexId>(v));
  return label;
}

Expected<AlgorithmReport> run_cc(const AlgorithmRequest& request) {
  CcProgram program;
  std::vector<VertexId> labels;
  if (request.verify) labels.resize(request.graph.vertices);
  std::uint64_t components = 0;
  auto on_partition = [&](VertexId first, std::span<const CcProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      components += states[i].label == v ? 1 : 0;
      if (!labels.empty()) labels[v] = states[i].label;
      if (out.active()) {
        out.begin_line(v);
        out.add_unsigned(states[i].label);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("CC::COMPONENTS", std::to_string(components));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<VertexId> expected = cc_reference(g);
    ProblemList problems;
    for (const Edge& e : g.edges) {
      if (labels[e.src] != labels[e.dst]) {
        problems.add("edge " + std::to_string(e.src) + "-" + std::to_string(e.dst) + " joins labels " +
                     std::to_string(labels[e.src]) + " and " + std::to_string(labels[e.dst]));
      }
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (labels[v] != expected[v]) {
        problems.add("vertex " + std::to_string(v) + ": label " + std::to_string(labels[v]) + ", reference " +
                     std::to_string(expected[v]));
      }
    }
    set_verification(report, problems.finish(), "labels equal union-find's smallest-id labels; every edge joins equal labels");
  }
  return report;
}

// The one instantiation of the engine for CcProgram (algorithms/engine_instances.hpp declares it extern).
template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const CcProgram&,
                                       const FinalStateVisitor<CcProgram::Vertex>&);

}  // namespace edgestream
