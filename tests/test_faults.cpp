// The fault model of docs/reliability.md, one test per row ([faults]): injected EIO, ENOSPC, short
// transfers and EINTR storms on every kind of file a run touches (the input, the per-partition edge
// streams, the update streams, the vertex state file and --output); stop requests raised at an exact
// phase of a run (split pass, scatter, spill, gather, vertex state, output writing, verification);
// concurrent runs sharing a work directory and an --output path; hostile configurations; and the
// progress guarantee of io/ (a request the device never completes is an error, not a hang).
// Failures must be ONE message naming the file and the operation, exit 1 (or 128+N when stopped),
// no scratch left, no output (or temporary output) left, inputs unchanged.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/driver.hpp"
#include "core/cancellation.hpp"
#include "core/scratch_directory.hpp"
#include "io/fault_injection.hpp"
#include "io/file.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"
#include "io/uring_queue.hpp"
#include "tests/test_support.hpp"


namespace edgestream::test {
namespace {

namespace fs = std::filesystem;
namespace fi = fault_injection;
using Clock = std::chrono::steady_clock;

// ---- helpers (spawn_driver, wait_exit, message_lines: tests/test_support.hpp) -------------------

std::string listing(const fs::path& dir) {
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(dir)) all += fs::relative(e.path(), dir).string() + " ";
  return all;
}

// Clears the fault-injection rules and any stop request however the test ends.
struct Faults : FaultGuard {
  using FaultGuard::FaultGuard;
  ~Faults() { set_cancel_signal_for_testing(0); }
  Faults(const Faults&) = delete;
  Faults& operator=(const Faults&) = delete;
};

fi::Rule make_rule(fi::Op op, std::string path_contains, std::uint64_t after_bytes, int error, std::size_t max_transfer = 0,
                   int period = 0) {
  fi::Rule r;
  r.op = op;
  r.path_contains = std::move(path_contains);
  r.after_bytes = after_bytes;
  r.error = error;
  r.max_transfer = max_transfer;
  r.period = period;
  return r;
}

// benchmark_driver as a subprocess with a deadline: a hang shows as exit -1, a crash as 128+N.
ProcessResult run_bounded(const std::vector<std::string>& args, std::chrono::seconds timeout = std::chrono::seconds(120)) {
  TempDir capture;
  const pid_t pid = spawn_driver(args, capture / "out", capture / "err");
  ProcessResult r;
  r.exit_code = wait_exit(pid, timeout);
  r.out = slurp(capture / "out");
  r.err = slurp(capture / "err");
  return r;
}

// The graph every fault case runs on: 16384 vertices in 4 partitions (-k 4), 200000 weighted edges,
// so edge streams, update streams (about 3/4 of PageRank's updates cross partitions) and the vertex
// state file all exist and span many 64 KiB requests.
struct FaultGraph {
  TempDir graph_dir;
  TempDir work;
  TempDir out_dir;
  fs::path ini = write_graph(graph_dir.path(), "r", random_edges(1 << 14, 200000, 21), 1 << 14);
  std::string g() const { return (graph_dir / "r").string(); }
  std::string out() const { return (out_dir / "out.txt").string(); }
  std::vector<std::string> args(const std::string& engine, const std::vector<std::string>& extra) const {
    std::vector<std::string> a{"-g", g(), "-b", "pagerank", "--pagerank::niters", "3", "--work_dir", work.path().string(),
                               "--write_chunk", "64K", "--read_chunk", "64K", "--io_engine", engine, "--output", out()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

// ---- EIO / ENOSPC on every file kind ------------------------------------------------------------

struct ErrorCase {
  const char* what;
  fi::Rule rule;
  std::vector<std::string> extra;
  std::vector<std::string> needles;  // besides the file: the operation and the error text
  bool scratch_file = true;          // the file named is inside the run's scratch directory
};

TEST_CASE("faults: EIO and ENOSPC on the input, edge, update, vertex and output files end the run cleanly", "[faults]") {
  FaultGraph fg;
  const std::string input = fg.g();
  const std::string k4[] = {"-k", "4"};
  const std::vector<std::string> partitioned(std::begin(k4), std::end(k4));
  const std::vector<ErrorCase> cases = {
      {"EIO reading the input (split pass)", make_rule(fi::Op::kRead, input, 256 * 1024, EIO), partitioned,
       {"read", "Input/output error", input}, false},
      {"EIO reading the input (K = 1, streamed)", make_rule(fi::Op::kRead, input, 256 * 1024, EIO), {"-k", "1"},
       {"read", "Input/output error", input}, false},
      {"EIO writing an edge stream", make_rule(fi::Op::kWrite, "edges.", 128 * 1024, EIO), partitioned,
       {"write", "Input/output error", "edges."}},
      {"ENOSPC in the middle of an edge stream", make_rule(fi::Op::kWrite, "edges.", 256 * 1024, ENOSPC), partitioned,
       {"write", "No space left", "edges."}},
      {"EIO reading an edge stream", make_rule(fi::Op::kRead, "edges.", 128 * 1024, EIO), partitioned,
       {"read", "Input/output error", "edges."}},
      {"EIO writing an update stream", make_rule(fi::Op::kWrite, "updates", 64 * 1024, EIO), partitioned,
       {"write", "Input/output error", "updates"}},
      {"ENOSPC in the middle of an update stream", make_rule(fi::Op::kWrite, "updates", 128 * 1024, ENOSPC), partitioned,
       {"write", "No space left", "updates"}},
      {"ENOSPC in the middle of a zlib update stream",
       make_rule(fi::Op::kWrite, "updates", 64 * 1024, ENOSPC), {"-k", "4", "--updates_codec", "zlib"},
       {"write", "No space left", "updates"}},
      {"EIO reading an update stream (gather)", make_rule(fi::Op::kRead, "updates", 64 * 1024, EIO), partitioned,
       {"read", "Input/output error", "updates"}},
      {"EIO writing the vertex state", make_rule(fi::Op::kWrite, "vertices", 0, EIO), partitioned,
       {"write", "Input/output error", "vertices"}},
      {"ENOSPC writing the vertex state", make_rule(fi::Op::kWrite, "vertices", 32 * 1024, ENOSPC), partitioned,
       {"write", "No space left", "vertices"}},
      {"EIO reading the vertex state", make_rule(fi::Op::kRead, "vertices", 0, EIO), partitioned,
       {"read", "Input/output error", "vertices"}},
      {"EIO writing --output (K = 4)", make_rule(fi::Op::kWrite, fg.out(), 1000, EIO), partitioned,
       {"write output file", "Input/output error", fg.out()}, false},
      {"ENOSPC writing --output (K = 1)", make_rule(fi::Op::kWrite, fg.out(), 0, ENOSPC), {"-k", "1"},
       {"write output file", "No space left", fg.out()}, false},
  };
  for (const ErrorCase& c : cases) {
    for (const char* engine : {"uring", "sync"}) {
      INFO(c.what << " with --io_engine " << engine);
      ProcessResult r;
      std::uint64_t injected = 0;
      {
        Faults faults({c.rule});
        r = run_driver_in_process(fg.args(engine, c.extra));
        injected = fi::injected_count();
      }
      INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
      CHECK(injected > 0);
      REQUIRE(r.exit_code == kExitError);
      const auto lines = message_lines(r.err);
      REQUIRE(lines.size() == 1);
      CHECK(lines[0].rfind("benchmark_driver: ", 0) == 0);
      for (const auto& needle : c.needles) CHECK_THAT(lines[0], Catch::Contains(needle));
      if (c.scratch_file) CHECK_THAT(lines[0], Catch::Contains(fg.work.path().string() + "/edgestream-"));
      CHECK(r.out.find("CORE::TIME::WALL") == std::string::npos);
      INFO("work: " << listing(fg.work.path()) << " output dir: " << listing(fg.out_dir.path()));
      CHECK(fs::is_empty(fg.work.path()));
      CHECK(fs::is_empty(fg.out_dir.path()));  // no output, no temporary output
    }
  }
}

// ---- corruption of stored chunks ----------------------------------------------------------------

// Flips `mask` into byte `from_end` bytes before the end of the file named `name` below `dir`.
void flip_byte_in(const fs::path& dir, const std::string& name, std::uint64_t from_end, unsigned char mask) {
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename() != name) continue;
    (void)flip_byte(entry.path(), fs::file_size(entry.path()) - from_end, mask);  // the run then reports the damage
    return;
  }
}

TEST_CASE("faults: one flipped byte in a stored edge stream chunk (none, zlib, snappy) is corruption naming the file", "[faults]") {
  FaultGraph fg;
  // "raw": codec none with --no_scratch_checksums (unframed records); plain "none" is framed with a
  // crc32 like the codecs (the [codec_frames] tests flip every kind of byte of it).
  for (const char* codec : {"raw", "none", "zlib", "snappy"}) {
    INFO("--edges_codec " << codec);
    // When partition 0's edge stream is first read back (superstep 0), flip a byte near its end,
    // beyond the read-ahead. Unframed (raw records, no checksum) the byte is the top byte of a
    // record's source id (pagerank's streams hold 8-byte records: it never reads the weight);
    // framed, a byte of the last frame.
    const bool raw = std::string(codec) == "raw";
    fi::Rule flip = make_rule(fi::Op::kRead, "edges.0", 0, 0);
    flip.times = 1;
    const fs::path work = fg.work.path();
    flip.on_hit = [work, raw] { flip_byte_in(work, "edges.0", raw ? 2 * 8 + 3 : 100, 0x80); };
    ProcessResult r;
    std::uint64_t hits = 0;
    {
      Faults faults({flip});
      r = run_driver_in_process(fg.args("sync", raw ? std::vector<std::string>{"-k", "4", "--no_scratch_checksums"}
                                                    : std::vector<std::string>{"-k", "4", "--edges_codec", codec}));
      hits = fi::injected_count();
    }
    INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
    REQUIRE(hits == 1);
    REQUIRE(r.exit_code == kExitError);
    const auto lines = message_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains(fg.work.path().string() + "/edgestream-") && Catch::Contains("edges.0") &&
                             Catch::Contains("byte offset"));
    CHECK_THAT(lines[0], Catch::Contains(raw ? "damaged scratch data" : "corrupt stored chunk"));
    CHECK(fs::is_empty(fg.work.path()));
    CHECK(fs::is_empty(fg.out_dir.path()));
  }
}

// ---- short transfers and EINTR storms: retried, same result -------------------------------------

TEST_CASE("faults: persistent short reads/writes and EINTR storms on every file give the same output", "[faults]") {
  FaultGraph fg;
  const std::string input = fg.g();
  struct Glitch {
    const char* what;
    std::vector<fi::Rule> rules;
  };
  const std::vector<Glitch> glitches = {
      {"every read of the input short", {make_rule(fi::Op::kRead, input, 0, 0, 3 * 4096 + 100)}},
      {"every read of edge streams short", {make_rule(fi::Op::kRead, "edges.", 0, 0, 4096 + 12)}},
      {"every write of edge streams short", {make_rule(fi::Op::kWrite, "edges.", 0, 0, 2 * 4096 + 1)}},
      {"every read of update streams short", {make_rule(fi::Op::kRead, "updates", 0, 0, 4096 + 12)}},
      {"every write of update streams short", {make_rule(fi::Op::kWrite, "updates", 0, 0, 4096 + 12)}},
      {"every read and write of the vertex state short",
       {make_rule(fi::Op::kRead, "vertices", 0, 0, 4096 + 1), make_rule(fi::Op::kWrite, "vertices", 0, 0, 4096 + 1)}},
      // Each request of every file (input, streams, vertex state) is interrupted 49 times before it
      // goes through; the output (stdio) retries EINTR inside the C library.
      {"EINTR storm on every read and write",
       {make_rule(fi::Op::kRead, "", 0, EINTR, 0, 50), make_rule(fi::Op::kWrite, "", 0, EINTR, 0, 50)}},
  };
  for (const char* k : {"1", "4"}) {
    const std::vector<std::string> extra{"-k", k};
    const std::string clean_path = (fg.graph_dir / ("clean" + std::string(k) + ".txt")).string();
    {
      std::vector<std::string> args = fg.args("uring", extra);
      *std::find(args.begin(), args.end(), fg.out()) = clean_path;
      const ProcessResult clean = run_driver_in_process(args);
      REQUIRE(clean.exit_code == kExitOk);
    }
    const std::string expected = slurp(clean_path);
    REQUIRE(std::count(expected.begin(), expected.end(), '\n') == (1 << 14));
    for (const Glitch& glitch : glitches) {
      for (const char* engine : {"uring", "sync"}) {
        INFO(glitch.what << " -k " << k << " --io_engine " << engine);
        ProcessResult r;
        std::uint64_t injected = 0;
        {
          Faults faults(glitch.rules);
          r = run_driver_in_process(fg.args(engine, extra));
          injected = fi::injected_count();
        }
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == kExitOk);
        // At K = 1 there are no streams; only the rules on the input and on every file apply.
        const bool applies = std::string(k) == "4" || glitch.rules[0].path_contains.empty() ||
                             glitch.rules[0].path_contains == input;
        if (applies) CHECK(injected > 0);
        CHECK(slurp(fg.out()) == expected);
        CHECK(fs::is_empty(fg.work.path()));
        fs::remove(fg.out());
      }
    }
  }
}

