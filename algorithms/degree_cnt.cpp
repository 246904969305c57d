// degree_cnt runner (output: out-degree, in-degree) with a counting reference as verifier.
#include "algorithms/degree_cnt.hpp"

#include <algorithm>

#include "algorithms/reference_graph.hpp"
#include "algorithms/runner_support.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_degree_cnt(const AlgorithmRequest& request) {
  DegreeCountProgram program;
  std::vector<DegreeCountProgram::Vertex> degrees;
  if (request.verify) degrees.resize(request.graph.vertices);
  std::uint64_t max_out = 0;
  std::uint64_t max_in = 0;
  std::uint64_t isolated = 0;
  auto on_partition = [&](VertexId first, std::span<const DegreeCountProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      max_out = std::max<std::uint64_t>(max_out, states[i].out);
      max_in = std::max<std::uint64_t>(max_in, states[i].in);
      isolated += (states[i].out == 0 && states[i].in == 0) ? 1 : 0;
      if (!degrees.empty()) degrees[v] = states[i];
      if (out.active()) {
        out.begin_line(v);
        out.add_unsigned(states[i].out);
        out.add_unsigned(states[i].in);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("DEGREE_CNT::MAX_OUT_DEGREE", std::to_string(max_out));
  report.summary.emplace_back("DEGREE_CNT::MAX_IN_DEGREE", std::to_string(max_in));
  report.summary.emplace_back("DEGREE_CNT::ISOLATED_VERTICES", std::to_string(isolated));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    std::vector<std::uint64_t> out_degree(g.vertices, 0);
    std::vector<std::uint64_t> in_degree(g.vertices, 0);
    for (const Edge& e : g.edges) {
      ++out_degree[e.src];
      ++in_degree[e.dst];
    }
    ProblemList problems;
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (degrees[v].out != out_degree[v] || degrees[v].in != in_degree[v]) {
        problems.add("vertex " + std::to_string(v) + ": degrees " + std::to_string(degrees[v].out) + "/" +
                     std::to_string(degrees[v].in) + ", reference " + std::to_string(out_degree[v]) + "/" +
                     std::to_string(in_degree[v]));
      }
    }
    set_verification(report, problems.finish(), "out- and in-degrees equal a direct count");
  }
  return report;
}

}  // namespace edgestream
