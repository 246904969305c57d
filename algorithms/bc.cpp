// Betweenness-dependency runner (output: dependency per vertex), Brandes reference and verifier.
#include "algorithms/bc.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "algorithms/runner_support.hpp"

namespace edgestream {

namespace {

bool close(double got, double want) { return std::fabs(got - want) <= kBcTolerance * std::max(1.0, std::fabs(want)); }

std::string format(double value, int precision = 17) {
  std::ostringstream s;
  s.precision(precision);
  s << value;
  return s.str();
}

}  // namespace

BcResult bc_reference(const InMemoryGraph& g, VertexId source) {
  BcResult r;
  r.level.assign(g.vertices, -1);
  r.sigma.assign(g.vertices, 0.0);
  r.delta.assign(g.vertices, 0.0);
  if (source >= g.vertices) return r;
  const Csr out = build_csr(g, CsrDirection::kOut);
  std::vector<VertexId> order;  // BFS order (the "stack" of Brandes' algorithm)
  order.reserve(g.vertices);
  order.push_back(source);
  r.level[source] = 0;
  r.sigma[source] = 1.0;
  for (std::size_t head = 0; head < order.size(); ++head) {
    const VertexId v = order[head];
    for (std::uint64_t i = out.offsets[v]; i < out.offsets[v + 1]; ++i) {
      const VertexId w = out.targets[i];
      if (r.level[w] < 0) {
        r.level[w] = r.level[v] + 1;
        order.push_back(w);
      }
      if (r.level[w] == r.level[v] + 1) r.sigma[w] += r.sigma[v];
    }
  }
  for (std::size_t i = order.size(); i-- > 0;) {
    const VertexId v = order[i];
    for (std::uint64_t j = out.offsets[v]; j < out.offsets[v + 1]; ++j) {
      const VertexId w = out.targets[j];
      if (r.level[w] == r.level[v] + 1) r.delta[v] += r.sigma[v] / r.sigma[w] * (1.0 + r.delta[w]);
    }
  }
  r.delta[source] = 0.0;
  return r;
}

Expected<AlgorithmReport> run_bc(const AlgorithmRequest& request) {
  if (request.params.bc_source >= request.graph.vertices) {
    return invalid_argument("--bc::source " + std::to_string(request.params.bc_source) + " is not a vertex of " +
                            request.graph.ini_path.string() + " (it has " + std::to_string(request.graph.vertices) +
                            " vertices)");
  }
  BcProgram program;
  program.source = static_cast<VertexId>(request.params.bc_source);
  // With --verify the engine's result is kept for the check. Allocated at the first final state,
  // after the memory plan, so that it does not count in the process baseline the plan starts from.
  BcResult result;
  std::uint64_t reached = 0;
  std::int64_t depth = 0;
  // The largest dependency outside the source (X-Stream's MAX_CENTRALITY). Values within
  // kBcTolerance of each other count as equal and the smallest id wins, so that summation-order
  // noise does not change the vertex reported.
  double best = 0.0;
  std::int64_t best_vertex = -1;
  auto on_partition = [&](VertexId first, std::span<const BcProgram::Vertex> states, VertexOutput& out) {
    if (request.verify && result.level.empty()) {
      result.level.resize(request.graph.vertices);
      result.sigma.resize(request.graph.vertices);
      result.delta.resize(request.graph.vertices);
    }
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const BcProgram::Vertex& s = states[i];
      const bool hit = s.level != BcProgram::kUnreached;
      const double delta = (hit && v != program.source) ? s.sigma * s.acc : 0.0;
      const std::int64_t level = hit ? static_cast<std::int64_t>(s.level) : std::int64_t{-1};
      reached += hit ? 1 : 0;
      depth = std::max(depth, level);
      if (v != program.source && delta > 0.0 && (best_vertex < 0 || delta > best + kBcTolerance * std::max(1.0, best))) {
        best = delta;
        best_vertex = v;
      }
      if (!result.level.empty()) {
        result.level[v] = level;
        result.sigma[v] = s.sigma;
        result.delta[v] = delta;
      }
      if (out.active()) {
        out.begin_line(v);
        out.add(delta);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("BC::SOURCE", std::to_string(program.source));
  report.summary.emplace_back("BC::REACHED", std::to_string(reached));
  report.summary.emplace_back("BC::DEPTH", std::to_string(depth));
  std::ostringstream max_value;
  max_value.precision(9);
  max_value << best;
  report.summary.emplace_back("BC::MAX_CENTRALITY", max_value.str());
  report.summary.emplace_back("BC::MAX_CENTRALITY_VERTEX", std::to_string(best_vertex));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const BcResult expected = bc_reference(g, program.source);
    ProblemList problems;
    // Properties of the engine's own result, one pass over the edges: no edge skips a level
    // downwards; sigma(w) is the sum of sigma over w's predecessors one level up (exact: sums of
    // integers); delta(v) satisfies Brandes' recursion over its successors one level down.
    std::vector<double> sigma_sum(g.vertices, 0.0);
    std::vector<double> delta_sum(g.vertices, 0.0);
    for (const Edge& e : g.edges) {
      const std::int64_t lu = result.level[e.src];
      const std::int64_t lv = result.level[e.dst];
      if (lu < 0) continue;
      if (lv < 0 || lv > lu + 1) {
        problems.add("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) + " spans levels " +
                     std::to_string(lu) + " -> " + std::to_string(lv));
        continue;
      }
      if (lv == lu + 1) {
        sigma_sum[e.dst] += result.sigma[e.src];
        const double dw = e.dst == program.source ? 0.0 : result.delta[e.dst];
        delta_sum[e.src] += result.sigma[e.src] / result.sigma[e.dst] * (1.0 + dw);
      }
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const std::string name = "vertex " + std::to_string(v);
      const bool hit = result.level[v] >= 0;
      if (hit && v != program.source && result.sigma[v] != sigma_sum[v]) {
        problems.add(name + ": sigma " + format(result.sigma[v]) + " but its predecessors sum to " + format(sigma_sum[v]));
      }
      if (hit && v != program.source && !close(result.delta[v], delta_sum[v])) {
        problems.add(name + ": delta " + format(result.delta[v]) + " but its successors give " + format(delta_sum[v]));
      }
      if (!hit && (result.sigma[v] != 0.0 || result.delta[v] != 0.0)) problems.add(name + ": unreached but sigma/delta not 0");
      if (result.level[v] != expected.level[v] || result.sigma[v] != expected.sigma[v] ||
          !close(result.delta[v], expected.delta[v])) {
        problems.add(name + ": level/sigma/delta " + std::to_string(result.level[v]) + "/" + format(result.sigma[v]) + "/" +
                     format(result.delta[v]) + ", reference " + std::to_string(expected.level[v]) + "/" +
                     format(expected.sigma[v]) + "/" + format(expected.delta[v]));
      }
    }
    if (result.delta[program.source] != 0.0) problems.add("the source's dependency is not 0");
    set_verification(report, problems.finish(),
                     "levels and path counts equal Brandes' reference exactly, dependencies within relative " +
                         format(kBcTolerance, 3) + "; sigma and delta satisfy Brandes' recursions");
  }
  return report;
}

}  // namespace edgestream
