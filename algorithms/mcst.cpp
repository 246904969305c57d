// Placeholder for -b mcst until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_mcst(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b mcst is not available in this build yet"};
}

}  // namespace edgestream
