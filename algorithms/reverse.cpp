// Placeholder for -b reverse until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_reverse(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b reverse is not available in this build yet"};
}

}  // namespace edgestream
