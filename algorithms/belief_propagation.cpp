// Placeholder for -b belief_propagation until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_belief_propagation(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b belief_propagation is not available in this build yet"};
}

}  // namespace edgestream
