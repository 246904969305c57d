// Placeholder for -b hyperanf until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_hyperanf(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b hyperanf is not available in this build yet"};
}

}  // namespace edgestream