TEST_CASE("faults: an EINTR storm that never lets a request through is an error, not a hang", "[faults]") {
  FaultGraph fg;
  for (const fi::Op op : {fi::Op::kRead, fi::Op::kWrite}) {
    ProcessResult r;
    const auto start = Clock::now();
    {
      Faults faults({make_rule(op, "edges.", 0, EINTR)});  // every attempt, forever
      r = run_driver_in_process(fg.args("sync", {"-k", "4"}));
    }
    INFO("stderr: " << r.err);
    CHECK(Clock::now() - start < std::chrono::seconds(30));
    REQUIRE(r.exit_code == kExitError);
    REQUIRE(message_lines(r.err).size() == 1);
    CHECK_THAT(r.err, Catch::Contains("no progress") && Catch::Contains("edges."));
    CHECK(fs::is_empty(fg.work.path()));
    CHECK(fs::is_empty(fg.out_dir.path()));
  }
}

// ---- a stop request (SIGINT/SIGTERM's flag) raised at an exact phase ----------------------------

TEST_CASE("faults: a stop request at every phase exits 128+N with no scratch and no output", "[faults]") {
  FaultGraph fg;
  const auto input_size = fs::file_size(fg.g());
  struct Phase {
    const char* what;
    fi::Op op;
    std::string path;
    std::uint64_t after_bytes;
    std::vector<std::string> extra;
  };
  const std::vector<Phase> phases = {
      {"split pass (first edge stream write)", fi::Op::kWrite, "edges.", 0, {"-k", "4"}},
      {"split pass (reading the input)", fi::Op::kRead, fg.g(), 128 * 1024, {"-k", "4"}},
      {"scatter (reading an edge stream)", fi::Op::kRead, "edges.", 64 * 1024, {"-k", "4"}},
      {"scatter (spilling updates)", fi::Op::kWrite, "updates", 64 * 1024, {"-k", "4"}},
      {"gather (reading updates)", fi::Op::kRead, "updates", 0, {"-k", "4"}},
      {"vertex state written", fi::Op::kWrite, "vertices", 0, {"-k", "4"}},
      {"scatter in memory (K = 1)", fi::Op::kRead, fg.g(), 64 * 1024, {"-k", "1"}},
      {"writing --output (K = 4)", fi::Op::kWrite, fg.out(), 1000, {"-k", "4"}},
      {"writing --output (K = 1)", fi::Op::kWrite, fg.out(), 0, {"-k", "1"}},
      // With K = 4 the engine reads the input once (split pass); the next read is --verify's.
      {"verification", fi::Op::kRead, fg.g(), input_size, {"-k", "4", "--verify"}},
  };
  const std::string stats = (fg.out_dir / "stats.json").string();
  for (const Phase& phase : phases) {
    for (const int sig : {SIGTERM, SIGINT}) {
      INFO(phase.what << ", signal " << sig);
      fi::Rule stop = make_rule(phase.op, phase.path, phase.after_bytes, 0);
      stop.times = 1;
      stop.on_hit = [sig] { set_cancel_signal_for_testing(sig); };
      std::vector<std::string> extra = phase.extra;
      extra.insert(extra.end(), {"--stats_json", stats});
      ProcessResult r;
      std::uint64_t hits = 0;
      {
        Faults faults({stop});
        r = run_driver_in_process(fg.args("uring", extra));
        hits = fi::injected_count();
      }
      INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
      REQUIRE(hits == 1);
      CHECK(r.exit_code == 128 + sig);
      CHECK(message_lines(r.err).size() == 1);
      CHECK_THAT(r.err, Catch::Contains("signal " + std::to_string(sig)));
      INFO("work: " << listing(fg.work.path()) << " output dir: " << listing(fg.out_dir.path()));
      CHECK(fs::is_empty(fg.work.path()));
      CHECK(fs::is_empty(fg.out_dir.path()));  // no output, no .tmp-<pid>, no statistics
    }
  }
}

