// BackgroundJobs: one thread that runs queued jobs in order, beside the caller's own work. The
// split pass (EngineBase::split_input) runs two: one orders full runs (by reading vertex, each
// segment grouped by key), the other appends ordered runs to their streams, so that both overlap
// the input's reading and staging, and each other, instead of stalling them. Each job belongs to a
// slot (a stream, or a run buffer); a slot has at most one job queued or running, and submit()
// waits for it (back-pressure: the slot's buffer is the one the job works on).
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
  /// A thread for jobs of `slots` slots, named `name` in the --timeline trace.
  BackgroundJobs(std::size_t slots, const char* name);
  /// Drops the queued jobs, waits for the running one, joins the thread.
  ~BackgroundJobs();
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;

  /// Queues `job` for `slot` (< slots), once the slot's previous job has finished. Any thread may
  /// call it. After a job failed, later jobs are not run.
  void submit(std::size_t slot, std::function<Status()> job);
  /// Waits until `slot` has no job queued or running (its buffer is the caller's again).
  void wait(std::size_t slot);
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
  const char* name_;
  std::thread thread_;               // last: starts once the members above exist
};

}  // namespace edgestream
