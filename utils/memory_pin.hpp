// Pinning RAM so that neither a benchmark run nor the page cache can use it (block_mem and
// benchmark_driver --blocked_memory share this): the numbers of /proc/meminfo, the checks that decide
// whether a request may go ahead (RLIMIT_MEMLOCK, available memory, a safety margin), and an
// anonymous mapping that is locked step by step while MemAvailable is watched, so that pinning never
// drives the machine into the OOM killer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "io/status.hpp"

namespace edgestream {

/// The /proc/meminfo fields the blocker needs, in bytes.
struct MemInfo {
  std::uint64_t total = 0;      ///< MemTotal
  std::uint64_t available = 0;  ///< MemAvailable (what the kernel thinks can be allocated without swapping)
  std::uint64_t mlocked = 0;    ///< Mlocked (system-wide)
};
/// Reads /proc/meminfo. Fails (naming the file) when it cannot be read or lacks a field.
Expected<MemInfo> read_meminfo();

/// The memory a pin must leave available: max(512 MiB, 5% of MemTotal). A pin that would leave less
/// is refused unless forced; a forced pin still keeps kHardFloor.
std::uint64_t default_safety_margin(const MemInfo& info);
/// Even a forced pin stops before MemAvailable falls under this (128 MiB).
inline constexpr std::uint64_t kPinHardFloor = std::uint64_t{128} << 20;

/// What may be locked without root: RLIMIT_MEMLOCK's soft limit, or UINT64_MAX when it is unlimited
/// or the process has CAP_IPC_LOCK (which makes the kernel ignore the limit).
std::uint64_t memlock_allowance();

/// Checks a request to pin `bytes` against the allowance, the available memory and the margin
/// (`force` lowers the margin to kPinHardFloor). Returns the margin to keep while pinning, or a
/// refusal whose message says what was asked, what the machine has, and how to change it (for the
/// limit: `ulimit -l`, /etc/security/limits.conf, CAP_IPC_LOCK). `option` prefixes messages.
Expected<std::uint64_t> check_pin_request(const std::string& option, std::uint64_t bytes, const MemInfo& info,
                                          std::uint64_t allowance, bool force);

/// Human-readable size: "64.0 MiB", "7.98 GiB".
std::string format_bytes(std::uint64_t bytes);

/// An anonymous private mapping whose first pinned() bytes are locked and resident; released
/// (munlock + munmap) on destruction.
class PinnedMemory {
 public:
  /// Locks in steps of `step` bytes (default 64 MiB): before each step reads MemAvailable; when the
  /// step would leave less than `keep_available` it locks only what fits and stops early, keeping
  /// what is locked; also stops
  /// when `stop()` returns true (e.g. a pending signal). Every page is written once after locking.
  /// Fails only when nothing can be mapped, /proc/meminfo cannot be read, or mlock itself fails (the
  /// message gives errno and how to raise the limit); stopping early is not a failure — compare
  /// pinned() with the request and read stop_reason().
  static Expected<PinnedMemory> pin(std::uint64_t bytes, std::uint64_t keep_available,
                                    const std::function<bool()>& stop = {}, std::uint64_t step = std::uint64_t{64} << 20);

  PinnedMemory() = default;
  PinnedMemory(PinnedMemory&& other) noexcept;
  PinnedMemory& operator=(PinnedMemory&& other) noexcept;
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  ~PinnedMemory();

  std::uint64_t pinned() const { return pinned_; }
  std::uint64_t steps() const { return steps_; }
  /// Empty when the whole request was pinned; otherwise why pinning stopped early.
  const std::string& stop_reason() const { return stop_reason_; }
  /// Unlocks and unmaps now (idempotent).
  void release();

 private:
  void* base_ = nullptr;
  std::uint64_t mapped_ = 0;
  std::uint64_t pinned_ = 0;
  std::uint64_t steps_ = 0;
  std::string stop_reason_;
};

}  // namespace edgestream
