// benchmark_driver --blocked_memory B (X-Stream's option): pin B bytes of RAM for the duration of
// the run so that neither the run nor the page cache can use them. The memory is locked in a child
// process, so the run's own peak RSS (the --physical_memory contract) is not inflated by it; the
// child dies with the parent (PR_SET_PDEATHSIG) and is killed when the blocker is destroyed.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "io/status.hpp"

namespace edgestream {

class MemoryBlocker {
 public:
  MemoryBlocker() = default;
  MemoryBlocker(const MemoryBlocker&) = delete;
  MemoryBlocker& operator=(const MemoryBlocker&) = delete;
  MemoryBlocker(MemoryBlocker&& other) noexcept : child_(other.child_) { other.child_ = -1; }
  MemoryBlocker& operator=(MemoryBlocker&&) = delete;
  ~MemoryBlocker();

  /// Locks `bytes` in a child process and returns once they are resident and locked. Fails with
  /// a clear message when mlock is refused (RLIMIT_MEMLOCK, not enough memory).
  static Expected<MemoryBlocker> lock(std::uint64_t bytes);

 private:
  pid_t child_ = -1;
};

}  // namespace edgestream
