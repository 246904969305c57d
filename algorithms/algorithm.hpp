// What every algorithm runner receives and returns, and the registry that maps `-b NAME` to a
// runner. A runner runs its program on the engine, writes --output, computes its ALGORITHM::
// summary lines and, with --verify, checks the result against its in-memory reference.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine_options.hpp"
#include "core/run_stats.hpp"
#include "io/graph_format.hpp"
#include "io/status.hpp"

namespace edgestream {

/// Algorithm parameters from the command line (X-Stream's names in comments).
struct AlgorithmParams {
  std::uint64_t pagerank_iterations = 5;  // --pagerank::niters
  std::uint64_t bfs_root = 0;             // --bfs::root
  std::uint64_t sssp_source = 0;          // --sssp::source
  std::uint64_t bc_source = 0;            // --bc::source
  std::uint64_t belief_propagation_iterations = 5;  // --belief_propagation::niters
  std::uint64_t triangle_counting_iterations = 1;   // --triangle_counting::niters (approximate counter)
  bool triangle_counting_approximate = false;       // --triangle_counting::approximate
  std::uint64_t als_iterations = 5;                 // --als::niters
  std::uint64_t hyperanf_max_iterations = 100;      // --hyperanf::maxiters
  double hyperanf_epsilon = 0.001;                  // --hyperanf::epsilon
  double hyperanf_rsd = 0.10;                       // --hyperanf::rsd
};

struct AlgorithmRequest {
  GraphInfo graph;
  EngineOptions engine;
  AlgorithmParams params;
  std::filesystem::path output;  // empty: no per-vertex output
  bool verify = false;
};

struct AlgorithmReport {
  RunStats stats;
  /// ALGORITHM::<NAME>::<KEY> <value> lines, in order.
  std::vector<std::pair<std::string, std::string>> summary;
  std::optional<bool> verified;    // set when verification ran
  std::string verification_detail; // why it failed, or what was checked
  /// Files the run created besides --output (e.g. reverse's graph and .ini): removed with it when
  /// a signal arrives after the run finished.
  std::vector<std::filesystem::path> files_written;
};

using AlgorithmRunner = Expected<AlgorithmReport> (*)(const AlgorithmRequest&);

/// Every `-b` name this build runs, with its runner (aliases included, e.g. wcc -> cc).
const std::map<std::string, AlgorithmRunner>& algorithm_registry();

Expected<AlgorithmReport> run_pagerank(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_bfs(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_cc(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_sssp(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_degree_cnt(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_range_check(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_pagerank_ddf(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_bfs_forest(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_sssp_forest(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_scc(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_mis(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_mcst(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_spmv(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_conductance(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_reverse(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_triangle_counting(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_hyperanf(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_belief_propagation(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_bc(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_checkbip(const AlgorithmRequest& request);
Expected<AlgorithmReport> run_als(const AlgorithmRequest& request);

}  // namespace edgestream
