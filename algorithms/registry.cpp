// The table of algorithms benchmark_driver can run.
#include "algorithms/algorithm.hpp"

namespace edgestream {

const std::map<std::string, AlgorithmRunner>& algorithm_registry() {
  static const std::map<std::string, AlgorithmRunner> registry = {
      {"pagerank", &run_pagerank}, {"bfs", &run_bfs},
      {"cc", &run_cc},             {"wcc", &run_cc},
      {"sssp", &run_sssp},         {"degree_cnt", &run_degree_cnt},
      {"range_check", &run_range_check},
      {"pagerank_ddf", &run_pagerank_ddf},
      {"bfs_forest", &run_bfs_forest},
      {"sssp_forest", &run_sssp_forest},
      {"scc", &run_scc},
      {"mis", &run_mis},
      {"mcst", &run_mcst},
      {"spmv", &run_spmv},
      {"conductance", &run_conductance},
      {"reverse", &run_reverse},
      {"triangle_counting", &run_triangle_counting},
      {"hyperanf", &run_hyperanf},
      {"belief_propagation", &run_belief_propagation},
      {"bc", &run_bc},
      {"checkbip", &run_checkbip},
      {"als", &run_als},
  };
  return registry;
}

}  // namespace edgestream
