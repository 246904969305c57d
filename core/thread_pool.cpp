// ThreadPool: generation-counted wake-up, atomic task claiming, the caller works too.
#include "core/thread_pool.hpp"

#include <string>
#include <system_error>

#include "io/timeline.hpp"

namespace edgestream {

ThreadPool::ThreadPool(unsigned threads) {
  workers_.reserve(threads > 0 ? threads - 1 : 0);
  try {
    for (unsigned w = 1; w < threads; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
  } catch (...) {
    stop_workers();  // joinable threads must not outlive the half-built pool (std::terminate)
    throw;
  }
}

Expected<std::unique_ptr<ThreadPool>> ThreadPool::create(unsigned threads) {
  try {
    return std::make_unique<ThreadPool>(threads);
  } catch (const std::system_error& e) {
    return Status{StatusCode::kResourceExhausted,
                  "cannot start the " + std::to_string(threads - 1) + " worker thread(s) beside the calling one (-p " +
                      std::to_string(threads) + "): " + e.what() +
                      " (a limit on threads or processes: ulimit -u, a cgroup's pids.max)"};
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::work(unsigned worker) {
  for (;;) {
    const std::size_t task = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (task >= tasks_) break;
    (*job_)(task, worker);
  }
}

void ThreadPool::run(std::size_t tasks, const std::function<void(std::size_t, unsigned)>& fn) {
  if (tasks == 0) return;
  if (workers_.empty() || tasks == 1) {
    const timeline::Span span("work", "pool");
    for (std::size_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    tasks_ = tasks;
    next_task_.store(0, std::memory_order_relaxed);
    finished_workers_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  {
    const timeline::Span span("work", "pool");
    work(0);
  }
  const timeline::Span span("barrier", "pool");  // waiting for the other workers to finish their tasks
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return finished_workers_ == workers_.size(); });
  job_ = nullptr;
}

void ThreadPool::worker_loop(unsigned worker) {
  timeline::name_thread("pool worker " + std::to_string(worker));
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    {
      const timeline::Span span("work", "pool");  // recorded before the caller can see this worker finished
      work(worker);
    }
    {
      std::lock_guard lock(mutex_);
      ++finished_workers_;
    }
    done_.notify_one();
  }
}

}  // namespace edgestream