// ---- concurrency --------------------------------------------------------------------------------

TEST_CASE("faults: concurrent runs on one graph, one work directory and one --output path all succeed", "[faults]") {
  // Rule (documented in docs/reliability.md): runs never share scratch (a directory per run), and
  // each writes --output under "<path>.tmp-<pid>" and renames it into place, so runs that name the
  // same --output all succeed and the file is always one complete result (the last rename wins).
  TempDir graph_dir;
  TempDir work;
  TempDir out_dir;
  write_graph(graph_dir.path(), "r", random_edges(1 << 13, 100000, 22), 1 << 13);
  const std::string g = (graph_dir / "r").string();
  std::string expected;
  {
    const ProcessResult ref = run_driver_in_process({"-g", g, "-b", "cc", "-k", "1", "--output", (graph_dir / "ref.txt").string()});
    REQUIRE(ref.exit_code == kExitOk);
    expected = slurp(graph_dir / "ref.txt");
    REQUIRE(std::count(expected.begin(), expected.end(), '\n') == (1 << 13));
  }
  const std::string shared_out = (out_dir / "labels.txt").string();
  const std::vector<std::vector<std::string>> configs = {{"-k", "1"}, {"-k", "1", "--no_edge_cache"}, {"-k", "4"},
                                                         {"-k", "4", "-p", "1"}};
  std::vector<pid_t> pids;
  std::vector<std::unique_ptr<TempDir>> captures;
  for (const auto& config : configs) {
    std::vector<std::string> args{"-g", g, "-b", "cc", "--work_dir", work.path().string(), "--output", shared_out, "--verify"};
    args.insert(args.end(), config.begin(), config.end());
    captures.push_back(std::make_unique<TempDir>());
    pids.push_back(spawn_driver(args, *captures.back() / "out", *captures.back() / "err"));
  }
  for (std::size_t i = 0; i < pids.size(); ++i) {
    const int code = wait_exit(pids[i], std::chrono::seconds(120));
    const std::string out = slurp(captures[i]->path() / "out");
    INFO("run " << i << " stderr: " << slurp(captures[i]->path() / "err"));
    CHECK(code == kExitOk);
    CHECK_THAT(out, Catch::Contains("Verification: PASS"));
  }
  CHECK(slurp(shared_out) == expected);
  INFO("output dir: " << listing(out_dir.path()) << " work: " << listing(work.path()));
  CHECK(std::distance(fs::directory_iterator(out_dir.path()), fs::directory_iterator()) == 1);
  CHECK(fs::is_empty(work.path()));
}

