// Placeholder for -b pagerank_ddf until its implementation lands (issue 3).
#include "algorithms/algorithm.hpp"

namespace edgestream {

Expected<AlgorithmReport> run_pagerank_ddf(const AlgorithmRequest&) {
  return Status{StatusCode::kUnsupported, "-b pagerank_ddf is not available in this build yet"};
}

}  // namespace edgestream
