// /proc/meminfo parsing, the pin request checks, and PinnedMemory (mmap + stepwise mlock).
#include "utils/memory_pin.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <utility>

namespace edgestream {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr int kCapIpcLock = 14;  // linux/capability.h CAP_IPC_LOCK

bool has_cap_ipc_lock() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      const std::uint64_t caps = std::strtoull(line.c_str() + 7, nullptr, 16);
      return ((caps >> kCapIpcLock) & 1) != 0;
    }
  }
  return false;
}

const char* kRaiseLimitHint =
    "raise the limit with `ulimit -l unlimited` (as root, or up to the hard limit), with a "
    "`* - memlock unlimited` line in /etc/security/limits.conf, `LimitMEMLOCK=infinity` for a "
    "systemd unit, `--ulimit memlock=-1` for docker, or give the program CAP_IPC_LOCK";

}  // namespace

Expected<MemInfo> read_meminfo() {
  // open/read into a stack buffer, no allocation on success: the blocker's child process calls this
  // right after fork().
  const int fd = ::open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status(errno, "open", "/proc/meminfo");
  char buf[16384];
  std::size_t size = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf + size, sizeof buf - 1 - size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size += static_cast<std::size_t>(n);
    if (size == sizeof buf - 1) break;
  }
  ::close(fd);
  buf[size] = '\0';
  MemInfo info;
  bool total = false, available = false, mlocked = false;
  auto field = [&](const char* key, std::uint64_t& value, bool& found) {
    const char* at = std::strstr(buf, key);
    if (at == nullptr || (at != buf && at[-1] != '\n')) return;
    value = std::strtoull(at + std::strlen(key), nullptr, 10) * 1024;  // "MemTotal:   24000000 kB"
    found = true;
  };
  field("MemTotal:", info.total, total);
  field("MemAvailable:", info.available, available);
  field("Mlocked:", info.mlocked, mlocked);
  if (!total || !available || !mlocked) {
    return Status(StatusCode::kIoError, "/proc/meminfo: expected MemTotal, MemAvailable and Mlocked lines (kernel >= 3.14)");
  }
  return info;
}

std::uint64_t default_safety_margin(const MemInfo& info) { return std::max<std::uint64_t>(512 * kMiB, info.total / 20); }

std::uint64_t memlock_allowance() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || has_cap_ipc_lock()) return UINT64_MAX;
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

std::string format_bytes(std::uint64_t bytes) {
  char buf[64];
  if (bytes >= (std::uint64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / kMiB);
  return buf;
}

Expected<std::uint64_t> check_pin_request(const std::string& option, std::uint64_t bytes, const MemInfo& info,
                                          std::uint64_t allowance, bool force) {
  const std::string asked = option + ": cannot pin " + format_bytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
  if (bytes > allowance) {
    return resource_exhausted(asked + ": RLIMIT_MEMLOCK (ulimit -l) allows " + format_bytes(allowance) + " of locked memory; " +
                              kRaiseLimitHint);
  }
  if (bytes > info.available) {
    return resource_exhausted(asked + ": only " + format_bytes(info.available) + " is available (MemAvailable in /proc/meminfo)");
  }
  const std::uint64_t margin = force ? kPinHardFloor : default_safety_margin(info);
  if (info.available - bytes < margin) {
    return resource_exhausted(asked + ": that would leave " + format_bytes(info.available - bytes) + " of " +
                              format_bytes(info.available) + " available, under the safety margin of " + format_bytes(margin) +
                              (force ? " (the hard floor, even with --force)"
                                     : " (max(512 MiB, 5% of RAM)); ask for less, or pass --force to go down to " +
                                           format_bytes(kPinHardFloor)));
  }
  return margin;
}

Expected<PinnedMemory> PinnedMemory::pin(std::uint64_t bytes, std::uint64_t keep_available, const std::function<bool()>& stop,
                                         std::uint64_t step) {
  PinnedMemory result;
  if (bytes == 0) return result;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  step = std::max(page, step / page * page);
  const std::uint64_t length = (bytes + page - 1) / page * page;
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return errno_status(errno, "mmap " + std::to_string(length) + " bytes for", "the memory blocker");
  result.base_ = base;
  result.mapped_ = length;
  auto* bytes_base = static_cast<unsigned char*>(base);
  while (result.pinned_ < length) {
    if (stop && stop()) {
      result.stop_reason_ = "stopped by a signal";
      break;
    }
    std::uint64_t n = std::min(step, length - result.pinned_);
    ES_ASSIGN_OR_RETURN(const MemInfo info, read_meminfo());
    const std::uint64_t room = info.available > keep_available ? info.available - keep_available : 0;
    bool last = false;
    if (room < n) {
      // Take what still fits (whole pages), then stop.
      result.stop_reason_ = "MemAvailable fell to " + format_bytes(info.available) + "; another " + format_bytes(n) +
                            " would leave less than " + format_bytes(keep_available);
      n = room / page * page;
      if (n == 0) break;
      last = true;
    }
    unsigned char* chunk = bytes_base + result.pinned_;
    if (::mlock(chunk, n) != 0) {
      const int err = errno;
      return Status(StatusCode::kResourceExhausted,
                    "mlock of " + format_bytes(n) + " after " + format_bytes(result.pinned_) + " failed: " + std::strerror(err) +
                        (err == ENOMEM || err == EPERM || err == EAGAIN ? std::string("; ") + kRaiseLimitHint : std::string()));
    }
    std::memset(chunk, 0xA5, n);  // mlock faulted the pages in; writing makes every page private and resident
    result.pinned_ += n;
    ++result.steps_;
    if (last) break;
  }
  // Give back the part that was never locked (never touched either, so it holds no memory).
  if (result.pinned_ < length) {
    ::munmap(bytes_base + result.pinned_, length - result.pinned_);
    result.mapped_ = result.pinned_;
    if (result.pinned_ == 0) result.base_ = nullptr;
  }
  result.pinned_ = std::min(result.pinned_, bytes);
  return result;
}

PinnedMemory::PinnedMemory(PinnedMemory&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      mapped_(std::exchange(other.mapped_, 0)),
      pinned_(std::exchange(other.pinned_, 0)),
      steps_(std::exchange(other.steps_, 0)),
      stop_reason_(std::move(other.stop_reason_)) {}

PinnedMemory& PinnedMemory::operator=(PinnedMemory&& other) noexcept {
  if (this != &other) {
    release();
    base_ = std::exchange(other.base_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
    pinned_ = std::exchange(other.pinned_, 0);
    steps_ = std::exchange(other.steps_, 0);
    stop_reason_ = std::move(other.stop_reason_);
  }
  return *this;
}

PinnedMemory::~PinnedMemory() { release(); }

void PinnedMemory::release() {
  if (base_ != nullptr) {
    ::munlock(base_, mapped_);
    ::munmap(base_, mapped_);
  }
  base_ = nullptr;
  mapped_ = 0;
  pinned_ = 0;
}

}  // namespace edgestream