// std::cerr of this process for one scope: the library prints its warnings and notices there
// (not to the driver's `err` stream), e.g. "removed stale scratch directory ...".
class CerrCapture {
 public:
  CerrCapture() : old_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old_); }
  CerrCapture(const CerrCapture&) = delete;
  CerrCapture& operator=(const CerrCapture&) = delete;
  std::string str() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

// ---- scratch directories left by killed runs ------------------------------------------------------

TEST_CASE("faults: a killed run's scratch directory is removed by the next run; live and foreign ones never", "[faults]") {
  TempDir work;
  const fs::path w = work.path();
  // A live run's directory (locked by this process through its own open file: flock() conflicts
  // between open files, not only between processes).
  auto live = ScratchDirectory::create({w});
  REQUIRE(live.has_value());
  const fs::path live_dir = live->directories().at(0);
  REQUIRE(fs::exists(live_dir / kScratchLockName));
  std::ofstream(live_dir / "edges.0") << "live data";
  // What a killed run leaves: its directory with an unlocked lock file and scratch files.
  const fs::path dead = w / "edgestream-999999999-123";
  fs::create_directories(dead / "sub");
  std::ofstream(dead / kScratchLockName) << "";
  std::ofstream(dead / "edges.0") << "stale";
  std::ofstream(dead / "sub" / "updates.1") << "stale";
  // Not EdgeStream's, or not provably dead: never touched.
  const std::vector<fs::path> foreign = {w / "edgestream-abc", w / "edgestream-5-6", w / "edgestream-7-", w / "other"};
  for (const fs::path& d : foreign) {
    fs::create_directories(d);
    if (d.filename() != "edgestream-5-6") std::ofstream(d / kScratchLockName) << "";  // 5-6: no lock file
  }
  std::ofstream(w / "edgestream-12-34") << "a regular file";
  TempDir elsewhere;
  std::ofstream(elsewhere / kScratchLockName) << "";
  std::ofstream(elsewhere / "precious") << "keep";
  fs::create_directory_symlink(elsewhere.path(), w / "edgestream-8-9");

  // The next run (here: a whole driver run on the same work directory) removes exactly the dead one.
  TempDir graph_dir;
  const fs::path ini = write_graph(graph_dir.path(), "g", random_edges(1000, 5000, 3), 1000);
  ProcessResult r;
  std::string notices;
  {
    CerrCapture cerr;
    r = run_driver_in_process({"-g", ini.string(), "-b", "cc", "-k", "2", "--work_dir", w.string()});
    notices = cerr.str();
  }
  INFO(r.err << notices);
  CHECK(r.exit_code == kExitOk);
  CHECK(notices == "removed stale scratch directory " + dead.string() + " left by a killed run\n");
  CHECK_FALSE(fs::exists(dead));
  CHECK(slurp(live_dir / "edges.0") == "live data");
  for (const fs::path& d : foreign) CHECK(fs::is_directory(d));
  CHECK(fs::is_regular_file(w / "edgestream-12-34"));
  CHECK(slurp(elsewhere / "precious") == "keep");
  CHECK(fs::exists(elsewhere / kScratchLockName));
  // Nothing else is stale now; the live directory goes when its owner ends.
  CHECK(remove_stale_scratch(w) == 0);
  live->remove();
  CHECK_FALSE(fs::exists(live_dir));
}

