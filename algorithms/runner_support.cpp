// Verification result formatting shared by the runners.
#include "algorithms/runner_support.hpp"

namespace edgestream {

void set_verification(AlgorithmReport& report, const std::vector<std::string>& problems, const std::string& checked) {
  report.verified = problems.empty();
  if (problems.empty()) {
    report.verification_detail = checked;
    return;
  }
  std::string detail;
  for (const auto& p : problems) {
    if (!detail.empty()) detail += "; ";
    detail += p;
  }
  report.verification_detail = detail;
}

}  // namespace edgestream
