// Placeholder for -b bfs_forest until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_bfs_forest(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b bfs_forest is not available in this build yet"};
}

}  // namespace edgestream