TEST_CASE("faults: SIGKILL mid-iteration leaves the scratch directory; the next run on the work dir removes it", "[faults]") {
  TempDir graph_dir;
  TempDir work;
  TempDir capture;
  const fs::path ini = write_graph(graph_dir.path(), "g", random_edges(1 << 14, 200000, 5), 1 << 14);
  // Long enough to be killed mid-iteration (stopped by SIGKILL well before it could finish).
  const pid_t pid = spawn_driver({"-g", ini.string(), "-b", "pagerank", "--pagerank::niters", "100000", "-k", "4", "--work_dir",
                                  work.path().string(), "--heartbeat"},
                                 capture / "out", capture / "err");
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (slurp(capture / "err").find("HEARTBEAT superstep 1 ") == std::string::npos && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(::kill(pid, SIGKILL) == 0);
  REQUIRE(wait_exit(pid, std::chrono::seconds(30)) == 128 + SIGKILL);
  INFO(slurp(capture / "err"));
  std::vector<fs::path> left;
  for (const auto& e : fs::directory_iterator(work.path())) left.push_back(e.path());
  REQUIRE(left.size() == 1);
  CHECK(left[0].filename().string().rfind("edgestream-" + std::to_string(pid) + "-", 0) == 0);
  CHECK(fs::exists(left[0] / kScratchLockName));
  CHECK(fs::exists(left[0] / "edges.0"));
  // A second run on the same work directory removes it and says so; then its own.
  ProcessResult r;
  std::string notices;
  {
    CerrCapture cerr;
    r = run_driver_in_process({"-g", ini.string(), "-b", "cc", "-k", "2", "--work_dir", work.path().string()});
    notices = cerr.str();
  }
  INFO(r.err << notices);
  CHECK(r.exit_code == kExitOk);
  CHECK_THAT(notices, Catch::Contains("removed stale scratch directory " + left[0].string() + " left by a killed run"));
  CHECK(fs::is_empty(work.path()));
}

// ---- --blocked_memory ----------------------------------------------------------------------------

TEST_CASE("faults: a stop request while --blocked_memory locks memory exits 128+N, not as a failed lock", "[faults]") {
  TempDir dir;
  const fs::path ini = write_graph(dir.path(), "g", random_edges(100, 300, 1), 100);
  for (const int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    ProcessResult r;
    {
      Faults faults({});
      // Raised before the helper forks: the child inherits it, stops pinning at once and reports
      // "stopped by a signal", as it does when a real SIGTERM reaches the whole process group.
      set_cancel_signal_for_testing(sig);
      r = run_driver_in_process({"-g", ini.string(), "-b", "cc", "--blocked_memory", "16M", "--work_dir", dir.path().string()});
    }
    INFO(r.err);
    if (r.exit_code == kExitError && r.err.find("RLIMIT_MEMLOCK") != std::string::npos) {
      WARN("SKIP: this process may not lock memory here (" << r.err << ")");
      return;
    }
    CHECK(r.exit_code == 128 + sig);
    CHECK(message_lines(r.err).size() == 1);
    CHECK_THAT(r.err, Catch::Contains("stopped by signal " + std::to_string(sig)) && Catch::Contains("--blocked_memory"));
    // Stopped during the lock, not after it: the run itself never started (before this fix the
    // driver waited for the whole lock — 48 s for 8 GiB on the busy development box — and then
    // started the run, which noticed the stop).
    CHECK(r.out.find("CORE::GRAPH") == std::string::npos);
    CHECK(fs::is_regular_file(dir / "g"));
  }
}

// ---- hostile configurations ---------------------------------------------------------------------

TEST_CASE("faults: hostile option values end with one clear message or a correct run, never a hang", "[faults]") {
  TempDir dir;
  write_graph(dir.path(), "g", random_edges(1024, 5000, 23), 1024);
  const std::string g = (dir / "g").string();
  struct Hostile {
    std::vector<std::string> args;
    int code;
    std::vector<std::string> needles;
  };
  const std::vector<Hostile> cases = {
      {{"--read_chunk", "0"}, kExitUsage, {"--read_chunk", "got 0"}},
      {{"--read_chunk", "1"}, kExitUsage, {"--read_chunk", "got 1"}},
      {{"--read_chunk", "4097"}, kExitUsage, {"--read_chunk", "4097"}},
      {{"--read_chunk", "1T", "-k", "4"}, kExitUsage, {"--read_chunk", "1099511627776"}},
      {{"--write_chunk", "0"}, kExitUsage, {"--write_chunk", "got 0"}},
      {{"--write_chunk", "1T", "-k", "4"}, kExitUsage, {"--write_chunk", "1099511627776"}},
      {{"--read_chunk", "16E"}, kExitUsage, {"--read_chunk", "'16E'"}},
      {{"--io_depth", "0"}, kExitUsage, {"--io_depth", "got 0"}},
      {{"--io_depth", "4294967296"}, kExitUsage, {"--io_depth", "4294967296"}},
      {{"--io_depth", "1000000", "-k", "4"}, kExitUsage, {"--io_depth", "1000000"}},
      {{"-p", "0"}, kExitUsage, {"--processors", "got 0"}},
      {{"-p", "100000"}, kExitUsage, {"--processors", "100000"}},
      {{"--physical_memory", "0"}, kExitError, {"--physical_memory", "too small"}},
      {{"--physical_memory", "1"}, kExitError, {"--physical_memory", "too small"}},
      {{"--physical_memory", "1M", "-k", "32"}, kExitError, {"--physical_memory", "32 partitions", "too small"}},
      {{"--cpu_cache_size", "0"}, kExitUsage, {"--cpu_cache_size"}},
      // Accepted and run correctly: K with K^2 > V (adjusted), a huge cache size, more threads
      // than a partition has vertices, the largest depth.
      {{"-k", "33", "--verify"}, kExitOk, {}},
      {{"--cpu_cache_size", "1T", "--verify"}, kExitOk, {}},
      {{"-p", "1024", "-k", "4", "--verify"}, kExitOk, {}},
      {{"--io_depth", "256", "-k", "4", "--verify"}, kExitOk, {}},
  };
  for (const Hostile& h : cases) {
    std::vector<std::string> args{"-g", g, "-b", "pagerank", "--work_dir", dir.path().string()};
    args.insert(args.end(), h.args.begin(), h.args.end());
    std::string joined;
    for (const auto& a : h.args) joined += a + " ";
    const ProcessResult r = run_bounded(args, std::chrono::seconds(60));
    INFO(joined << "-> exit " << r.exit_code << "\nstderr:\n" << r.err);
    REQUIRE(r.exit_code >= 0);  // -1 would be a hang (killed), 128+N a crash
    CHECK(r.exit_code == h.code);
    const auto lines = message_lines(r.err);
    if (h.code == kExitOk) {
      CHECK(lines.empty());
      CHECK_THAT(r.out, Catch::Contains("Verification: PASS"));
      continue;
    }
    REQUIRE(lines.size() == 1);
    for (const auto& needle : h.needles) CHECK_THAT(lines[0], Catch::Contains(needle));
  }
  // Only the graph is left: no scratch directory.
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 2);
}

