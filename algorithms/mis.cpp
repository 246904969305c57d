// MIS runner (output: 1 in the set / 0 not), the greedy reference and the verifier (independent,
// maximal, equal to the greedy lowest-id-first set).
#include "algorithms/mis.hpp"

#include "algorithms/runner_support.hpp"

namespace edgestream {

std::vector<std::uint8_t> mis_reference(const InMemoryGraph& g) {
  const Csr adj = build_csr(g, CsrDirection::kBoth);
  std::vector<std::uint8_t> in(g.vertices, 0);
  std::vector<std::uint8_t> blocked(g.vertices, 0);
  for (std::uint64_t v = 0; v < g.vertices; ++v) {
    if (blocked[v] != 0) continue;
    in[v] = 1;
    for (std::uint64_t i = adj.offsets[v]; i < adj.offsets[v + 1]; ++i) {
      if (adj.targets[i] != v) blocked[adj.targets[i]] = 1;
    }
  }
  return in;
}

Expected<AlgorithmReport> run_mis(const AlgorithmRequest& request) {
  MisProgram program;
  std::vector<std::uint8_t> in;
  if (request.verify) in.resize(request.graph.vertices);
  std::uint64_t size = 0;
  std::uint64_t undecided = 0;
  auto on_partition = [&](VertexId first, std::span<const MisProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const bool member = states[i].status == MisProgram::kIn;
      size += member ? 1 : 0;
      undecided += states[i].status == MisProgram::kUndecided ? 1 : 0;
      if (!in.empty()) in[v] = member ? 1 : 0;
      if (out.active()) {
        out.begin_line(v);
        out.add_unsigned(member ? 1 : 0);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  if (undecided != 0) return Status{StatusCode::kInternal, "mis: the engine stopped with vertices undecided"};
  report.summary.emplace_back("MIS::SIZE", std::to_string(size));
  report.summary.emplace_back("MIS::NOT_IN_MIS", std::to_string(request.graph.vertices - size));  // X-Stream's line
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<std::uint8_t> expected = mis_reference(g);
    ProblemList problems;
    // Independent: no edge (other than a self-loop) joins two members.
    std::vector<std::uint8_t> covered(g.vertices, 0);  // a member or next to one
    for (std::uint64_t v = 0; v < g.vertices; ++v) covered[v] = in[v];
    for (const Edge& e : g.edges) {
      if (e.src == e.dst) continue;
      if (in[e.src] != 0 && in[e.dst] != 0) {
        problems.add("edge " + std::to_string(e.src) + "-" + std::to_string(e.dst) + " joins two members");
      }
      if (in[e.src] != 0) covered[e.dst] = 1;
      if (in[e.dst] != 0) covered[e.src] = 1;
    }
    // Maximal: every non-member has a member neighbour.
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (covered[v] == 0) problems.add("vertex " + std::to_string(v) + " is out but has no member neighbour");
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (in[v] != expected[v]) {
        problems.add("vertex " + std::to_string(v) + ": " + std::to_string(in[v]) + ", greedy reference " +
                     std::to_string(expected[v]));
      }
    }
    set_verification(report, problems.finish(),
                     "independent, maximal, equal to the greedy lowest-id-first set of the undirected view");
  }
  return report;
}

}  // namespace edgestream
