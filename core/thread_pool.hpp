// A fixed set of worker threads that run one parallel step at a time: run(n, fn) calls fn(task,
// worker) for task = 0..n-1, tasks claimed dynamically (so fast workers take more), and returns
// when all are done. The calling thread is worker 0. Used for scatter, shuffle and gather.
// create() is how the library makes one: a thread the system refuses (a thread or process limit:
// ulimit -u, a cgroup's pids.max) is an error value there, not an exception.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

class ThreadPool {
 public:
  /// `threads` >= 1 workers in all, including the caller of run(). Throws std::system_error when the
  /// system refuses a thread (the ones already started are stopped first); see create().
  explicit ThreadPool(unsigned threads);
  /// A pool of `threads` >= 1 workers, or kResourceExhausted naming how many threads were asked for
  /// and the system's reason when one cannot be started.
  static Expected<std::unique_ptr<ThreadPool>> create(unsigned threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  /// Runs fn(task, worker) for every task in [0, tasks); worker is in [0, size()). Blocks until all
  /// tasks finished. fn must not throw. Not reentrant.
  void run(std::size_t tasks, const std::function<void(std::size_t task, unsigned worker)>& fn);

 private:
  void worker_loop(unsigned worker);
  void work(unsigned worker);
  void stop_workers();  // wakes every worker with stop_ set and joins it

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(std::size_t, unsigned)>* job_ = nullptr;
  std::size_t tasks_ = 0;
  std::atomic<std::size_t> next_task_{0};
  std::size_t finished_workers_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace edgestream
