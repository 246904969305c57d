// block_mem and benchmark_driver --blocked_memory (utils/memory_pin, utils/memory_blocker): a pinned
// amount shows up as the process's VmLck and in /proc/meminfo's Mlocked and goes away after SIGTERM
// (exit 0); refusals for RLIMIT_MEMLOCK, missing memory and the safety margin; the driver shares the
// checks and the pinning.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_support.hpp"
#include "utils/memory_blocker.hpp"
#include "utils/memory_pin.hpp"

using namespace edgestream;
using namespace edgestream::test;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::uint64_t mlocked_now() {
  auto info = read_meminfo();
  REQUIRE(info.has_value());
  return info->mlocked;
}

// VmLck of a process in bytes (0 when it is gone).
std::uint64_t vm_locked(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmLck:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// A child process running `argv` with stdout on a pipe; `limit_memlock` (bytes, when > 0) lowers
// RLIMIT_MEMLOCK and drops CAP_IPC_LOCK from the bounding set first, so the limit applies to root.
struct Child {
  pid_t pid = -1;
  int out = -1;
  std::string text;
  bool read_until(const std::string& marker) {
    char buf[4096];
    while (text.find(marker) == std::string::npos) {
      const ssize_t n = ::read(out, buf, sizeof buf);
      if (n <= 0) return false;
      text.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }
  int wait() {
    char buf[4096];
    while (true) {
      const ssize_t n = ::read(out, buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<std::size_t>(n));
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

Child spawn(const std::vector<std::string>& args, std::uint64_t limit_memlock = 0) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string path = tool_path(args[0]);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    if (limit_memlock > 0) {
      ::prctl(PR_CAPBSET_DROP, 14 /* CAP_IPC_LOCK */, 0, 0, 0);  // fails harmlessly when not privileged
      const rlimit limit{limit_memlock, limit_memlock};
      ::setrlimit(RLIMIT_MEMLOCK, &limit);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(path.c_str()));
    for (std::size_t i = 1; i < args.size(); ++i) argv.push_back(const_cast<char*>(args[i].c_str()));
    argv.push_back(nullptr);
    ::execv(path.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  return Child{pid, fds[0], {}};
}

// Mlocked is system-wide: other processes may lock or unlock meanwhile. Waits up to 2 s for it to
// satisfy `ok`.
template <typename Ok>
bool eventually(Ok ok) {
  for (int i = 0; i < 40; ++i) {
    if (ok(mlocked_now())) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST_CASE("block_mem --lock 64M pins 64 MiB until SIGTERM, then releases and exits 0", "[block_mem]") {
  if (kSanitized) {
    WARN("SKIP: sanitizer runtimes intercept mlock/munlock as no-ops, so nothing is really locked here");
    return;
  }
  auto info = read_meminfo();
  REQUIRE(info.has_value());
  if (info->available < 2 * default_safety_margin(*info) + 64 * kMiB) {
    WARN("SKIP: only " << format_bytes(info->available) << " available; not pinning 64 MiB on a machine this full");
    return;
  }
  if (memlock_allowance() < 128 * kMiB) {
    WARN("SKIP: RLIMIT_MEMLOCK allows only " << format_bytes(memlock_allowance()) << " (run as root or raise ulimit -l)");
    return;
  }
  const std::uint64_t before = mlocked_now();
  Child c = spawn({"block_mem", "--lock", "64M", "--step", "16M"});
  REQUIRE(c.read_until("block_mem: holding"));
  INFO(c.text);
  CHECK_THAT(c.text, Catch::Contains("BLOCK_MEM pinned_bytes=67108864 requested_bytes=67108864 available_before="));
  CHECK_THAT(c.text, Catch::Contains("in 4 steps"));
  CHECK(vm_locked(c.pid) == 64 * kMiB);
  CHECK(eventually([&](std::uint64_t now) { return now >= before + 60 * kMiB; }));
  REQUIRE(::kill(c.pid, SIGTERM) == 0);
  CHECK(c.wait() == 0);
  CHECK_THAT(c.text, Catch::Contains("released 64.0 MiB"));
  CHECK(eventually([&](std::uint64_t now) { return now <= before + 16 * kMiB; }));
}

TEST_CASE("block_mem refuses clearly: memlock limit, not enough memory, bad requests", "[block_mem]") {
  SECTION("RLIMIT_MEMLOCK too low (CAP_IPC_LOCK dropped)") {
    Child c = spawn({"block_mem", "--lock", "64M"}, 1 * kMiB);
    CHECK(c.wait() == 1);
    CHECK_THAT(c.text, Catch::Contains("RLIMIT_MEMLOCK") && Catch::Contains("ulimit -l"));
    TempDir dir;
    const auto ini = write_graph(dir.path(), "g", random_edges(100, 300, 1), 100);
    Child d = spawn({"benchmark_driver", "-g", ini.string(), "-b", "cc", "--blocked_memory", "64M"}, kMiB);
    CHECK(d.wait() != 0);
    CHECK_THAT(d.text, Catch::Contains("--blocked_memory: cannot pin 64.0 MiB") && Catch::Contains("RLIMIT_MEMLOCK"));
  }
  SECTION("more than MemAvailable") {
    Child c = spawn({"block_mem", "--lock", "1T"});
    CHECK(c.wait() == 1);
    CHECK_THAT(c.text, Catch::Contains("cannot pin 1024.00 GiB") && Catch::Contains("MemAvailable"));
    Child l = spawn({"block_mem", "--leave", "1T"});
    CHECK(l.wait() == 1);
    CHECK_THAT(l.text, Catch::Contains("nothing to pin"));
  }
  SECTION("bad command lines exit 2") {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"block_mem"}, {"block_mem", "--lock", "1M", "--leave", "1G"}, {"block_mem", "--lock", "12x"},
             {"block_mem", "--lock", "0"}, {"block_mem", "--lock", "1M", "stray"}}) {
      Child c = spawn(args);
      CHECK(c.wait() == 2);
    }
  }
}

TEST_CASE("pin requests: the safety margin, --force and the memlock allowance", "[block_mem]") {
  MemInfo info;
  info.total = 16ULL << 30;      // margin = max(512 MiB, 5% = 819 MiB)
  info.available = 10ULL << 30;
  CHECK(default_safety_margin(info) == info.total / 20);
  MemInfo small = info;
  small.total = 4ULL << 30;
  CHECK(default_safety_margin(small) == 512 * kMiB);

  auto ok = check_pin_request("--lock 8G", 8ULL << 30, info, UINT64_MAX, false);
  REQUIRE(ok.has_value());
  CHECK(*ok == info.total / 20);
  auto tight = check_pin_request("--lock 9.5G", (10ULL << 30) - 300 * kMiB, info, UINT64_MAX, false);
  REQUIRE_FALSE(tight.has_value());
  CHECK_THAT(tight.status().message(), Catch::Contains("safety margin") && Catch::Contains("--force"));
  auto forced = check_pin_request("--lock 9.5G", (10ULL << 30) - 300 * kMiB, info, UINT64_MAX, true);
  REQUIRE(forced.has_value());
  CHECK(*forced == kPinHardFloor);
  auto too_tight = check_pin_request("--lock X", (10ULL << 30) - 64 * kMiB, info, UINT64_MAX, true);
  CHECK_FALSE(too_tight.has_value());
  auto limited = check_pin_request("--lock 1G", 1ULL << 30, info, 64 * 1024, false);
  REQUIRE_FALSE(limited.has_value());
  CHECK_THAT(limited.status().message(), Catch::Contains("RLIMIT_MEMLOCK") && Catch::Contains("limits.conf"));
  auto missing = check_pin_request("--lock 20G", 20ULL << 30, info, UINT64_MAX, true);
  CHECK_FALSE(missing.has_value());
}

TEST_CASE("PinnedMemory stops early instead of going under the margin", "[block_mem]") {
  auto info = read_meminfo();
  REQUIRE(info.has_value());
  // Keeping more than is available: the first step already stops; nothing is pinned.
  auto none = PinnedMemory::pin(32 * kMiB, info->available + (1ULL << 30));
  REQUIRE(none.has_value());
  CHECK(none->pinned() == 0);
  CHECK_THAT(none->stop_reason(), Catch::Contains("MemAvailable"));
  if (memlock_allowance() < 16 * kMiB) {
    WARN("SKIP (the rest): RLIMIT_MEMLOCK allows only " << format_bytes(memlock_allowance()));
    return;
  }
  if (kSanitized) {
    WARN("SKIP: sanitizer runtimes intercept mlock/munlock as no-ops, so nothing is really locked here");
    return;
  }
  // A stop request after two steps of 4 MiB.
  int calls = 0;
  auto some = PinnedMemory::pin(32 * kMiB, 0, [&] { return ++calls > 2; }, 4 * kMiB);
  REQUIRE(some.has_value());
  CHECK(some->pinned() == 8 * kMiB);
  CHECK(some->steps() == 2);
  CHECK(vm_locked(::getpid()) >= 8 * kMiB);
  some->release();
  CHECK(some->pinned() == 0);
}

TEST_CASE("benchmark_driver --blocked_memory shares the blocker: pins in a child, refuses the same way", "[block_mem]") {
  if (kSanitized) {
    WARN("SKIP: sanitizer runtimes intercept mlock/munlock as no-ops, so nothing is really locked here");
    return;
  }
  auto info = read_meminfo();
  REQUIRE(info.has_value());
  if (info->available < 2 * default_safety_margin(*info) + 64 * kMiB || memlock_allowance() < 128 * kMiB) {
    WARN("SKIP: only " << format_bytes(info->available) << " available, memlock allowance "
                       << format_bytes(memlock_allowance()));
    return;
  }
  {
    auto blocker = MemoryBlocker::lock(64 * kMiB);
    REQUIRE(blocker.has_value());
    CHECK(blocker->pinned() == 64 * kMiB);
    REQUIRE(blocker->child() > 0);
    CHECK(vm_locked(blocker->child()) == 64 * kMiB);
    CHECK(vm_locked(::getpid()) < 64 * kMiB);  // not in the run's own RSS
  }
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(500, 2000, 3), 500);
  const auto run = run_tool("benchmark_driver", {"-g", ini.string(), "-b", "cc", "--blocked_memory", "32M", "--verify"});
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("Verification: PASS"));
  const auto refused = run_tool("benchmark_driver", {"-g", ini.string(), "-b", "cc", "--blocked_memory", "1T"});
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.err, Catch::Contains("--blocked_memory: cannot pin 1024.00 GiB") && Catch::Contains("MemAvailable"));
}
