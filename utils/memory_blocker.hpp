// benchmark_driver --blocked_memory B (X-Stream's option): pin B bytes of RAM for the duration of
// the run so that neither the run nor the page cache can use them. Same checks and same stepwise
// pinning as the block_mem tool (utils/memory_pin.hpp); the memory is locked in a child process, so
// the run's own peak RSS (the --physical_memory contract) is not inflated by it. The child dies with
// the parent (PR_SET_PDEATHSIG) and is killed when the blocker is destroyed.
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
  MemoryBlocker(MemoryBlocker&& other) noexcept : child_(other.child_), pinned_(other.pinned_) { other.child_ = -1; }
  MemoryBlocker& operator=(MemoryBlocker&&) = delete;
  ~MemoryBlocker();

  /// Checks the request like block_mem --lock (RLIMIT_MEMLOCK / CAP_IPC_LOCK, MemAvailable, the
  /// safety margin max(512 MiB, 5% of RAM); no --force here), then locks `bytes` in a child process
  /// and returns once they are all resident and locked. The whole amount or an error: a benchmark
  /// run with less blocked memory than asked would measure something else, so when MemAvailable
  /// shrinks under the margin while pinning, the child gives everything back and this fails.
  /// Call before starting threads (it forks). Messages start with `option` ("--blocked_memory").
  /// A stop request (io/cancellation.hpp: SIGINT/SIGTERM/SIGHUP) before or while the child pins
  /// kills the child and returns kCancelled — also when the signal reached the child too (sent to
  /// the process group) and made it give up early.
  static Expected<MemoryBlocker> lock(std::uint64_t bytes, const char* option = "--blocked_memory");

  /// Bytes locked by the child.
  std::uint64_t pinned() const { return pinned_; }
  /// The child's pid (-1 when none), for tests.
  pid_t child() const { return child_; }

 private:
  pid_t child_ = -1;
  std::uint64_t pinned_ = 0;
};

}  // namespace edgestream
