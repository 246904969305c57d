// Placeholder for -b bc until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_bc(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b bc is not available in this build yet"};
}

}  // namespace edgestream
