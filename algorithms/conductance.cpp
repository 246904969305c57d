// Placeholder for -b conductance until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_conductance(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b conductance is not available in this build yet"};
}

}  // namespace edgestream
