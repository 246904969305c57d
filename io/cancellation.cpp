// Signal handlers that only set an atomic flag (async-signal-safe); the engine does the rest.
#include "io/cancellation.hpp"

#include <atomic>
#include <csignal>

namespace edgestream {
namespace {
std::atomic<int> g_signal{0};
extern "C" void on_signal(int signal) { g_signal.store(signal, std::memory_order_relaxed); }
}  // namespace

void install_cancellation_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR and are retried by io/
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);  // a closed terminal or ssh session: clean up the same way
}

bool cancel_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }
int cancel_signal() { return g_signal.load(std::memory_order_relaxed); }
void set_cancel_signal_for_testing(int signal) { g_signal.store(signal); }

}  // namespace edgestream
