// HyperANF runner (output: estimated ball size at the last iteration), the HLL helpers, the
// in-memory reference and the verifier (exact equality with the reference).
#include "algorithms/hyperanf.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "algorithms/runner_support.hpp"
#include "utils/mix64.hpp"

namespace edgestream {

Expected<HllParams> hll_params(double rsd) {
  if (!(rsd > 0.0 && rsd <= 1.0)) {
    std::ostringstream m;
    m << "--hyperanf::rsd must be in (0, 1], got " << rsd;
    return invalid_argument(m.str());
  }
  HllParams p;
  p.rsd = rsd;
  const double want = std::ceil(std::log2((1.106 / rsd) * (1.106 / rsd)));
  if (want > kHyperAnfMaxLog2) {
    std::ostringstream m;
    m << "--hyperanf::rsd " << rsd << " needs 2^" << want << " registers per vertex; the smallest supported rsd is "
      << 1.106 / std::sqrt(double(1U << kHyperAnfMaxLog2)) << " (2^" << kHyperAnfMaxLog2 << " registers)";
    return invalid_argument(m.str());
  }
  p.log2_m = std::max<unsigned>(kHyperAnfMinLog2, static_cast<unsigned>(std::max(0.0, want)));
  p.m = 1U << p.log2_m;
  const double m = p.m;
  switch (p.log2_m) {
    case 4: p.alpha_mm = 0.673 * m * m; break;
    case 5: p.alpha_mm = 0.697 * m * m; break;
    case 6: p.alpha_mm = 0.709 * m * m; break;
    default: p.alpha_mm = (0.7213 / (1.0 + 1.079 / m)) * m * m; break;
  }
  p.small_threshold = 2.5 * m;
  return p;
}

std::uint64_t hyperanf_hash(VertexId v) { return splitmix64(v); }

namespace {
// 2^-r for every register value r (exact powers of two).
struct InversePowers {
  double value[256];
  InversePowers() {
    for (int r = 0; r < 256; ++r) value[r] = std::ldexp(1.0, -r);
  }
};
const InversePowers kInversePowers;
}  // namespace

double hll_estimate(const HllParams& params, const std::uint8_t* registers) {
  double s = 0.0;
  std::uint32_t zeroes = 0;
  for (std::uint32_t i = 0; i < params.m; ++i) {
    zeroes += registers[i] == 0 ? 1 : 0;
    s += kInversePowers.value[registers[i]];
  }
  const double raw = params.alpha_mm / s;
  if (zeroes != 0 && raw < params.small_threshold) {
    return params.m * std::log(static_cast<double>(params.m) / zeroes);
  }
  return raw;
}

HyperAnfTally::Stop hyperanf_stop(std::uint64_t t, std::uint64_t sum, std::uint64_t previous_sum, std::uint64_t changed,
                                  double epsilon, std::uint64_t max_iterations) {
  if (t >= 1 && previous_sum > 0) {
    const double change = std::fabs(static_cast<double>(sum) - static_cast<double>(previous_sum)) /
                          static_cast<double>(previous_sum);
    if (change < epsilon) return HyperAnfTally::Stop::kEpsilon;
  }
  if (t >= 1 && changed == 0) return HyperAnfTally::Stop::kStable;
  if (t + 2 >= max_iterations) return HyperAnfTally::Stop::kIterations;
  return HyperAnfTally::Stop::kNone;
}

HyperAnfReference hyperanf_reference(const InMemoryGraph& g, const HllParams& params, double epsilon,
                                     std::uint64_t max_iterations) {
  const std::size_t m = params.m;
  const std::size_t n = g.vertices;
  std::vector<std::uint8_t> cur(n * m, 0);
  for (std::size_t v = 0; v < n; ++v) {
    std::uint32_t index = 0;
    std::uint8_t value = 0;
    hll_register_of(static_cast<VertexId>(v), params.log2_m, index, value);
    cur[v * m + index] = value;
  }
  HyperAnfReference out;
  out.estimate.resize(n);
  std::vector<std::uint8_t> next = cur;
  std::uint64_t changed = n;
  for (std::uint64_t t = 0;; ++t) {
    if (t > 0) {
      next = cur;
      for (const Edge& e : g.edges) {
        for (std::size_t i = 0; i < m; ++i) {
          next[e.dst * m + i] = std::max(next[e.dst * m + i], cur[e.src * m + i]);
        }
      }
      changed = 0;
      for (std::size_t v = 0; v < n; ++v) {
        changed += std::memcmp(&next[v * m], &cur[v * m], m) != 0 ? 1 : 0;
      }
      cur.swap(next);
    }
    HyperAnfTally::Iteration it{0, UINT32_MAX, 0.0F};
    bool first = true;
    for (std::size_t v = 0; v < n; ++v) {
      const float est = static_cast<float>(hll_estimate(params, &cur[v * m]));
      out.estimate[v] = est;
      it.sum += hyperanf_fixed(est);
      if (first || est > it.seed_reach) {
        it.seed = static_cast<VertexId>(v);
        it.seed_reach = est;
        first = false;
      }
    }
    const std::uint64_t previous = out.iterations.empty() ? 0 : out.iterations.back().sum;
    out.iterations.push_back(it);
    out.stop = hyperanf_stop(t, it.sum, previous, changed, epsilon, max_iterations);
    if (out.stop != HyperAnfTally::Stop::kNone) return out;
  }
}

std::uint64_t exact_ball_size(const Csr& in_adjacency, VertexId v, std::uint64_t t) {
  std::vector<std::uint64_t> seen_at(in_adjacency.offsets.size() - 1, UINT64_MAX);
  std::vector<VertexId> frontier{v};
  seen_at[v] = 0;
  std::uint64_t count = 1;
  for (std::uint64_t d = 1; d <= t && !frontier.empty(); ++d) {
    std::vector<VertexId> next;
    for (const VertexId u : frontier) {
      for (std::uint64_t i = in_adjacency.offsets[u]; i < in_adjacency.offsets[u + 1]; ++i) {
        const VertexId w = in_adjacency.targets[i];
        if (seen_at[w] != UINT64_MAX) continue;
        seen_at[w] = d;
        next.push_back(w);
        ++count;
      }
    }
    frontier.swap(next);
  }
  return count;
}

namespace {

std::string fixed_string(double value, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << value;
  return s.str();
}

std::string float_string(float value) {
  std::ostringstream s;
  s.precision(9);
  s << value;
  return s.str();
}

template <unsigned kLog2M>
Expected<AlgorithmReport> run_hyperanf_with(const AlgorithmRequest& request, const HllParams& params) {
  HyperAnfTally tally;
  HyperAnfProgram<kLog2M> program;
  program.params = params;
  program.epsilon = request.params.hyperanf_epsilon;
  program.max_iterations = request.params.hyperanf_max_iterations;
  program.tally = &tally;
  std::vector<float> estimates;
  if (request.verify) estimates.resize(request.graph.vertices);
  using State = typename HyperAnfProgram<kLog2M>::Vertex;
  auto on_partition = [&](VertexId first, std::span<const State> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      if (!estimates.empty()) estimates[v] = states[i].estimate;
      if (out.active()) {
        out.begin_line(v);
        out.add(states[i].estimate);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("HYPERANF::RSD", fixed_string(params.rsd, 6));
  report.summary.emplace_back("HYPERANF::REGISTERS", std::to_string(params.m));
  report.summary.emplace_back("HYPERANF::ALPHA_MM", fixed_string(params.alpha_mm, 6));
  for (std::size_t t = 0; t < tally.iterations.size(); ++t) {
    const HyperAnfTally::Iteration& it = tally.iterations[t];
    // X-Stream prints "ALGORITHM::ANF t N(t)"; the iteration goes into the key here so that keys
    // stay unique (the --stats_json summary is an object).
    const std::string suffix = "::" + std::to_string(t);
    report.summary.emplace_back("HYPERANF::ANF" + suffix, fixed_string(static_cast<double>(it.sum) / kHyperAnfFixedScale, 6));
    report.summary.emplace_back("HYPERANF::SEED" + suffix, std::to_string(it.seed));
    report.summary.emplace_back("HYPERANF::SEED_REACH" + suffix, float_string(it.seed_reach));
  }
  switch (tally.stop) {
    case HyperAnfTally::Stop::kEpsilon:
      report.summary.emplace_back("HYPERANF::EPSILON_STOP", fixed_string(program.epsilon, 6));
      break;
    case HyperAnfTally::Stop::kIterations:
      report.summary.emplace_back("HYPERANF::ITER_STOP", std::to_string(program.max_iterations));
      break;
    case HyperAnfTally::Stop::kStable:
      report.summary.emplace_back("HYPERANF::STABLE_STOP", std::to_string(tally.iterations.size() - 1));
      break;
    case HyperAnfTally::Stop::kNone:
      break;
  }
  report.summary.emplace_back("HYPERANF::ITERATIONS", std::to_string(tally.iterations.size() - 1));
  if (!tally.iterations.empty()) {
    report.summary.emplace_back(
        "HYPERANF::NEIGHBOURHOOD_FUNCTION",
        fixed_string(static_cast<double>(tally.iterations.back().sum) / kHyperAnfFixedScale, 6));
  }
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const HyperAnfReference ref = hyperanf_reference(g, params, program.epsilon, program.max_iterations);
    ProblemList problems;
    if (ref.iterations.size() != tally.iterations.size()) {
      problems.add("iterations: engine " + std::to_string(tally.iterations.size() - 1) + ", reference " +
                   std::to_string(ref.iterations.size() - 1));
    } else {
      for (std::size_t t = 0; t < ref.iterations.size(); ++t) {
        const auto& a = tally.iterations[t];
        const auto& b = ref.iterations[t];
        if (a.sum != b.sum || a.seed != b.seed || a.seed_reach != b.seed_reach) {
          problems.add("N(" + std::to_string(t) + "): engine " + std::to_string(a.sum) + " seed " + std::to_string(a.seed) +
                       ", reference " + std::to_string(b.sum) + " seed " + std::to_string(b.seed));
        }
      }
    }
    if (ref.stop != tally.stop) problems.add("stopping reason differs from the reference");
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const float e = estimates[v];
      if (!(e >= 0.999F) || !std::isfinite(e)) {
        problems.add("vertex " + std::to_string(v) + ": estimate " + float_string(e) + " is not a ball size (>= 1)");
      }
      if (e != ref.estimate[v]) {
        problems.add("vertex " + std::to_string(v) + ": estimate " + float_string(e) + ", reference " +
                     float_string(ref.estimate[v]));
      }
    }
    std::uint64_t total = 0;
    for (std::uint64_t v = 0; v < g.vertices; ++v) total += hyperanf_fixed(estimates[v]);
    if (!tally.iterations.empty() && total != tally.iterations.back().sum) {
      problems.add("per-vertex estimates do not add up to the last N(t)");
    }
    set_verification(report, problems.finish(),
                     "HLL counters, N(t), seeds and stopping point equal the in-memory HLL reference exactly; "
                     "per-vertex estimates add up to the last N(t)");
  }
  return report;
}

template <unsigned kLog2M>
Expected<AlgorithmReport> dispatch(const AlgorithmRequest& request, const HllParams& params) {
  if constexpr (kLog2M > kHyperAnfMaxLog2) {
    return invalid_argument("--hyperanf::rsd needs too many registers");
  } else {
    if (params.log2_m == kLog2M) return run_hyperanf_with<kLog2M>(request, params);
    return dispatch<kLog2M + 1>(request, params);
  }
}

}  // namespace

Expected<AlgorithmReport> run_hyperanf(const AlgorithmRequest& request) {
  ES_ASSIGN_OR_RETURN(const HllParams params, hll_params(request.params.hyperanf_rsd));
  if (!(request.params.hyperanf_epsilon >= 0.0) || !std::isfinite(request.params.hyperanf_epsilon)) {
    std::ostringstream m;
    m << "--hyperanf::epsilon must be a finite number >= 0, got " << request.params.hyperanf_epsilon;
    return invalid_argument(m.str());
  }
  if (request.graph.vertices > kHyperAnfMaxVertices) {
    return invalid_argument("-b hyperanf supports at most " + std::to_string(kHyperAnfMaxVertices) +
                            " vertices (its exact N(t) tally is a 64-bit fixed-point sum); the graph has " +
                            std::to_string(request.graph.vertices));
  }
  return dispatch<kHyperAnfMinLog2>(request, params);
}

}  // namespace edgestream
