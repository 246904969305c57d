// The table of algorithms benchmark_driver can run.
#include "algorithms/algorithm.hpp"

namespace edgestream {

const std::map<std::string, AlgorithmRunner>& algorithm_registry() {
  static const std::map<std::string, AlgorithmRunner> registry = {
      {"pagerank", &run_pagerank}, {"bfs", &run_bfs},
      {"cc", &run_cc},             {"wcc", &run_cc},
      {"sssp", &run_sssp},         {"degree_cnt", &run_degree_cnt},
      {"range_check", &run_range_check},
  };
  return registry;
}

}  // namespace edgestream