TEST_CASE("faults: degenerate graphs (0 edges, 1 vertex, more threads than vertices) run and verify", "[faults]") {
  TempDir dir;
  const auto empty = write_graph(dir.path(), "empty", {}, 16);
  const auto one = write_graph(dir.path(), "one", {}, 1);
  const auto loop = write_graph(dir.path(), "loop", {Edge{0, 0, 0.5F}}, 1);
  const auto two = write_graph(dir.path(), "two", {Edge{0, 1, 0.5F}, Edge{1, 0, 0.25F}}, 4);
  for (const auto& graph : {empty, one, loop, two}) {
    for (const char* algorithm : {"pagerank", "bfs", "cc", "scc", "sssp", "mis", "mcst", "triangle_counting",
                                  "degree_cnt", "spmv", "bc", "checkbip", "pagerank_ddf"}) {
      for (const std::vector<std::string>& config :
           {std::vector<std::string>{"-p", "8"}, std::vector<std::string>{"-p", "3", "--no_edge_cache"}}) {
        std::vector<std::string> args{"-g", graph.string(), "-b", algorithm, "--verify", "--work_dir", dir.path().string()};
        args.insert(args.end(), config.begin(), config.end());
        const ProcessResult r = run_bounded(args, std::chrono::seconds(60));
        INFO(graph.filename().string() << " -b " << algorithm << " " << config[1] << " -> exit " << r.exit_code
                                       << "\nstderr:\n" << r.err << "\nstdout:\n" << r.out);
        CHECK(r.exit_code == kExitOk);
        CHECK_THAT(r.out, Catch::Contains("Verification: PASS"));
      }
    }
  }
  // Partitioned runs of a tiny graph: K = 2 needs K^2 <= V (two has 4 vertices).
  const ProcessResult k2 = run_bounded({"-g", two.string(), "-b", "pagerank", "-k", "2", "-p", "16", "--verify",
                                        "--work_dir", dir.path().string()});
  INFO(k2.err);
  CHECK(k2.exit_code == kExitOk);
  CHECK_THAT(k2.out, Catch::Contains("Verification: PASS"));
}

