// MemoryBlocker: check the request, fork, PinnedMemory::pin in the child, report through a pipe,
// sleep until killed.
#include "utils/memory_blocker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "io/cancellation.hpp"
#include "utils/memory_pin.hpp"

namespace edgestream {
namespace {

// What the child reports: ok = 1 when all of the request is locked.
struct ChildReport {
  int ok = 0;
  std::uint64_t pinned = 0;
  char message[1024] = {};
};

void write_report(int fd, const ChildReport& report) {
  const char* p = reinterpret_cast<const char*>(&report);
  std::size_t left = sizeof report;
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

MemoryBlocker::~MemoryBlocker() {
  if (child_ > 0) {
    ::kill(child_, SIGKILL);
    while (::waitpid(child_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

Expected<MemoryBlocker> MemoryBlocker::lock(std::uint64_t bytes, const char* option) {
  ES_ASSIGN_OR_RETURN(const MemInfo info, read_meminfo());
  ES_ASSIGN_OR_RETURN(const std::uint64_t margin, check_pin_request(option, bytes, info, memlock_allowance(), false));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno_status(errno, "pipe", option);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return errno_status(err, "fork", option);
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
    ChildReport report;
    auto pinned = PinnedMemory::pin(bytes, margin);
    if (!pinned) {
      std::snprintf(report.message, sizeof report.message, "%s", pinned.status().message().c_str());
    } else if (pinned->pinned() < bytes) {
      std::snprintf(report.message, sizeof report.message, "pinned only %s of %s, then %s; gave it back",
                    format_bytes(pinned->pinned()).c_str(), format_bytes(bytes).c_str(), pinned->stop_reason().c_str());
    } else {
      report.ok = 1;
      report.pinned = pinned->pinned();
    }
    write_report(fds[1], report);
    ::close(fds[1]);
    if (report.ok == 0) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  MemoryBlocker blocker;  // kills and reaps the child on every return below
  blocker.child_ = pid;
  ChildReport report;
  std::size_t got = 0;
  while (got < sizeof report && !cancel_requested()) {
    const ssize_t n = ::read(fds[0], reinterpret_cast<char*>(&report) + got, sizeof report - got);
    if (n < 0 && errno == EINTR) continue;  // a stop request is seen by the loop's condition
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fds[0]);
  // SIGINT/SIGTERM while the child pins (to this process, or to the whole process group, when the
  // child stops early because of it): the run was stopped, the memory was not refused.
  if (cancel_requested()) {
    return Status{StatusCode::kCancelled, std::string(option) + ": interrupted while locking " + format_bytes(bytes)};
  }
  if (got != sizeof report) {
    return resource_exhausted(std::string(option) + ": the process locking " + format_bytes(bytes) +
                              " died (killed by the OOM killer?)");
  }
  if (report.ok == 0) {
    report.message[sizeof report.message - 1] = '\0';
    return resource_exhausted(std::string(option) + ": cannot pin " + format_bytes(bytes) + ": " + report.message);
  }
  blocker.pinned_ = report.pinned;
  return blocker;
}

}  // namespace edgestream
