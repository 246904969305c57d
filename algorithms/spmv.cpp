// Placeholder for -b spmv until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_spmv(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b spmv is not available in this build yet"};
}

}  // namespace edgestream
