// A run's timeline (benchmark_driver --timeline FILE): spans of time on each thread — a pool
// worker's share of a parallel step, the caller waiting for the other workers, waits for storage,
// the engine's phases — written as a Chrome trace-event JSON file (open it in ui.perfetto.dev or
// chrome://tracing) and summed per thread and span name. It answers "what was each thread doing,
// and what did it wait for", which the run's totals (I/O wait, CPU time) cannot.
//
// Off by default: then recording is one relaxed atomic load per span. On, each span costs two clock
// reads and 40 bytes in the thread's buffer; a full buffer (kSpansPerFlush spans) is written out, so
// the memory used stays kBytesPerThread per thread whatever the run's length.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/io_options.hpp"
#include "io/status.hpp"

namespace edgestream::timeline {

/// Spans a thread holds before it writes them to the file.
inline constexpr std::size_t kSpansPerFlush = 4096;
/// The memory a recording thread's buffer takes (40 bytes a span); the engine's memory plan counts
/// it per pool thread while a timeline records.
inline constexpr std::size_t kBytesPerThread = kSpansPerFlush * 40;

/// One thread's spans of one name, summed.
struct SpanTotal {
  std::string name;
  std::uint64_t count = 0;
  std::uint64_t nanoseconds = 0;
};

/// One thread's totals, in the order its span names first occurred.
struct ThreadTotals {
  std::string thread;
  std::vector<SpanTotal> spans;
};

/// What finish() returns: the seconds from start() to finish(), and every thread's totals.
struct Summary {
  double seconds = 0;
  std::uint64_t spans = 0;
  std::uint64_t counter_samples = 0;
  std::vector<ThreadTotals> threads;
};

namespace detail {
extern std::atomic<bool> recording;
void record(const char* name, const char* category, std::uint64_t begin_ns, std::uint64_t end_ns, std::int64_t arg);
}  // namespace detail

/// True between start() and finish().
inline bool on() { return detail::recording.load(std::memory_order_relaxed); }

/// Starts recording into `path` (created or truncated). Errors: the file cannot be created (the
/// message names it), or a timeline is recording already.
Status start(const std::string& path);

/// Stops recording, writes every thread's remaining spans and the threads' names, and closes the
/// file. Call it when no thread records any more (after the run: the engine's threads idle or
/// gone). Errors name the file (a write failed, e.g. the disk is full); a timeline that was not
/// started is an error too.
Expected<Summary> finish();

/// Names the calling thread in the file and the summary ("pool worker 1"). Threads that record
/// without a name are "thread N".
void name_thread(const std::string& name);

/// Records the span [begin_ns, end_ns) (monotonic_ns() times) on the calling thread. `name` and
/// `category` must be string literals (kept as pointers). `arg` >= 0 is shown as the span's "n"
/// (a superstep, a partition).
inline void record(const char* name, const char* category, std::uint64_t begin_ns, std::uint64_t end_ns, std::int64_t arg = -1) {
  if (on()) detail::record(name, category, begin_ns, end_ns, arg);
}

/// Writes a counter sample at `time_ns` (monotonic_ns()): the named values of the series `name`
/// (e.g. "device 254:0 MB/s" with {"read", 512.5}, {"write", 130}), drawn as a graph over time.
/// Written at once (a sampler calls it, about a hundred times a second); nothing when not recording.
void counter(const std::string& name, std::uint64_t time_ns, const std::vector<std::pair<std::string, double>>& values);

/// Records its own lifetime as a span on the calling thread (when a timeline is recording at both
/// ends). Same rules for name and category as record().
class Span {
 public:
  Span(const char* name, const char* category, std::int64_t arg = -1)
      : name_(name), category_(category), arg_(arg), begin_(on() ? monotonic_ns() : 0) {}
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  ~Span() {
    if (begin_ != 0 && on()) detail::record(name_, category_, begin_, monotonic_ns(), arg_);
  }

 private:
  const char* name_;
  const char* category_;
  std::int64_t arg_;
  std::uint64_t begin_;
};

}  // namespace edgestream::timeline
