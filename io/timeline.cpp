// The timeline's recorder (io/timeline.hpp): a buffer of spans per thread, written to the trace
// file under one mutex when full and at finish().
#include "io/timeline.hpp"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

namespace edgestream::timeline {

namespace detail {
std::atomic<bool> recording{false};
}  // namespace detail

namespace {

struct SpanRecord {
  const char* name;
  const char* category;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::int64_t arg;
};

static_assert(sizeof(SpanRecord) == kBytesPerThread / kSpansPerFlush, "kBytesPerThread counts 40 bytes a span");

struct NameTotal {
  const char* name;
  std::uint64_t count;
  std::uint64_t nanoseconds;
};

// One thread's spans not yet written and its totals. Touched only by its thread while recording,
// and by finish() after.
struct ThreadLog {
  int tid = 0;
  std::string name;
  std::vector<SpanRecord> spans;
  std::vector<NameTotal> totals;
};

struct Recorder {
  std::mutex mutex;
  std::FILE* file = nullptr;
  std::string path;
  std::atomic<std::uint64_t> session{0};  // counts start() calls: a thread's log of an earlier session is not reused
  std::uint64_t start_ns = 0;
  std::uint64_t written = 0;  // events written so far (spans, counter samples)
  std::uint64_t counters = 0;  // counter samples among them
  int write_errno = 0;        // the first failed write's errno
  std::vector<std::unique_ptr<ThreadLog>> logs;
};

Recorder& recorder() {
  static Recorder r;
  return r;
}

thread_local ThreadLog* t_log = nullptr;
thread_local std::uint64_t t_session = 0;
thread_local std::string t_name;

std::string json_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}

// The separator before the next event, then counts it. Called with the mutex held.
void begin_event(Recorder& r) {
  if (r.written++ > 0 && std::fputs(",\n", r.file) < 0 && r.write_errno == 0) r.write_errno = errno;
}

// Writes the log's spans and empties it. Called with the mutex held.
void write_spans(Recorder& r, ThreadLog& log) {
  for (const SpanRecord& s : log.spans) {
    const std::uint64_t begin = s.begin_ns > r.start_ns ? s.begin_ns - r.start_ns : 0;
    const std::uint64_t end = s.end_ns > r.start_ns ? s.end_ns - r.start_ns : 0;
    begin_event(r);
    int n = std::fprintf(r.file, R"({"name":"%s","cat":"%s","ph":"X","pid":1,"tid":%d,"ts":%.3f,"dur":%.3f)", s.name, s.category,
                         log.tid, static_cast<double>(begin) * 1e-3, static_cast<double>(end - std::min(begin, end)) * 1e-3);
    if (n >= 0) n = s.arg >= 0 ? std::fprintf(r.file, R"(,"args":{"n":%)" PRId64 "}}", s.arg) : std::fputs("}", r.file);
    if (n < 0 && r.write_errno == 0) r.write_errno = errno;
  }
  log.spans.clear();
}

// The calling thread's log in this session, registered on first use; null once recording stopped.
ThreadLog* current_log() {
  Recorder& r = recorder();
  if (t_log != nullptr && t_session == r.session.load(std::memory_order_relaxed)) return t_log;
  std::lock_guard lock(r.mutex);
  if (!on()) return nullptr;
  auto log = std::make_unique<ThreadLog>();
  log->tid = static_cast<int>(r.logs.size()) + 1;
  log->name = t_name.empty() ? "thread " + std::to_string(log->tid) : t_name;
  log->spans.reserve(kSpansPerFlush);
  t_log = log.get();
  t_session = r.session.load(std::memory_order_relaxed);
  r.logs.push_back(std::move(log));
  return t_log;
}

}  // namespace

