// The `block_mem` tool: pins (mlocks) RAM so that a benchmark cannot use it, neither as process
// memory nor as page cache — all but --leave SIZE of MemAvailable, or exactly --lock SIZE. Touches
// every page, reports what it pinned and MemAvailable before/after, then holds the memory until
// SIGINT/SIGTERM/SIGHUP, releases it and exits 0. Refuses (exit 1, with the reason) when
// RLIMIT_MEMLOCK is too low, the memory is not there, or the pin would leave less than the safety
// margin (max(512 MiB, 5% of RAM); --force lowers it to 128 MiB). Pins in steps while watching
// MemAvailable and stops early (saying so) rather than push the machine into the OOM killer.
// Exit 2 on a bad command line.
#include <signal.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <optional>
#include <string>

#include "io/size_literal.hpp"
#include "utils/memory_pin.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

constexpr ToolCommandLine kCommandLine("block_mem");

int refuse(const std::string& message) {
  std::fprintf(stderr, "block_mem: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string leave_text;
  std::string lock_text;
  std::string step_text = "64M";
  bool force = false;
  po::options_description desc(
      "Usage: block_mem (--leave SIZE | --lock SIZE) [--force]\n"
      "Pins RAM (mlock) so that benchmarks cannot use it as memory or page cache, holds it until\n"
      "SIGINT/SIGTERM (Ctrl-C, kill PID), then releases it and exits 0. SIZE: 268435456, 256M, 8G.\n"
      "Refuses when RLIMIT_MEMLOCK is too low, the memory is not available, or less than the safety\n"
      "margin max(512 MiB, 5% of RAM) would be left (--force: 128 MiB). Prints one line\n"
      "'BLOCK_MEM pinned_bytes=... ' and then 'block_mem: holding ...' once the memory is pinned.\n\nOptions");
  desc.add_options()
      ("help,h", "print this help and exit")
      ("leave", po::value(&leave_text), "pin all of MemAvailable except SIZE")
      ("lock", po::value(&lock_text), "pin exactly SIZE")
      ("force", po::bool_switch(&force), "allow leaving less than the safety margin (never less than 128 MiB)")
      ("step", po::value(&step_text)->default_value(step_text), "pin in steps of this size, checking MemAvailable before each");
  po::variables_map vm;
  if (const std::optional<int> stop = kCommandLine.parse(argc, argv, desc, vm)) return *stop;
  if ((vm.count("leave") != 0) == (vm.count("lock") != 0)) return kCommandLine.usage_error("give exactly one of --leave SIZE and --lock SIZE");
  const bool leave_mode = vm.count("leave") != 0;
  auto size = leave_mode ? parse_size("leave", leave_text) : parse_size("lock", lock_text);
  if (!size) return kCommandLine.usage_error(size.status().message());
  auto step = parse_size("step", step_text);
  if (!step) return kCommandLine.usage_error(step.status().message());
  if (*step == 0) return kCommandLine.usage_error("--step must be positive");

  // Signals stay pending until sigwait below, so a Ctrl-C while pinning is seen between steps.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  sigprocmask(SIG_BLOCK, &signals, nullptr);

  auto before = read_meminfo();
  if (!before) return refuse(before.status().to_string());
  std::uint64_t request = *size;
  std::uint64_t keep = 0;
  if (leave_mode) {
    if (before->available <= *size) {
      return refuse("--leave " + format_bytes(*size) + ": MemAvailable is already " + format_bytes(before->available) +
                    ", nothing to pin");
    }
    request = before->available - *size;
    keep = *size;  // while pinning, MemAvailable must stay >= --leave as well as >= the margin
  }
  if (request == 0) return kCommandLine.usage_error("--lock 0 pins nothing");
  const std::string option = leave_mode ? "--leave " + leave_text : "--lock " + lock_text;
  auto margin = check_pin_request(option, request, *before, memlock_allowance(), force);
  if (!margin) return refuse(margin.status().message());
  keep = std::max(keep, *margin);

  std::printf("block_mem: MemAvailable %s, MemTotal %s, Mlocked %s; pinning %s in steps of %s, keeping at least %s available\n",
              format_bytes(before->available).c_str(), format_bytes(before->total).c_str(),
              format_bytes(before->mlocked).c_str(), format_bytes(request).c_str(), format_bytes(*step).c_str(),
              format_bytes(keep).c_str());
  std::fflush(stdout);
  auto signal_pending = [&] {
    sigset_t pending;
    sigpending(&pending);
    return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGHUP) == 1;
  };
  auto pinned = PinnedMemory::pin(request, keep, signal_pending, *step);
  if (!pinned) return refuse(pinned.status().message());
  if (signal_pending()) {
    std::printf("block_mem: interrupted while pinning; released %s\n", format_bytes(pinned->pinned()).c_str());
    return 0;
  }
  if (pinned->pinned() == 0) return refuse("pinned nothing: " + pinned->stop_reason());
  auto after = read_meminfo();
  if (!after) return refuse(after.status().to_string());
  if (pinned->pinned() < request) {
    std::printf("block_mem: WARNING: stopped early at %s of %s: %s\n", format_bytes(pinned->pinned()).c_str(),
                format_bytes(request).c_str(), pinned->stop_reason().c_str());
  }
  std::printf("block_mem: pinned %s (%llu bytes) in %llu steps; MemAvailable %s -> %s, Mlocked %s -> %s\n",
              format_bytes(pinned->pinned()).c_str(), static_cast<unsigned long long>(pinned->pinned()),
              static_cast<unsigned long long>(pinned->steps()), format_bytes(before->available).c_str(),
              format_bytes(after->available).c_str(), format_bytes(before->mlocked).c_str(), format_bytes(after->mlocked).c_str());
  std::printf("BLOCK_MEM pinned_bytes=%llu requested_bytes=%llu available_before=%llu available_after=%llu pid=%ld\n",
              static_cast<unsigned long long>(pinned->pinned()), static_cast<unsigned long long>(request),
              static_cast<unsigned long long>(before->available), static_cast<unsigned long long>(after->available),
              static_cast<long>(::getpid()));
  std::printf("block_mem: holding; Ctrl-C or kill -TERM %ld releases it\n", static_cast<long>(::getpid()));
  std::fflush(stdout);

  int sig = 0;
  while (sigwait(&signals, &sig) != 0) {
  }
  const std::uint64_t held = pinned->pinned();
  pinned->release();
  std::printf("block_mem: signal %d: released %s\n", sig, format_bytes(held).c_str());
  return 0;
}
