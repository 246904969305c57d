// Placeholder for -b checkbip until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_checkbip(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b checkbip is not available in this build yet"};
}

}  // namespace edgestream
