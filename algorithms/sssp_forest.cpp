// Placeholder for -b sssp_forest until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_sssp_forest(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b sssp_forest is not available in this build yet"};
}

}  // namespace edgestream
