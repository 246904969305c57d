// How streams move bytes: request sizes per direction, requests in flight, direct or buffered, and
// the submission engine (io_uring, or plain pread/pwrite as the fallback). Plus the counters every
// stream keeps so the engine can report bytes moved and time spent waiting for the device.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace edgestream {

enum class IoEngine {
  kUring,  // io_uring with several requests in flight (falls back to kSync with one warning)
  kSync,   // pread/pwrite on the calling thread, one request at a time
};

struct IoOptions {
  std::size_t read_chunk = std::size_t{4} << 20;   // bytes per read request
  std::size_t write_chunk = std::size_t{4} << 20;  // bytes per write request
  unsigned depth = 4;                              // requests in flight per stream
  bool direct = true;                              // O_DIRECT (page cache bypassed)
  IoEngine engine = IoEngine::kUring;
  // Progress guarantee: an io_uring request that has not completed after this long is reported as
  // an error naming the file (a hung device or mount) instead of being waited for forever.
  std::chrono::milliseconds completion_timeout{kDefaultCompletionTimeout};

  static constexpr std::chrono::milliseconds kDefaultCompletionTimeout{std::chrono::minutes(5)};
};

/// Monotonic clock in nanoseconds, for IoCounters::wait_ns.
inline std::uint64_t monotonic_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

struct IoCounters {
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t requests = 0;
  std::uint64_t wait_ns = 0;  // time the caller was blocked waiting for the device

  IoCounters& operator+=(const IoCounters& o) {
    bytes_read += o.bytes_read;
    bytes_written += o.bytes_written;
    requests += o.requests;
    wait_ns += o.wait_ns;
    return *this;
  }
};

}  // namespace edgestream
