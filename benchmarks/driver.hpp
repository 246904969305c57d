// benchmark_driver as a library function, so tests can run it in-process (with fault injection)
// as well as through the binary. CONTRACT.md §3 describes the command line and output.
#pragma once

#include <ostream>

namespace edgestream {

/// Exit codes of benchmark_driver.
enum DriverExit : int {
  kExitOk = 0,
  kExitError = 1,         // the run failed (bad graph, I/O error, budget too small, ...)
  kExitUsage = 2,         // bad command line
  kExitVerifyFailed = 3,  // --verify found a wrong result
};

/// Runs benchmark_driver with `argv`; statistics go to `out`, the one error message to `err`.
/// Returns the process exit code (128 + signal when SIGINT/SIGTERM stopped the run).
int driver_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace edgestream
