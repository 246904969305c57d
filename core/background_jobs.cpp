// BackgroundJobs: the queue and its thread (core/background_jobs.hpp).
#include "core/background_jobs.hpp"

#include <utility>

#include "io/timeline.hpp"

namespace edgestream {

BackgroundJobs::BackgroundJobs(std::size_t slots, const char* name) : busy_(slots, false), name_(name), thread_([this] { loop(); }) {}

BackgroundJobs::~BackgroundJobs() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void BackgroundJobs::submit(std::size_t slot, std::function<Status()> job) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !busy_[slot] || stop_; });
  if (stop_) return;
  busy_[slot] = true;
  ++pending_;
  queue_.push_back(Queued{slot, std::move(job)});
  lock.unlock();
  changed_.notify_all();
}

void BackgroundJobs::wait(std::size_t slot) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !busy_[slot] || stop_; });
}

Status BackgroundJobs::finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return pending_ == 0; });
  return error_;
}

void BackgroundJobs::loop() {
  timeline::name_thread(name_);
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Queued next = std::move(queue_.front());
    queue_.pop_front();
    const bool run = error_.is_ok();
    lock.unlock();
    Status status = run ? next.job() : Status::ok();
    next.job = nullptr;  // released outside the lock
    lock.lock();
    if (!status.is_ok() && error_.is_ok()) error_ = std::move(status);
    busy_[next.slot] = false;
    --pending_;
    changed_.notify_all();
  }
}

}  // namespace edgestream
