// conductance runner: ALGORITHM::CONDUCTANCE::VALUE (X-Stream's line) plus the three counts it is
// made of; verifier recounts over the in-memory edge list. --output is accepted and stays empty
// (no per-vertex value), as with range_check.
#include "algorithms/conductance.hpp"

#include <algorithm>
#include <sstream>

#include "algorithms/reference_graph.hpp"
#include "algorithms/runner_support.hpp"

namespace edgestream {

double ConductanceCounts::value() const {
  const std::uint64_t base = std::max(from_red, from_black);
  return base == 0 ? 0.0 : static_cast<double>(crossing) / static_cast<double>(base);
}

Expected<AlgorithmReport> run_conductance(const AlgorithmRequest& request) {
  ConductanceProgram program;
  ConductanceCounts counts;
  auto on_partition = [&](VertexId first, std::span<const ConductanceProgram::Vertex> states, VertexOutput&) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      ((v & 1U) != 0 ? counts.from_red : counts.from_black) += states[i].out;
      counts.crossing += states[i].crossing;
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  std::ostringstream value;
  value.precision(9);
  value << counts.value();
  report.summary.emplace_back("CONDUCTANCE::VALUE", value.str());
  report.summary.emplace_back("CONDUCTANCE::CROSSING_EDGES", std::to_string(counts.crossing));
  report.summary.emplace_back("CONDUCTANCE::EDGES_FROM_RED", std::to_string(counts.from_red));
  report.summary.emplace_back("CONDUCTANCE::EDGES_FROM_BLACK", std::to_string(counts.from_black));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    ConductanceCounts expected;
    for (const Edge& e : g.edges) {
      ((e.src & 1U) != 0 ? expected.from_red : expected.from_black) += 1;
      expected.crossing += ((e.src ^ e.dst) & 1U) != 0 ? 1 : 0;
    }
    ProblemList problems;
    if (counts.crossing != expected.crossing || counts.from_red != expected.from_red ||
        counts.from_black != expected.from_black) {
      problems.add("counts crossing/red/black " + std::to_string(counts.crossing) + "/" + std::to_string(counts.from_red) +
                   "/" + std::to_string(counts.from_black) + ", reference " + std::to_string(expected.crossing) + "/" +
                   std::to_string(expected.from_red) + "/" + std::to_string(expected.from_black));
    }
    if (counts.from_red + counts.from_black != g.edges.size()) problems.add("the colour counts do not add up to the edges");
    set_verification(report, problems.finish(), "crossing and per-colour edge counts equal a direct count");
  }
  return report;
}

}  // namespace edgestream
