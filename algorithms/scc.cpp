// Placeholder for -b scc until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_scc(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b scc is not available in this build yet"};
}

}  // namespace edgestream
