// Placeholder for -b als until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_als(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b als is not available in this build yet"};
}

}  // namespace edgestream
