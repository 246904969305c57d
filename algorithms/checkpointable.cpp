// The table of checkpointable algorithms (docs/checkpoint.md): single-pass runners whose program
// opts in (kCheckpointable) and the parameters each one's result depends on.
#include "algorithms/checkpointable.hpp"

#include <cstdio>
#include <map>

namespace edgestream {
namespace {

std::string real(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

using Describe = std::string (*)(const AlgorithmParams&);

const std::map<std::string, Describe>& table() {
  static const std::map<std::string, Describe> algorithms = {
      {"pagerank", [](const AlgorithmParams& p) { return " --pagerank::niters " + std::to_string(p.pagerank_iterations); }},
      {"pagerank_ddf", [](const AlgorithmParams&) { return std::string(); }},
      {"bfs", [](const AlgorithmParams& p) { return " --bfs::root " + std::to_string(p.bfs_root); }},
      {"bfs_forest", [](const AlgorithmParams&) { return std::string(); }},
      {"sssp", [](const AlgorithmParams& p) { return " --sssp::source " + std::to_string(p.sssp_source); }},
      {"sssp_forest", [](const AlgorithmParams&) { return std::string(); }},
      {"cc", [](const AlgorithmParams&) { return std::string(); }},
      {"spmv", [](const AlgorithmParams&) { return std::string(); }},
      {"conductance", [](const AlgorithmParams&) { return std::string(); }},
      {"degree_cnt", [](const AlgorithmParams&) { return std::string(); }},
      {"range_check", [](const AlgorithmParams&) { return std::string(); }},
      {"mis", [](const AlgorithmParams&) { return std::string(); }},
      {"checkbip", [](const AlgorithmParams&) { return std::string(); }},
      {"bc", [](const AlgorithmParams& p) { return " --bc::source " + std::to_string(p.bc_source); }},
      {"belief_propagation",
       [](const AlgorithmParams& p) {
         return " --belief_propagation::niters " + std::to_string(p.belief_propagation_iterations);
       }},
      {"hyperanf",
       [](const AlgorithmParams& p) {
         return " --hyperanf::maxiters " + std::to_string(p.hyperanf_max_iterations) + " --hyperanf::epsilon " +
                real(p.hyperanf_epsilon) + " --hyperanf::rsd " + real(p.hyperanf_rsd);
       }},
  };
  return algorithms;
}

}  // namespace

std::string checkpointable_algorithms() {
  std::string names;
  for (const auto& [name, _] : table()) names += (names.empty() ? "" : ", ") + name;
  return names + " (and wcc)";
}

Expected<std::string> checkpoint_run_identity(const std::string& algorithm, const AlgorithmParams& params) {
  const std::string name = algorithm == "wcc" ? "cc" : algorithm;
  const auto it = table().find(name);
  if (it == table().end()) {
    std::string why = "";
    if (name == "mcst" || name == "scc") why = " (it runs several engine passes with work in memory between them)";
    if (name == "triangle_counting") why = " (it counts in vertex-range blocks outside the superstep loop)";
    if (name == "reverse") why = " (it is one sequential pass that writes a graph)";
    if (name == "als") why = " (its per-iteration error log is accumulated outside the vertex states)";
    return Status{StatusCode::kUnsupported, "--checkpoint/--resume are not supported for -b " + algorithm + why +
                                                "; supported: " + checkpointable_algorithms()};
  }
  return "-b " + name + it->second(params);
}

}  // namespace edgestream
