// Placeholder for -b triangle_counting until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_triangle_counting(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b triangle_counting is not available in this build yet"};
}

}  // namespace edgestream
