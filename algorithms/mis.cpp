// Placeholder for -b mis until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_mis(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b mis is not available in this build yet"};
}

}  // namespace edgestream
