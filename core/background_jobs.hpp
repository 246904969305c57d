// BackgroundJobs: one thread that runs queued jobs in order, beside the caller's own work. The
// split pass (EngineBase::split_input) hands it the flushes of full runs (order by reading vertex,
// group by key, append), so that they overlap the input's reading and staging instead of stalling
// them. Each job belongs to a slot (a stream); a slot has at most one job queued or running, and
// submit() waits for it (back-pressure: the slot's buffer is the one the job works on).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

class BackgroundJobs {
 public:
  /// A thread for jobs of `slots` slots.
  explicit BackgroundJobs(std::size_t slots);
  /// Drops the queued jobs, waits for the running one, joins the thread.
  ~BackgroundJobs();
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;

  /// Queues `job` for `slot` (< slots), once the slot's previous job has finished. Any thread may
  /// call it. After a job failed, later jobs are not run.
  void submit(std::size_t slot, std::function<Status()> job);
  /// Waits until every queued job has finished; returns the first failure, if any.
  Status finish();

 private:
  struct Queued {
    std::size_t slot;
    std::function<Status()> job;
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable changed_;  // a job queued or finished, or stopping
  std::deque<Queued> queue_;
  std::vector<bool> busy_;           // per slot: a job queued or running
  std::size_t pending_ = 0;          // jobs queued or running
  bool stop_ = false;
  Status error_;
  std::thread thread_;               // last: starts once the members above exist
};

}  // namespace edgestream
