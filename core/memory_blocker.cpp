// MemoryBlocker: fork, mlock in the child, report success through a pipe, sleep until killed.
#include "core/memory_blocker.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace edgestream {

MemoryBlocker::~MemoryBlocker() {
  if (child_ > 0) {
    ::kill(child_, SIGKILL);
    ::waitpid(child_, nullptr, 0);
  }
}

Expected<MemoryBlocker> MemoryBlocker::lock(std::uint64_t bytes) {
  int fds[2];
  if (::pipe(fds) != 0) return errno_status(errno, "pipe", "--blocked_memory");
  const pid_t pid = ::fork();
  if (pid < 0) return errno_status(errno, "fork", "--blocked_memory");
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    int result = 0;
    void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED || ::mlock(memory, bytes) != 0) result = errno;
    if (result == 0) std::memset(memory, 1, bytes);  // make every page resident (mlock did; be sure)
    (void)!::write(fds[1], &result, sizeof result);
    ::close(fds[1]);
    if (result != 0) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  int result = -1;
  const ssize_t n = ::read(fds[0], &result, sizeof result);
  ::close(fds[0]);
  MemoryBlocker blocker;
  blocker.child_ = pid;
  if (n != sizeof result || result != 0) {
    return resource_exhausted("--blocked_memory: could not lock " + std::to_string(bytes) + " bytes: " +
                              (n == sizeof result && result > 0 ? std::strerror(result) : "the locking process died") +
                              " (check ulimit -l and free memory)");
  }
  return blocker;
}

}  // namespace edgestream
