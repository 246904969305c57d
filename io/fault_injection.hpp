// Fault injection under the file abstraction (the model: LevelDB's FaultInjectionTestEnv). Tests
// install rules; every read and write of io/ passes its result through `fault_injection::adjust`,
// which may turn it into an error (EIO, ENOSPC, EINTR) or a short transfer. With no rules installed
// the cost is one relaxed atomic load per request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace edgestream::fault_injection {

enum class Op {
  kRead,
  kWrite,
  kOpenDirect,  // opening with O_DIRECT (error=EINVAL simulates a filesystem that refuses it)
  kSync,        // fdatasync/fsync of a file or directory (File::sync, the checkpoint directory's fsync)
  kRename,      // renaming a file into place (a checkpoint's commit); the path is the source
};

struct Rule {
  Op op = Op::kRead;
  std::string path_contains;     // applies to files whose path contains this ("" = every file)
  std::uint64_t after_bytes = 0; // only once this many bytes of `op` were done on matching files
  int error = 0;                 // errno to return (EIO, ENOSPC, EINTR, ...); 0 = none
  std::size_t max_transfer = 0;  // >0: transfers are cut to at most this many bytes (short I/O)
  int times = -1;                // how many requests the rule affects (-1 = every one)
  // >0: of every `period` consecutive matching requests, the first period-1 are affected and the
  // next passes. With error=EINTR every request is interrupted period-1 times before it goes
  // through (an EINTR storm), since each retry is a new request here.
  int period = 0;
  // Called (under the rules' lock: keep it short, no I/O) each time the rule affects a request,
  // e.g. to raise a stop request at an exact phase of a run. With error=0 and max_transfer=0 the
  // request itself is left as it was.
  std::function<void()> on_hit = nullptr;
};

/// Replaces all rules (and resets the per-rule byte counters). Thread-safe.
void set_rules(std::vector<Rule> rules);
/// Removes all rules.
void clear();
/// How many requests were altered since the last set_rules().
std::uint64_t injected_count();

/// Called by io/ after each read or write request of `requested` bytes on `path` whose OS result
/// was `result` (bytes, or -errno). Returns the result the caller must act on.
long long adjust_slow(Op op, const std::string& path, std::size_t requested, long long result);
bool enabled();
inline long long adjust(Op op, const std::string& path, std::size_t requested, long long result) {
  return enabled() ? adjust_slow(op, path, requested, result) : result;
}

}  // namespace edgestream::fault_injection
