// Belief propagation runner (output: belief of state 0 and of state 1 per vertex), the literal
// per-edge reference, the brute-force marginals used by the tests, and the verifier.
#include "algorithms/belief_propagation.hpp"

#include <sstream>

#include "algorithms/runner_support.hpp"

namespace edgestream {

namespace {

double log_ratio_of(const std::array<double, 2>& p) {
  if (!(p[0] > 0.0) || !(p[1] > 0.0) || !std::isfinite(p[0]) || !std::isfinite(p[1])) return 0.0;
  return std::log(p[0]) - std::log(p[1]);
}

std::string number(double value) {
  std::ostringstream s;
  s.precision(9);
  s << value;
  return s.str();
}

}  // namespace

BpModel xstream_bp_model() {
  BpModel model;
  model.prior = [](VertexId) { return std::array<double, 2>{0.5, 0.5}; };
  model.potential = [](const Edge& e, VertexId sender, VertexId receiver) {
    return xstream_bp_potential(e.weight, sender, receiver);
  };
  model.initial = [](const Edge& e) { return std::array<double, 2>{e.weight, e.weight}; };
  return model;
}

std::vector<double> bp_reference(const InMemoryGraph& g, std::uint32_t iterations, const BpModel& model) {
  const std::size_t n = g.vertices;
  const std::size_t m = g.edges.size();
  // Message 2k: src -> dst of stored edge k; message 2k + 1: dst -> src. Log-ratios.
  std::vector<double> message(2 * m);
  for (std::size_t k = 0; k < m; ++k) {
    const double initial = log_ratio_of(model.initial(g.edges[k]));
    message[2 * k] = initial;
    message[2 * k + 1] = initial;
  }
  std::vector<double> prior(n);
  for (std::size_t v = 0; v < n; ++v) prior[v] = log_ratio_of(model.prior(static_cast<VertexId>(v)));
  std::vector<double> product(n, 0.0);
  std::vector<double> next(2 * m);
  for (std::uint32_t it = 1; it <= iterations; ++it) {
    std::fill(product.begin(), product.end(), 0.0);
    for (std::size_t k = 0; k < m; ++k) {
      product[g.edges[k].dst] += message[2 * k];
      product[g.edges[k].src] += message[2 * k + 1];
    }
    if (it == iterations) break;  // the last iteration's messages are never absorbed
    for (std::size_t k = 0; k < m; ++k) {
      const Edge& e = g.edges[k];
      // src -> dst: the cavity of src leaves out the message dst -> src, and vice versa.
      next[2 * k] = bp_message(model.potential(e, e.src, e.dst), prior[e.src] + product[e.src] - message[2 * k + 1]);
      next[2 * k + 1] = bp_message(model.potential(e, e.dst, e.src), prior[e.dst] + product[e.dst] - message[2 * k]);
    }
    message.swap(next);
  }
  std::vector<double> belief(n);
  for (std::size_t v = 0; v < n; ++v) belief[v] = bp_belief0(prior[v] + product[v]);
  return belief;
}

std::vector<double> bp_brute_force(const InMemoryGraph& g, const BpModel& model) {
  const std::size_t n = g.vertices;
  std::vector<double> mass0(n, 0.0);
  double total = 0.0;
  if (n > 20) return {};
  for (std::uint64_t x = 0; x < (std::uint64_t{1} << n); ++x) {
    double p = 1.0;
    for (std::size_t v = 0; v < n; ++v) p *= model.prior(static_cast<VertexId>(v))[(x >> v) & 1U];
    for (const Edge& e : g.edges) {
      p *= model.potential(e, e.src, e.dst)[(x >> e.dst) & 1U][(x >> e.src) & 1U];
    }
    total += p;
    for (std::size_t v = 0; v < n; ++v) {
      if (((x >> v) & 1U) == 0) mass0[v] += p;
    }
  }
  for (double& value : mass0) value /= total;
  return mass0;
}

Expected<AlgorithmReport> run_belief_propagation(const AlgorithmRequest& request) {
  BeliefPropagationProgram program;
  if (request.params.belief_propagation_iterations > UINT32_MAX - 2) {
    return invalid_argument("--belief_propagation::niters is too large: " +
                            std::to_string(request.params.belief_propagation_iterations));
  }
  program.iterations = static_cast<std::uint32_t>(request.params.belief_propagation_iterations);
  std::vector<std::array<double, 2>> beliefs;
  if (request.verify) beliefs.resize(request.graph.vertices);
  double sum0 = 0.0;
  double sum1 = 0.0;
  auto on_partition = [&](VertexId first, std::span<const BeliefPropagationProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const double b0 = bp_belief0(BeliefPropagationProgram::kPriorLogRatio + states[i].product);
      const double b1 = bp_belief0(-(BeliefPropagationProgram::kPriorLogRatio + states[i].product));
      sum0 += b0;
      sum1 += b1;
      if (!beliefs.empty()) beliefs[v] = {b0, b1};
      if (out.active()) {
        out.begin_line(v);
        out.add(static_cast<float>(b0));
        out.add(static_cast<float>(b1));
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("BELIEF_PROPAGATION::ITERATIONS", std::to_string(program.iterations));
  report.summary.emplace_back("BELIEF_PROPAGATION::MESSAGES", std::to_string(2 * request.graph.edges));
  report.summary.emplace_back("BELIEF_PROPAGATION::BELIEF_SUM0", number(sum0));
  report.summary.emplace_back("BELIEF_PROPAGATION::BELIEF_SUM1", number(sum1));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<double> reference = bp_reference(g, program.iterations, xstream_bp_model());
    ProblemList problems;
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const auto [b0, b1] = beliefs[v];
      if (!(b0 >= 0.0 && b1 >= 0.0) || !(std::fabs(b0 + b1 - 1.0) <= kBpTolerance)) {
        problems.add("vertex " + std::to_string(v) + ": belief (" + number(b0) + ", " + number(b1) +
                     ") is not a distribution");
      }
      if (!(std::fabs(b0 - reference[v]) <= kBpTolerance)) {
        problems.add("vertex " + std::to_string(v) + ": belief " + number(b0) + ", reference " + number(reference[v]));
      }
    }
    set_verification(report, problems.finish(),
                     "beliefs are distributions and equal the literal per-edge BP reference within " + number(kBpTolerance));
  }
  return report;
}

}  // namespace edgestream
