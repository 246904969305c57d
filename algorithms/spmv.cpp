// spmv runner (output: y per vertex), reference (long double sums in file order) and verifier.
#include "algorithms/spmv.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "algorithms/runner_support.hpp"

namespace edgestream {

std::vector<long double> spmv_reference(const InMemoryGraph& g) {
  std::vector<long double> y(g.vertices, 0.0L);
  for (const Edge& e : g.edges) y[e.dst] += static_cast<long double>(e.weight) * static_cast<long double>(e.src);
  return y;
}

Expected<AlgorithmReport> run_spmv(const AlgorithmRequest& request) {
  SpmvProgram program;
  std::vector<float> y;
  if (request.verify) y.resize(request.graph.vertices);
  double total = 0;  // sum of the printed (float) values, in id order
  std::uint64_t nonzero = 0;
  auto on_partition = [&](VertexId first, std::span<const SpmvProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const auto value = static_cast<float>(SpmvProgram::result(states[i]));
      total += value;
      nonzero += value != 0.0F ? 1 : 0;
      if (!y.empty()) y[v] = value;
      if (out.active()) {
        out.begin_line(v);
        out.add(value);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  std::ostringstream sum;
  sum.precision(17);
  sum << total;
  report.summary.emplace_back("SPMV::SUM", sum.str());
  report.summary.emplace_back("SPMV::NONZERO", std::to_string(nonzero));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<long double> expected = spmv_reference(g);
    std::vector<long double> magnitude(g.vertices, 0.0L);  // sum of |term|
    for (const Edge& e : g.edges) magnitude[e.dst] += std::fabs(static_cast<long double>(e.weight) * e.src);
    ProblemList problems;
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const long double want = expected[v];
      bool ok = false;
      if (std::isnan(want)) {
        ok = std::isnan(y[v]);
      } else if (std::isinf(want)) {
        ok = static_cast<long double>(y[v]) == want;
      } else {
        // One float rounding of the result plus the summation errors (both far below 1e-12 of the
        // term magnitudes); a float overflow of a finite sum prints inf.
        const long double tolerance = std::ldexp(std::fabs(want), -23) + 1e-12L * magnitude[v];
        ok = std::fabs(static_cast<long double>(y[v]) - want) <= tolerance ||
             (std::isinf(y[v]) && std::fabs(want) > static_cast<long double>(std::numeric_limits<float>::max()));
      }
      if (!ok) {
        std::ostringstream p;
        p.precision(12);
        p << "vertex " << v << ": y " << y[v] << ", reference " << static_cast<double>(want);
        problems.add(p.str());
      }
    }
    set_verification(report, problems.finish(),
                     "y equals a long-double sum of w(u,v) * u over the in-edges, within one float rounding");
  }
  return report;
}

}  // namespace edgestream
