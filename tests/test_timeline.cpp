// [timeline] The run timeline (io/timeline.hpp, benchmark_driver --timeline): the recorder on its
// own (threads, names, buffers flushed mid-run, totals, errors), the device sampler
// (io/device_sampler.hpp), and the driver's timeline of real runs: valid JSON, every thread's spans
// properly nested, one superstep span per superstep.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/driver.hpp"
#include "io/device_sampler.hpp"
#include "io/timeline.hpp"
#include "tests/test_support.hpp"

namespace edgestream::test {
namespace {

namespace pt = boost::property_tree;

struct TraceSpan {
  std::string name;
  double ts = 0;  // microseconds from the timeline's start
  double dur = 0;
  long long n = -1;
};

struct Trace {
  std::map<int, std::vector<TraceSpan>> spans;  // by tid, in file order
  std::map<int, std::string> names;              // thread_name events
  std::map<std::string, std::size_t> counters;   // counter samples per series
};

// Parses the file as JSON (a parse error fails the test) into its spans and thread names.
Trace read_trace(const std::filesystem::path& path) {
  pt::ptree root;
  REQUIRE_NOTHROW(pt::read_json(path.string(), root));
  Trace trace;
  for (const auto& [key, event] : root.get_child("traceEvents")) {
    const std::string ph = event.get<std::string>("ph");
    if (ph == "C") {  // a counter sample: every value a non-negative number
      ++trace.counters[event.get<std::string>("name")];
      CHECK(event.get<double>("ts") >= 0);
      for (const auto& [series, value] : event.get_child("args")) CHECK(value.get_value<double>() >= 0);
      continue;
    }
    const int tid = event.get<int>("tid");
    if (ph == "M") {
      REQUIRE(event.get<std::string>("name") == "thread_name");
      trace.names[tid] = event.get<std::string>("args.name");
      continue;
    }
    REQUIRE(ph == "X");
    TraceSpan span{event.get<std::string>("name"), event.get<double>("ts"), event.get<double>("dur"),
                   event.get<long long>("args.n", -1)};
    CHECK(span.ts >= 0);
    CHECK(span.dur >= 0);
    trace.spans[tid].push_back(span);
  }
  return trace;
}

std::size_t count_named(const std::vector<TraceSpan>& spans, const std::string& name) {
  return static_cast<std::size_t>(std::count_if(spans.begin(), spans.end(), [&](const TraceSpan& s) { return s.name == name; }));
}

// On one thread, any two spans are disjoint or one holds the other (spans come from scopes).
void check_nested(std::vector<TraceSpan> spans) {
  constexpr double kRounding = 0.002;  // ts and dur are printed to the nanosecond
  std::stable_sort(spans.begin(), spans.end(), [](const TraceSpan& a, const TraceSpan& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;  // at the same start, the outer first
  });
  std::vector<double> open_ends;
  for (const TraceSpan& s : spans) {
    while (!open_ends.empty() && open_ends.back() <= s.ts + kRounding) open_ends.pop_back();
    INFO(s.name << " at " << s.ts << " us for " << s.dur << " us");
    if (!open_ends.empty()) CHECK(s.ts + s.dur <= open_ends.back() + kRounding);
    open_ends.push_back(s.ts + s.dur);
  }
}

TEST_CASE("timeline recorder: each thread's spans, names and totals, written past its buffer", "[timeline]") {
  TempDir dir;
  const auto path = dir / "trace.json";
  timeline::record("dropped", "test", 1, 2);  // not recording: not kept
  REQUIRE(timeline::start(path.string()).is_ok());
  const Status again = timeline::start((dir / "other.json").string());
  CHECK(again.code() == StatusCode::kInvalidArgument);
  CHECK_THAT(again.message(), Catch::Contains("recording already"));
  const std::size_t per_thread = timeline::kSpansPerFlush * 2 + 7;  // two flushes while running
  auto work = [&](const char* thread_name, std::uint64_t step) {
    if (thread_name != nullptr) timeline::name_thread(thread_name);
    const std::uint64_t base = monotonic_ns();
    for (std::size_t i = 0; i < per_thread; ++i) {
      timeline::record(i % 2 == 0 ? "even" : "odd", "test", base + i * step, base + i * step + step, static_cast<std::int64_t>(i));
    }
    { const timeline::Span span("scoped", "test", 5); }
  };
  std::thread a(work, "alpha", 1000);
  std::thread b(work, "beta", 2000);
  std::thread c(work, nullptr, 3000);
  a.join();
  b.join();
  c.join();
  const Expected<timeline::Summary> summary = timeline::finish();
  REQUIRE(summary);
  CHECK(summary->spans == 3 * (per_thread + 1));
  REQUIRE(summary->threads.size() == 3);
  std::map<std::string, const timeline::ThreadTotals*> by_name;
  for (const auto& t : summary->threads) by_name[t.thread] = &t;
  REQUIRE(by_name.count("alpha") == 1);
  REQUIRE(by_name.count("beta") == 1);
  const auto unnamed = std::find_if(summary->threads.begin(), summary->threads.end(),
                                    [](const timeline::ThreadTotals& t) { return t.thread.rfind("thread ", 0) == 0; });
  REQUIRE(unnamed != summary->threads.end());
  for (const auto& [name, step] : {std::pair<std::string, std::uint64_t>{"alpha", 1000}, {"beta", 2000}}) {
    const auto& spans = by_name[name]->spans;
    REQUIRE(spans.size() == 3);
    CHECK(spans[0].name == "even");
    CHECK(spans[0].count == (per_thread + 1) / 2);
    CHECK(spans[0].nanoseconds == spans[0].count * step);
    CHECK(spans[1].name == "odd");
    CHECK(spans[1].count == per_thread / 2);
    CHECK(spans[2].name == "scoped");
    CHECK(spans[2].count == 1);
  }

  const Trace trace = read_trace(path);
  REQUIRE(trace.spans.size() == 3);
  REQUIRE(trace.names.size() == 3);
  for (const auto& [tid, spans] : trace.spans) {
    INFO("thread " << trace.names.at(tid));
    REQUIRE(spans.size() == per_thread + 1);
    CHECK(count_named(spans, "dropped") == 0);
    // In file order (flushes keep each thread's order); each span's n and length as recorded.
    const double step = trace.names.at(tid) == "alpha" ? 1 : trace.names.at(tid) == "beta" ? 2 : 3;
    for (std::size_t i = 0; i < per_thread; ++i) {
      REQUIRE(spans[i].n == static_cast<long long>(i));
      REQUIRE(spans[i].dur == Approx(step).margin(0.0015));
      if (i > 0) REQUIRE(spans[i].ts - spans[i - 1].ts == Approx(step).margin(0.0015));
    }
    CHECK(spans.back().name == "scoped");
    CHECK(spans.back().n == 5);
  }
  CHECK(trace.names.at(static_cast<int>(unnamed - summary->threads.begin()) + 1) == unnamed->thread);

  // A second timeline starts empty: nothing of the first one's threads or spans. One name at two
  // addresses (as the same literal in two translation units may be) is one total.
  static const char kSame1[] = "same";
  static const char kSame2[] = "same";
  REQUIRE(timeline::start(path.string()).is_ok());
  timeline::record(kSame1, "test", monotonic_ns(), monotonic_ns());
  timeline::record(kSame2, "test", monotonic_ns(), monotonic_ns());
  const Expected<timeline::Summary> second = timeline::finish();
  REQUIRE(second);
  CHECK(second->spans == 2);
  REQUIRE(second->threads.size() == 1);
  REQUIRE(second->threads[0].spans.size() == 1);
  CHECK(second->threads[0].spans[0].name == "same");
  CHECK(second->threads[0].spans[0].count == 2);
  CHECK(read_trace(path).spans.begin()->second.size() == 2);
}

TEST_CASE("timeline recorder: a file that cannot be created, finish without start", "[timeline]") {
  TempDir dir;
  const std::string missing = (dir / "missing" / "trace.json").string();
  const Status status = timeline::start(missing);
  CHECK(status.code() == StatusCode::kIoError);
  CHECK_THAT(status.message(), Catch::Contains(missing));
  CHECK_FALSE(timeline::on());
  const Expected<timeline::Summary> summary = timeline::finish();
  CHECK_FALSE(summary);
}

TEST_CASE("device sampler: block device statistics parsed, each device once, its traffic counted", "[timeline]") {
  BlockDeviceStat stat;
  REQUIRE(parse_block_device_stat("  16456080   228443 6381021058 24921416  8374945   154308 1994010768  7410416        8  6863300 33396543 0 0",
                                  stat));
  CHECK(stat.read_sectors == 6381021058ULL);
  CHECK(stat.write_sectors == 1994010768ULL);
  CHECK(stat.in_flight == 8);
  CHECK(stat.busy_ms == 6863300);
  CHECK_FALSE(parse_block_device_stat("1 2 3 4 5 6 7 8 9", stat));
  CHECK_FALSE(parse_block_device_stat("1 2 x 4 5 6 7 8 9 10", stat));

  // /proc is on no block device: skipped. The test directory twice: sampled at most once.
  TempDir dir;
  REQUIRE(timeline::start((dir / "trace.json").string()).is_ok());
  DeviceSampler sampler({dir.path(), "/proc", dir.path()}, std::chrono::milliseconds(5));
  CHECK(std::count(sampler.skipped().begin(), sampler.skipped().end(), "/proc") == 1);
  constexpr std::size_t kBytes = std::size_t{8} << 20;
  {
    const int fd = ::open((dir / "data").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    const std::vector<char> bytes(kBytes, 'x');
    REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    REQUIRE(::fdatasync(fd) == 0);
    ::close(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const std::vector<DeviceSampler::Totals> totals = sampler.stop();
  const std::size_t skipped_dir = static_cast<std::size_t>(std::count(sampler.skipped().begin(), sampler.skipped().end(), dir.path().string()));
  REQUIRE(totals.size() + skipped_dir == 1);  // the test directory: sampled or (tmpfs) skipped, once
  const Expected<timeline::Summary> summary = timeline::finish();
  REQUIRE(summary);
  if (!totals.empty()) {
    CHECK(totals[0].dir == dir.path().string());
    CHECK(totals[0].bytes_written >= kBytes);  // the file's data reached the device (other traffic may add)
    CHECK(totals[0].seconds > 0.02);
    CHECK(totals[0].busy_seconds <= totals[0].seconds + 0.01);
    CHECK(summary->counter_samples >= 3);  // three series a sample, at least one sample in 30 ms
    const Trace trace = read_trace(dir / "trace.json");
    CHECK(trace.counters.count("device " + totals[0].device + " MB/s") == 1);
    CHECK(trace.counters.count("device " + totals[0].device + " busy %") == 1);
    CHECK(trace.counters.count("device " + totals[0].device + " in flight") == 1);
    const std::vector<DeviceSampler::Totals> again = sampler.stop();  // the same totals
    REQUIRE(again.size() == 1);
    CHECK(again[0].bytes_written == totals[0].bytes_written);
  } else {
    CHECK(summary->counter_samples == 0);
  }
}

TEST_CASE("driver --timeline: valid JSON, nested spans on every thread, one superstep span per superstep", "[timeline]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(3000, 40000, 7), 3000);
  const std::string g = (dir / "g").string();
  struct Run {
    std::vector<std::string> args;
    const char* phase;  // a setup span this configuration has
  };
  const Run runs[] = {
      {{"-b", "pagerank", "--pagerank::niters", "4", "-k", "4", "-p", "2"}, "split input"},
      {{"-b", "bfs", "-p", "2"}, "load edge cache"},
      {{"-b", "pagerank", "--pagerank::niters", "5", "-p", "2", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "16K",
        "--stream_grid"},
       "write grid slab"},
  };
  for (const Run& run : runs) {
    std::vector<std::string> args{"-g", g, "--work_dir", dir.path().string(), "--timeline", (dir / "t.json").string()};
    args.insert(args.end(), run.args.begin(), run.args.end());
    std::string command = "benchmark_driver";
    for (const std::string& arg : args) command += " " + arg;
    INFO(command);
    const ProcessResult r = run_tool("benchmark_driver", args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("TIMELINE " + (dir / "t.json").string() + ": "));
    CHECK_THAT(r.err, Catch::Contains("TIMELINE main: "));
    CHECK_THAT(r.err, Catch::Contains("TIMELINE pool worker 1: "));
    CHECK_THAT(r.err, Catch::Contains("TIMELINE device "));  // sampled, or named as not sampled
    const Trace trace = read_trace(dir / "t.json");
    int main_tid = 0;
    for (const auto& [tid, name] : trace.names) {
      if (name == "main") main_tid = tid;
    }
    REQUIRE(main_tid != 0);
    for (const auto& [tid, spans] : trace.spans) check_nested(spans);
    const auto& main = trace.spans.at(main_tid);
    const long long supersteps = std::stoll(stat_value(r.out, "CORE::PHASES"));
    const long long partitions = std::stoll(stat_value(r.out, "CORE::PARTITIONS"));
    CHECK(static_cast<long long>(count_named(main, "superstep")) == supersteps);
    CHECK(count_named(main, "setup") == 1);
    CHECK(count_named(main, run.phase) >= 1);
    CHECK(static_cast<long long>(count_named(main, "final gather")) == partitions);
    double setup_end = 0;
    long long next_superstep = 0;
    for (const TraceSpan& s : main) {
      if (s.name == "setup") setup_end = s.ts + s.dur;
      if (s.name == "superstep") {
        CHECK(s.ts >= setup_end - 0.002);
        CHECK(s.n == next_superstep++);  // written in order of their ends: supersteps do not nest
      }
      if (s.name == "scatter" || s.name == "gather") {
        CHECK(s.n >= 0);
        CHECK(s.n < partitions);
      }
    }
    // Every pool step's work on worker 1 is inside the timeline, and so are the waits.
    for (const auto& [tid, spans] : trace.spans) {
      if (tid != main_tid) CHECK(count_named(spans, "work") >= 1);
    }
  }
  std::vector<std::string> left = dir.entries();  // no scratch file or directory left behind
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"g", "g.ini", "t.json"});
}

}  // namespace
}  // namespace edgestream::test