TEST_CASE("faults: malformed graph files are reported, for every algorithm, without a hang", "[faults]") {
  TempDir dir;
  write_graph(dir.path(), "g", random_edges(64, 200, 24), 64);
  // .ini edge count wrong (X-Stream's scc looped forever), partial record, id >= vertices.
  std::ofstream(dir / "wrong.ini") << "[graph]\nname=g\ntype=1\nvertices=64\nedges=100\n";
  std::ofstream(dir / "small.ini") << "[graph]\nname=g\ntype=1\nvertices=8\nedges=200\n";
  fs::copy_file(dir / "g", dir / "partial");
  std::ofstream(dir / "partial", std::ios::app | std::ios::binary) << "abcde";
  std::ofstream(dir / "partial.ini") << "[graph]\nname=partial\ntype=1\nvertices=64\nedges=200\n";
  struct Bad {
    std::string graph;
    std::vector<std::string> needles;
  };
  const std::vector<Bad> bads = {{"wrong", {"wrong.ini", "100", "200"}},
                                 {"partial", {"partial", "5"}},
                                 {"small", {"record", "vertices"}}};
  for (const Bad& bad : bads) {
    for (const char* algorithm : {"scc", "pagerank", "cc", "sssp", "mcst", "triangle_counting"}) {
      for (const char* k : {"1", "2"}) {
        const ProcessResult r = run_bounded({"-g", (dir / bad.graph).string(), "-b", algorithm, "-k", k, "--work_dir",
                                             dir.path().string()},
                                            std::chrono::seconds(60));
        INFO(bad.graph << " -b " << algorithm << " -k " << k << " -> exit " << r.exit_code << "\nstderr:\n" << r.err);
        CHECK(r.exit_code == kExitError);
        const auto lines = message_lines(r.err);
        REQUIRE(lines.size() == 1);
        for (const auto& needle : bad.needles) CHECK_THAT(lines[0], Catch::Contains(needle));
      }
    }
  }
}

