// A small io_uring submission/completion queue owned by one stream (used by one thread at a time).
// Requests carry a caller tag; completions come back with it. If the kernel refuses io_uring, the
// stream falls back to synchronous I/O (see uring_available()).
#pragma once

#include <liburing.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "io/status.hpp"

namespace edgestream {

/// True when this process can create an io_uring (checked once; prints one warning when not).
bool uring_available();

class UringQueue {
 public:
  struct Completion {
    std::uint64_t tag;
    int result;  // bytes, or -errno
  };

  UringQueue() = default;
  UringQueue(const UringQueue&) = delete;
  UringQueue& operator=(const UringQueue&) = delete;
  ~UringQueue();

  /// Sets up a ring with room for `entries` requests in flight. `timeout` bounds every wait (> 0).
  Status init(unsigned entries, std::chrono::milliseconds timeout);
  bool initialized() const { return ring_ != nullptr; }

  /// Queues and submits a read (or write) of `length` bytes at `offset` of `fd`.
  Status submit_read(int fd, void* buffer, std::size_t length, std::uint64_t offset, std::uint64_t tag);
  Status submit_write(int fd, const void* buffer, std::size_t length, std::uint64_t offset, std::uint64_t tag);
  /// Blocks until one completion is available and returns it. Precondition: in_flight() > 0.
  /// Never waits forever: after the timeout given to init() with no completion, returns kIoError
  /// ("no I/O completion within N s"); the request then stays counted in in_flight().
  Expected<Completion> wait();
  unsigned in_flight() const { return in_flight_; }

 private:
  Status submit(io_uring_sqe* sqe);
  std::unique_ptr<io_uring> ring_;
  unsigned in_flight_ = 0;
  std::chrono::milliseconds timeout_{0};
  bool stuck_ = false;  // a wait timed out: the destructor cancels instead of draining for long
};

}  // namespace edgestream