void detail::record(const char* name, const char* category, std::uint64_t begin_ns, std::uint64_t end_ns, std::int64_t arg) {
  ThreadLog* log = current_log();
  if (log == nullptr) return;
  log->spans.push_back(SpanRecord{name, category, begin_ns, end_ns, arg});
  const std::uint64_t ns = end_ns > begin_ns ? end_ns - begin_ns : 0;
  bool counted = false;
  for (NameTotal& total : log->totals) {
    if (total.name == name || std::strcmp(total.name, name) == 0) {  // one literal may have several addresses
      ++total.count;
      total.nanoseconds += ns;
      counted = true;
      break;
    }
  }
  if (!counted) log->totals.push_back(NameTotal{name, 1, ns});
  if (log->spans.size() >= kSpansPerFlush) {
    Recorder& r = recorder();
    std::lock_guard lock(r.mutex);
    if (r.file != nullptr) write_spans(r, *log);
  }
}

Status start(const std::string& path) {
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  if (r.file != nullptr) return Status{StatusCode::kInvalidArgument, "timeline " + path + ": a timeline (" + r.path + ") is recording already"};
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return Status{StatusCode::kIoError, "cannot create timeline file " + path + ": " + std::strerror(errno)};
  r.file = file;
  r.path = path;
  r.written = 0;
  r.counters = 0;
  r.write_errno = 0;
  r.logs.clear();
  r.session.fetch_add(1, std::memory_order_relaxed);
  if (std::fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", file) < 0) r.write_errno = errno;
  r.start_ns = monotonic_ns();
  detail::recording.store(true, std::memory_order_relaxed);
  return Status::ok();
}

Expected<Summary> finish() {
  detail::recording.store(false, std::memory_order_relaxed);
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  if (r.file == nullptr) return Status{StatusCode::kInternal, "timeline: finish() without start()"};
  Summary summary;
  summary.seconds = static_cast<double>(monotonic_ns() - r.start_ns) * 1e-9;
  for (const auto& log : r.logs) {
    write_spans(r, *log);
    begin_event(r);
    if (std::fprintf(r.file, R"({"name":"thread_name","ph":"M","pid":1,"tid":%d,"args":{"name":"%s"}})", log->tid,
                     json_escaped(log->name).c_str()) < 0 &&
        r.write_errno == 0) {
      r.write_errno = errno;
    }
    ThreadTotals totals{log->name, {}};
    for (const NameTotal& t : log->totals) totals.spans.push_back(SpanTotal{t.name, t.count, t.nanoseconds});
    summary.threads.push_back(std::move(totals));
  }
  if (std::fputs("\n]}\n", r.file) < 0 && r.write_errno == 0) r.write_errno = errno;
  if (std::fflush(r.file) != 0 && r.write_errno == 0) r.write_errno = errno;
  if (std::fclose(r.file) != 0 && r.write_errno == 0) r.write_errno = errno;
  r.file = nullptr;
  r.logs.clear();
  summary.spans = r.written - summary.threads.size() - r.counters;  // less the thread names and counter samples
  summary.counter_samples = r.counters;
  if (r.write_errno != 0) return errno_status(r.write_errno, "write timeline file", r.path);
  return summary;
}

void counter(const std::string& name, std::uint64_t time_ns, const std::vector<std::pair<std::string, double>>& values) {
  if (!on()) return;
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  if (r.file == nullptr) return;
  const std::uint64_t at = time_ns > r.start_ns ? time_ns - r.start_ns : 0;
  std::string event = R"({"name":")" + json_escaped(name) + R"(","ph":"C","pid":1,"ts":)";
  char number[32];
  std::snprintf(number, sizeof number, "%.3f", static_cast<double>(at) * 1e-3);
  event += number;
  event += R"(,"args":{)";
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::snprintf(number, sizeof number, "%.6g", std::isfinite(values[i].second) ? values[i].second : 0.0);  // JSON has no NaN
    event += (i > 0 ? ",\"" : "\"") + json_escaped(values[i].first) + "\":" + number;
  }
  event += "}}";
  begin_event(r);
  if (std::fputs(event.c_str(), r.file) < 0 && r.write_errno == 0) r.write_errno = errno;
  ++r.counters;
}

void name_thread(const std::string& name) {
  t_name = name;
  if (!on()) return;
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  if (t_log != nullptr && t_session == r.session.load(std::memory_order_relaxed)) t_log->name = name;
}

}  // namespace edgestream::timeline