// ---- progress guarantee: a request the device never completes ----------------------------------

TEST_CASE("faults: an io_uring request that never completes is an error after the timeout, not a hang", "[faults]") {
  if (!uring_available()) {
    WARN("SKIP: io_uring is unavailable here; the synchronous engine has no ring to time out");
    return;
  }
  TempDir dir;
  const auto fifo = dir / "stalled";
  // A FIFO nobody writes to: a read request on it is never completed by the kernel (a hung device).
  REQUIRE(mkfifo(fifo.c_str(), 0644) == 0);
  {
    auto queue = std::make_unique<UringQueue>();
    REQUIRE(queue->init(4, std::chrono::milliseconds(200)).is_ok());
    const int fd = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);  // O_RDWR: open does not wait for a writer
    REQUIRE(fd >= 0);
    std::vector<char> buffer(4096);
    REQUIRE(queue->submit_read(fd, buffer.data(), buffer.size(), 0, 7).is_ok());
    const auto start = Clock::now();
    auto completion = queue->wait();
    const auto waited = Clock::now() - start;
    REQUIRE_FALSE(completion.has_value());
    CHECK(completion.status().code() == StatusCode::kIoError);
    CHECK_THAT(completion.status().message(), Catch::Contains("no I/O completion within 200 ms"));
    CHECK(waited >= std::chrono::milliseconds(150));
    CHECK(waited < std::chrono::seconds(5));
    const auto destroy_start = Clock::now();
    queue.reset();  // cancels the stalled request; must not wait for it
    CHECK(Clock::now() - destroy_start < std::chrono::seconds(3));
    ::close(fd);
  }
  {
    // Through SequentialReader: the error names the file and the offset.
    auto file = File::open(fifo, OpenMode::kReadWrite, /*direct=*/false);
    REQUIRE(file);
    IoOptions io;
    io.read_chunk = 4096;
    io.depth = 2;
    io.direct = false;
    io.completion_timeout = std::chrono::milliseconds(200);
    const auto start = Clock::now();
    auto reader = SequentialReader::open(*file, 0, 3 * 4096, io, nullptr);
    REQUIRE(reader);
    auto chunk = (*reader)->next();
    REQUIRE_FALSE(chunk.has_value());
    CHECK_THAT(chunk.status().message(), Catch::Contains("read " + fifo.string() + " at offset 0") &&
                                             Catch::Contains("no I/O completion"));
    reader->reset();
    CHECK(Clock::now() - start < std::chrono::seconds(10));
  }
  {
    // SequentialWriter: a FIFO whose buffer fills and is never drained.
    auto file = File::open(fifo, OpenMode::kReadWrite, /*direct=*/false);
    REQUIRE(file);
    // Fill the pipe's buffer first (nobody reads it), so no write request can ever complete.
    const int filler = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    REQUIRE(filler >= 0);
    const std::vector<char> block(4096, 'x');
    while (::write(filler, block.data(), block.size()) > 0) {
    }
    IoOptions io;
    io.write_chunk = 64 * 1024;
    io.depth = 2;
    io.direct = false;
    io.completion_timeout = std::chrono::milliseconds(200);
    auto writer = SequentialWriter::open(*file, io, nullptr);
    REQUIRE(writer);
    const auto start = Clock::now();
    const std::vector<std::byte> data(4 * io.write_chunk, std::byte{1});
    Status status = (*writer)->append(data);
    const Status finished = (*writer)->finish();
    if (status.is_ok()) status = finished;
    INFO(status.message());
    CHECK(status.code() == StatusCode::kIoError);
    CHECK_THAT(status.message(), Catch::Contains("write " + fifo.string()) && Catch::Contains("no I/O completion"));
    writer->reset();
    CHECK(Clock::now() - start < std::chrono::seconds(10));
    ::close(filler);
  }
}

}  // namespace
}  // namespace edgestream::test
