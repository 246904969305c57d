// Process-wide fault-injection rules consulted by every io/ request (see fault_injection.hpp).
#include "io/fault_injection.hpp"

#include <atomic>
#include <mutex>

namespace edgestream::fault_injection {
namespace {

struct ActiveRule {
  Rule rule;
  std::uint64_t bytes_seen = 0;
  std::uint64_t requests = 0;  // armed matching requests seen (for Rule::period)
  int applied = 0;
};

std::atomic<bool> g_enabled{false};
std::atomic<std::uint64_t> g_injected{0};
std::mutex g_mutex;
std::vector<ActiveRule>& rules() {
  static std::vector<ActiveRule> r;
  return r;
}

}  // namespace

void set_rules(std::vector<Rule> new_rules) {
  std::lock_guard lock(g_mutex);
  rules().clear();
  for (auto& r : new_rules) rules().push_back(ActiveRule{std::move(r), 0, 0, 0});
  g_injected.store(0);
  g_enabled.store(!rules().empty(), std::memory_order_release);
}

void clear() { set_rules({}); }

std::uint64_t injected_count() { return g_injected.load(); }

bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

long long adjust_slow(Op op, const std::string& path, std::size_t requested, long long result) {
  std::lock_guard lock(g_mutex);
  for (auto& active : rules()) {
    const Rule& rule = active.rule;
    if (rule.op != op) continue;
    if (!rule.path_contains.empty() && path.find(rule.path_contains) == std::string::npos) continue;
    const bool armed = active.bytes_seen >= rule.after_bytes;
    if (result > 0) active.bytes_seen += static_cast<std::uint64_t>(result);
    if (!armed || (rule.times >= 0 && active.applied >= rule.times)) continue;
    if (rule.period > 0 && active.requests++ % static_cast<std::uint64_t>(rule.period) ==
                               static_cast<std::uint64_t>(rule.period) - 1) {
      continue;  // the request that goes through
    }
    if (rule.on_hit && (rule.error != 0 || rule.max_transfer == 0 || result > static_cast<long long>(rule.max_transfer))) {
      rule.on_hit();
      if (rule.error == 0 && rule.max_transfer == 0) {
        ++active.applied;
        g_injected.fetch_add(1);
        continue;
      }
    }
    if (rule.error != 0) {
      ++active.applied;
      g_injected.fetch_add(1);
      return -rule.error;
    }
    if (rule.max_transfer > 0 && result > static_cast<long long>(rule.max_transfer)) {
      ++active.applied;
      g_injected.fetch_add(1);
      return static_cast<long long>(rule.max_transfer);
    }
  }
  (void)requested;
  return result;
}

}  // namespace edgestream::fault_injection
