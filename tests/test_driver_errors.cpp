// benchmark_driver's error handling and robustness ([errors]). Every bad input (missing or
// inconsistent graph files, ids >= vertices, malformed options, unusable work or output
// directories, injected disk errors, a too-small memory budget, SIGINT/SIGTERM mid-run) must end
// with its specific exit code and ONE clear message naming the specifics — no crash (the runs are
// subprocesses, so a signal death shows as 128+N), no hang, the input files unchanged, and no
// scratch directory, output file or temporary output left behind.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/algorithm.hpp"
#include "benchmarks/driver.hpp"
#include "core/cancellation.hpp"
#include "io/fault_injection.hpp"
#include "tests/test_support.hpp"


namespace edgestream::test {
namespace {

namespace fs = std::filesystem;
namespace fi = fault_injection;
using Clock = std::chrono::steady_clock;

// ---- helpers ------------------------------------------------------------------------------------

// "Unchanged" for a file: its size and an FNV-1a hash of its bytes (0/0 for a directory).
struct Fingerprint {
  std::uintmax_t size = 0;
  std::uint64_t hash = 0;
  bool operator==(const Fingerprint&) const = default;
};

Fingerprint fingerprint(const fs::path& file) {
  Fingerprint f;
  if (fs::is_directory(file)) return f;
  std::ifstream in(file, std::ios::binary);
  std::uint64_t h = 1469598103934665603ULL;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h = (h ^ static_cast<unsigned char>(buffer[i])) * 1099511628211ULL;
    }
    f.size += static_cast<std::uintmax_t>(in.gcount());
  }
  f.hash = h;
  return f;
}

// Every entry below `dir` (recursively) with its fingerprint: a run that leaves the snapshot equal
// changed no input and left no scratch, output or temporary file there.
std::map<std::string, Fingerprint> snapshot(const fs::path& dir) {
  std::map<std::string, Fingerprint> entries;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    entries[fs::relative(entry.path(), dir).string()] = fingerprint(entry.path());
  }
  return entries;
}

std::string names(const std::map<std::string, Fingerprint>& entries) {
  std::string all;
  for (const auto& [name, _] : entries) all += name + " ";
  return all;
}

#define REQUIRE_UNCHANGED(dir, before)                                          \
  do {                                                                          \
    const auto after_ = snapshot(dir);                                          \
    INFO("before: " << names(before) << "\nafter:  " << names(after_));         \
    REQUIRE(after_ == (before));                                                \
  } while (0)

// One failed run: exit `code`, exactly one message line from benchmark_driver, and every needle in it.
void expect_failure(const ProcessResult& r, int code, const std::vector<std::string>& needles) {
  INFO("exit " << r.exit_code << "\nstderr:\n" << r.err << "stdout:\n" << r.out);
  REQUIRE(r.exit_code == code);
  const auto lines = message_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("benchmark_driver: ", 0) == 0);
  for (const auto& needle : needles) CHECK_THAT(lines[0], Catch::Contains(needle));
  // A failed run prints no statistics as if it had worked.
  CHECK(r.out.find("CORE::TIME::WALL") == std::string::npos);
}

std::string join(const std::vector<std::string>& words) {
  std::string all;
  for (const auto& w : words) all += (all.empty() ? "" : " ") + w;
  return all;
}

ProcessResult driver(const std::vector<std::string>& args) { return run_tool("benchmark_driver", args); }

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

void append_bytes(const fs::path& path, std::size_t n) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  const std::string junk(n, '\x5a');
  out.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  REQUIRE(out.good());
}

std::string ini_text(const std::string& name, int type, std::uint64_t vertices, std::uint64_t edges) {
  return "[graph]\nname=" + name + "\ntype=" + std::to_string(type) + "\nvertices=" + std::to_string(vertices) +
         "\nedges=" + std::to_string(edges) + "\n";
}

// A small valid graph: 1024 vertices, 5000 weighted edges, in its own directory.
struct SmallGraph {
  TempDir dir;
  fs::path ini = write_graph(dir.path(), "g", random_edges(1024, 5000, 7), 1024);
  std::string g() const { return (dir / "g").string(); }
};

bool still_running(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) == 0;
}

// ---- the graph files ----------------------------------------------------------------------------

TEST_CASE("driver errors: a missing .ini is named, with and without the .ini suffix", "[errors]") {
  TempDir dir;
  const auto before = snapshot(dir.path());
  const std::string expected = (dir / "nope.ini").string();
  for (const std::string& arg : {(dir / "nope").string(), (dir / "nope.ini").string()}) {
    INFO("-g " << arg);
    expect_failure(driver({"-g", arg, "-b", "pagerank"}), kExitError, {expected, "does not exist"});
  }
  // An .ini that is a directory.
  fs::create_directory(dir / "d.ini");
  expect_failure(driver({"-g", (dir / "d").string(), "-b", "pagerank"}), kExitError, {(dir / "d.ini").string()});
  fs::remove(dir / "d.ini");
  REQUIRE_UNCHANGED(dir.path(), before);
}

TEST_CASE("driver errors: a missing edge file is named", "[errors]") {
  TempDir dir;
  write_text(dir / "g.ini", ini_text("absent", 1, 10, 3));
  const auto before = snapshot(dir.path());
  expect_failure(driver({"-g", (dir / "g").string(), "-b", "pagerank"}), kExitError,
                 {(dir / "absent").string(), "does not exist"});
  REQUIRE_UNCHANGED(dir.path(), before);
}

TEST_CASE("driver errors: an edge file with a partial record names its size and the trailing bytes", "[errors]") {
  TempDir dir;
  write_graph(dir.path(), "w", random_edges(50, 100, 1), 50, EdgeFileType::kWeighted);
  append_bytes(dir / "w", 5);
  write_graph(dir.path(), "u", random_edges(50, 100, 2), 50, EdgeFileType::kUnweighted);
  append_bytes(dir / "u", 3);
  const auto before = snapshot(dir.path());
  expect_failure(driver({"-g", (dir / "w").string(), "-b", "pagerank"}), kExitError,
                 {(dir / "w").string(), "1205 bytes", "5 trailing bytes"});
  expect_failure(driver({"-g", (dir / "u").string(), "-b", "cc", "-k", "4"}), kExitError,
                 {(dir / "u").string(), "803 bytes", "3 trailing bytes"});
  REQUIRE_UNCHANGED(dir.path(), before);
}

TEST_CASE("driver errors: edges= different from the file's record count names both numbers", "[errors]") {
  TempDir dir;
  write_graph(dir.path(), "g", random_edges(50, 100, 3), 50);
  for (const std::uint64_t claimed : {101ULL, 99ULL, 0ULL}) {
    write_text(dir / "g.ini", ini_text("g", 1, 50, claimed));
    const auto before = snapshot(dir.path());
    INFO("edges=" << claimed);
    expect_failure(driver({"-g", (dir / "g").string(), "-b", "pagerank"}), kExitError,
                   {"edges=" + std::to_string(claimed), "100 records", (dir / "g").string()});
    REQUIRE_UNCHANGED(dir.path(), before);
  }
}

TEST_CASE("driver errors: an id >= vertices names the first bad record and the value", "[errors]") {
  TempDir dir;
  std::vector<Edge> edges;
  for (std::uint32_t i = 0; i < 1000; ++i) edges.push_back(Edge{i % 100, (i * 7) % 100, 1.0F});
  std::vector<Edge> bad_src = edges;
  bad_src[537].src = 150;
  bad_src[900].dst = 777;  // a later one must not be the one reported
  std::vector<Edge> bad_dst = edges;
  bad_dst[612].dst = 4000000000U;
  bad_dst[613].src = 100;
  write_graph(dir.path(), "badsrc", bad_src, 100);
  write_graph(dir.path(), "baddst", bad_dst, 100, EdgeFileType::kUnweighted);
  const auto before = snapshot(dir.path());
  struct Bad {
    const char* graph;
    std::vector<std::string> needles;
  };
  const Bad cases[] = {
      {"badsrc", {"record 537", "source id 150", "100 vertices", "byte offset 6444"}},
      {"baddst", {"record 612", "destination id 4000000000", "100 vertices", "byte offset 4896"}},
  };
  for (const Bad& bad : cases) {
    for (const char* algorithm : {"pagerank", "range_check", "cc"}) {
      for (const std::vector<std::string>& extra :
           {std::vector<std::string>{}, {"-k", "4"}, {"-k", "4", "-p", "4"}, {"-p", "3"}}) {
        std::vector<std::string> args{"-g", (dir / bad.graph).string(), "-b", algorithm,
                                      "--output", (dir / "out.txt").string(),
                                      "--stats_json", (dir / "stats.json").string()};
        args.insert(args.end(), extra.begin(), extra.end());
        INFO(bad.graph << " -b " << algorithm << " " << join(extra));
        std::vector<std::string> needles = bad.needles;
        needles.push_back((dir / bad.graph).string());
        expect_failure(driver(args), kExitError, needles);
        // No output, no temporary output, no scratch (it defaults to the edge file's directory).
        REQUIRE_UNCHANGED(dir.path(), before);
      }
    }
  }
}

TEST_CASE("driver errors: a negative weight for sssp names the record and the weight", "[errors]") {
  TempDir dir;
  std::vector<Edge> edges;
  for (std::uint32_t i = 0; i < 1000; ++i) edges.push_back(Edge{i % 100, (i * 7) % 100, 1.0F});
  edges[321].weight = -2.5F;
  write_graph(dir.path(), "w", edges, 100);
  const auto before = snapshot(dir.path());
  for (const char* k : {"1", "4"}) {
    INFO("-k " << k);
    expect_failure(driver({"-g", (dir / "w").string(), "-b", "sssp", "-k", k, "--output", (dir / "out.txt").string()}),
                   kExitError, {"record 321", "weight -2.5", "non-negative"});
    REQUIRE_UNCHANGED(dir.path(), before);
  }
}

// ---- the command line ---------------------------------------------------------------------------

TEST_CASE("driver errors: unknown and not-yet-built algorithms", "[errors]") {
  SmallGraph graph;
  const auto before = snapshot(graph.dir.path());
  std::vector<std::string> listed{"'nonsense'", "available"};
  for (const auto& [name, _] : algorithm_registry()) listed.push_back(name);
  expect_failure(driver({"-g", graph.g(), "-b", "nonsense"}), kExitUsage, listed);
  // Every algorithm of the contract (CONTRACT.md §4) is registered.
  for (const char* name : {"pagerank", "pagerank_ddf", "bfs", "bfs_forest", "sssp", "sssp_forest", "cc", "wcc", "scc",
                           "mis", "mcst", "spmv", "conductance", "degree_cnt", "range_check", "reverse",
                           "triangle_counting", "hyperanf", "belief_propagation", "bc", "checkbip", "als"}) {
    INFO("-b " << name);
    CHECK(algorithm_registry().count(name) == 1);
  }
  // The graph is not needed to know the name is wrong.
  expect_failure(driver({"-g", (graph.dir / "nope").string(), "-b", "nonsense"}), kExitUsage, {"'nonsense'"});
  REQUIRE_UNCHANGED(graph.dir.path(), before);
}

TEST_CASE("driver errors: malformed option values are usage errors naming the option and value", "[errors]") {
  SmallGraph graph;
  const auto before = snapshot(graph.dir.path());
  struct Bad {
    std::vector<std::string> args;
    int code;
    std::vector<std::string> needles;
  };
  const Bad cases[] = {
      {{"-b", "pagerank", "-p", "0"}, kExitUsage, {"--processors", "0"}},
      {{"-b", "pagerank", "-p", "abc"}, kExitUsage, {"--processors", "'abc'"}},
      {{"-b", "pagerank", "-p", "-1"}, kExitUsage, {"--processors", "-1"}},
      {{"-b", "pagerank", "-p"}, kExitUsage, {"--processors"}},
      {{"-b", "pagerank", "--physical_memory", "12Q"}, kExitUsage, {"--physical_memory", "'12Q'"}},
      {{"-b", "pagerank", "--physical_memory", "99999999999999999999"}, kExitUsage, {"--physical_memory"}},
      {{"-b", "pagerank", "--read_chunk", "1000"}, kExitUsage, {"--read_chunk", "1000", "4K"}},
      {{"-b", "pagerank", "--write_chunk", "5000"}, kExitUsage, {"--write_chunk", "5000"}},
      {{"-b", "pagerank", "--io_depth", "0"}, kExitUsage, {"--io_depth", "0"}},
      {{"-b", "pagerank", "--io_engine", "magic"}, kExitUsage, {"--io_engine", "magic"}},
      {{"-b", "pagerank", "-k", "0"}, kExitUsage, {"--partitions"}},
      {{"-b", "pagerank", "-k", "2000"}, kExitUsage, {"2000", "1024"}},
      {{"-b", "pagerank", "--pagerank::niters", "x"}, kExitUsage, {"--pagerank::niters", "'x'"}},
      {{"-b", "pagerank", "--hyperanf::epsilon", "abc"}, kExitUsage, {"--hyperanf::epsilon", "abc"}},
      {{"-b", "pagerank", "--frobnicate"}, kExitUsage, {"frobnicate"}},
      {{"-b", "pagerank", "--frobnicate", "1"}, kExitUsage, {"frobnicate"}},
      {{"-b", "pagerank", "stray"}, kExitUsage, {"'stray'"}},
      {{"-b", "pagerank", "-b", "bfs"}, kExitUsage, {"--benchmark"}},
      {{"-b", "bfs", "--bfs::root", "999999999"}, kExitUsage, {"--bfs::root", "999999999", "1024 vertices"}},
      {{"-b", "bfs", "--bfs::root", "1024"}, kExitUsage, {"--bfs::root", "1024", "1024 vertices"}},
      {{"-b", "sssp", "--sssp::source", "5000"}, kExitUsage, {"--sssp::source", "5000", "1024 vertices"}},
  };
  for (const Bad& bad : cases) {
    std::vector<std::string> args{"-g", graph.g()};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    INFO("options: " << join(bad.args));
    expect_failure(driver(args), bad.code, bad.needles);
  }
  expect_failure(driver({"-b", "pagerank"}), kExitUsage, {"--graph"});
  REQUIRE_UNCHANGED(graph.dir.path(), before);
}

TEST_CASE("driver errors: --help, --config and size suffixes", "[errors]") {
  SmallGraph graph;
  TempDir configs;
  const auto before = snapshot(graph.dir.path());

  const ProcessResult help = driver({"--help"});
  CHECK(help.exit_code == kExitOk);
  CHECK_THAT(help.out, Catch::Contains("--read_chunk") && Catch::Contains("--work_dir") && Catch::Contains("--physical_memory"));
  CHECK(message_lines(help.err).empty());

  write_text(configs / "two.cfg", "# preset\nprocessors = 2\n");
  const ProcessResult from_file = driver({"-g", graph.g(), "-b", "pagerank", "--config", (configs / "two.cfg").string()});
  REQUIRE(from_file.exit_code == kExitOk);
  CHECK(stat_value(from_file.out, "CORE::CONFIG::PROCESSORS") == "2");
  const ProcessResult overridden =
      driver({"-g", graph.g(), "-b", "pagerank", "--config", (configs / "two.cfg").string(), "-p", "3"});
  REQUIRE(overridden.exit_code == kExitOk);
  CHECK(stat_value(overridden.out, "CORE::CONFIG::PROCESSORS") == "3");

  write_text(configs / "unknown.cfg", "processors = 2\nfrobnicate = 1\n");
  expect_failure(driver({"-g", graph.g(), "-b", "pagerank", "--config", (configs / "unknown.cfg").string()}), kExitUsage,
                 {"frobnicate", (configs / "unknown.cfg").string()});
  write_text(configs / "garbled.cfg", "processors 2\n");
  expect_failure(driver({"-g", graph.g(), "-b", "pagerank", "--config", (configs / "garbled.cfg").string()}), kExitUsage,
                 {"processors 2", (configs / "garbled.cfg").string()});
  write_text(configs / "badvalue.cfg", "processors = many\n");
  expect_failure(driver({"-g", graph.g(), "-b", "pagerank", "--config", (configs / "badvalue.cfg").string()}), kExitUsage,
                 {"--processors", "'many'"});
  expect_failure(driver({"-g", graph.g(), "-b", "pagerank", "--config", (configs / "absent.cfg").string()}), kExitUsage,
                 {(configs / "absent.cfg").string()});

  const ProcessResult suffixed = driver({"-g", graph.g(), "-b", "pagerank", "--physical_memory", "256M"});
  const ProcessResult plain = driver({"-g", graph.g(), "-b", "pagerank", "--physical_memory", "268435456"});
  REQUIRE(suffixed.exit_code == kExitOk);
  REQUIRE(plain.exit_code == kExitOk);
  CHECK(stat_value(suffixed.out, "CORE::CONFIG::PHYSICAL_MEMORY") == "268435456");
  CHECK(stat_value(plain.out, "CORE::CONFIG::PHYSICAL_MEMORY") == "268435456");
  REQUIRE_UNCHANGED(graph.dir.path(), before);
}

// ---- where the run writes -----------------------------------------------------------------------

TEST_CASE("driver errors: a missing or unusable work directory is named", "[errors]") {
  SmallGraph graph;
  write_text(graph.dir / "plainfile", "not a directory\n");
  const auto before = snapshot(graph.dir.path());
  // Checked up front, also when this graph would need no scratch space (K = 1), and when another
  // --work_dir is fine.
  TempDir good;
  for (const std::string& work : {std::string("/nonexistent/x"), (graph.dir / "plainfile" / "sub").string(),
                                  (graph.dir / "plainfile").string()}) {
    for (const char* k : {"4", "1"}) {
      INFO("--work_dir " << work << " -k " << k);
      expect_failure(driver({"-g", graph.g(), "-b", "pagerank", "-k", k, "--work_dir", good.path().string(), "--work_dir",
                             work, "--output", (graph.dir / "out.txt").string()}),
                     kExitError, {"--work_dir", work});
      REQUIRE_UNCHANGED(graph.dir.path(), before);
    }
  }
  CHECK(fs::is_empty(good.path()));
  // A directory in which nothing can be created.
  for (const std::string& work : {std::string("/proc/self"), std::string("/proc")}) {
    INFO("--work_dir " << work);
    expect_failure(driver({"-g", graph.g(), "-b", "pagerank", "-k", "4", "--work_dir", work, "--output",
                           (graph.dir / "out.txt").string()}),
                   kExitError, {work + "/edgestream-"});
    REQUIRE_UNCHANGED(graph.dir.path(), before);
  }
  // The .ini's [disk] volumes are scratch volumes too.
  TempDir other;
  write_graph(other.path(), "v", random_edges(1024, 2000, 9), 1024);
  write_text(other / "v.ini", ini_text("v", 1, 1024, 2000) + "[disk]\ncount=1\nmnt0=/nonexistent/volume0\n");
  const auto other_before = snapshot(other.path());
  expect_failure(driver({"-g", (other / "v").string(), "-b", "pagerank", "-k", "4"}), kExitError, {"/nonexistent/volume0"});
  REQUIRE_UNCHANGED(other.path(), other_before);
}

TEST_CASE("driver errors: --output, --stats_json and --timeline that cannot be written fail before the run", "[errors]") {
  SmallGraph graph;
  write_text(graph.dir / "plainfile", "x\n");
  const auto before = snapshot(graph.dir.path());
  const std::string missing = (graph.dir / "missing" / "out.txt").string();
  struct Bad {
    const char* option;
    std::string path;
    int code;
    std::vector<std::string> needles;
  };
  const Bad cases[] = {
      {"--output", missing, kExitError, {"--output", missing, "does not exist"}},
      {"--output", (graph.dir / "plainfile" / "out.txt").string(), kExitError, {"--output", "plainfile"}},
      {"--output", graph.dir.path().string(), kExitUsage, {"--output", "directory"}},
      {"--output", graph.ini.string(), kExitUsage, {"--output", "input"}},
      {"--output", graph.g(), kExitUsage, {"--output", "input"}},
      {"--output", "", kExitUsage, {"--output"}},
      {"--stats_json", missing, kExitError, {"--stats_json", missing}},
      {"--stats_json", graph.ini.string(), kExitUsage, {"--stats_json", "input"}},
      {"--stats_json", (graph.dir / "same.txt").string(), kExitUsage, {"--output", "--stats_json", "same file"}},
      {"--timeline", missing, kExitError, {"--timeline", missing}},
      {"--timeline", graph.ini.string(), kExitUsage, {"--timeline", "input"}},
      {"--timeline", (graph.dir / "same.txt").string(), kExitUsage, {"--output", "--timeline", "same file"}},
  };
  for (const Bad& bad : cases) {
    INFO(bad.option << " " << bad.path);
    std::vector<std::string> args{"-g", graph.g(), "-b", "pagerank", "-k", "4", bad.option, bad.path};
    if (std::string(bad.option) != "--output") {
      args.push_back("--output");
      args.push_back((graph.dir / "same.txt").string());
    }
    const ProcessResult r = driver(args);
    expect_failure(r, bad.code, bad.needles);
    CHECK(r.out.empty());  // refused before the run started
    REQUIRE_UNCHANGED(graph.dir.path(), before);
  }
}

TEST_CASE("driver errors: --output never replaces a device, FIFO or symlink; --stats_json writes through them", "[errors]") {
  SmallGraph graph;
  TempDir nodes;
  REQUIRE(mkfifo((nodes / "fifo").c_str(), 0644) == 0);
  fs::create_symlink("/proc/self/fd/1", nodes / "stdout");
  write_text(nodes / "real.json", "");
  fs::create_symlink(nodes / "real.json", nodes / "link.json");
  // A character device like /dev/null (needs root; skipped otherwise).
  const bool have_device = mknod((nodes / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
  std::vector<std::string> targets{"fifo", "stdout", "link.json"};
  if (have_device) targets.push_back("null");
  for (const std::string& name : targets) {
    INFO("--output " << name);
    const auto type_before = fs::symlink_status(nodes / name).type();
    expect_failure(driver({"-g", graph.g(), "-b", "pagerank", "--output", (nodes / name).string()}), kExitUsage,
                   {"--output", name, "regular file"});
    CHECK(fs::symlink_status(nodes / name).type() == type_before);
  }
  // --stats_json to /dev/stdout-like targets is common: written in place, the link kept.
  const ProcessResult r = driver({"-g", graph.g(), "-b", "pagerank", "--stats_json", (nodes / "link.json").string()});
  REQUIRE(r.exit_code == kExitOk);
  CHECK(fs::is_symlink(nodes / "link.json"));
  CHECK(slurp(nodes / "real.json").rfind("{\"graph\":", 0) == 0);
  const ProcessResult to_stdout = driver({"-g", graph.g(), "-b", "pagerank", "--stats_json", (nodes / "stdout").string()});
  REQUIRE(to_stdout.exit_code == kExitOk);
  CHECK_THAT(to_stdout.out, Catch::Contains("{\"graph\":"));
  CHECK(fs::is_symlink(nodes / "stdout"));
  if (have_device) {
    REQUIRE(driver({"-g", graph.g(), "-b", "pagerank", "--stats_json", (nodes / "null").string()}).exit_code == kExitOk);
    CHECK(fs::is_character_file(nodes / "null"));
  }
}

TEST_CASE("driver errors: a budget too small fails at once and names --physical_memory", "[errors]") {
  TempDir dir;
  write_graph(dir.path(), "h", random_edges(100000, 20000, 5), 100000);
  const auto before = snapshot(dir.path());
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"-k", "4"}}) {
    std::vector<std::string> args{"-g", (dir / "h").string(), "-b", "pagerank", "--physical_memory", "1M"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto start = Clock::now();
    const ProcessResult r = driver(args);
    CHECK(Clock::now() - start < std::chrono::seconds(5));
    expect_failure(r, kExitError, {"--physical_memory", "too small"});
  }
  REQUIRE_UNCHANGED(dir.path(), before);
}

// ---- injected disk errors (in-process) ----------------------------------------------------------

fi::Rule rule(fi::Op op, const std::string& path_contains, std::uint64_t after_bytes, int error,
             std::size_t max_transfer = 0, int times = -1) {
  fi::Rule r;
  r.op = op;
  r.path_contains = path_contains;
  r.after_bytes = after_bytes;
  r.error = error;
  r.max_transfer = max_transfer;
  r.times = times;
  return r;
}

struct FaultCase {
  const char* what;
  fi::Rule rule;
  std::vector<std::string> extra;
  std::vector<std::string> needles;
};

void run_fault_case(const FaultCase& c, const fs::path& graph_dir, const std::string& g, const fs::path& work) {
  const auto graph_before = snapshot(graph_dir);
  for (const char* engine : {"uring", "sync"}) {
    INFO(c.what << " with --io_engine " << engine);
    std::vector<std::string> args{"-g", g, "-b", "pagerank", "--work_dir", work.string(), "--write_chunk", "64K",
                                  "--read_chunk", "64K", "--io_engine", engine, "--output", (graph_dir / "out.txt").string()};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    ProcessResult r;
    std::uint64_t injected = 0;
    {
      FaultGuard rules({c.rule});
      r = run_driver_in_process(args);
      injected = fi::injected_count();
    }
    CHECK(injected > 0);
    std::vector<std::string> needles = c.needles;
    // Errors on scratch streams name the file inside the run's scratch directory.
    if (c.rule.path_contains != g) needles.push_back(work.string() + "/edgestream-");
    expect_failure(r, kExitError, needles);
    INFO("work dir: " << names(snapshot(work)));
    CHECK(fs::is_empty(work));
    REQUIRE_UNCHANGED(graph_dir, graph_before);
  }
}

TEST_CASE("driver errors: injected ENOSPC and EIO end the run cleanly", "[errors]") {
  TempDir graph_dir;
  TempDir work;
  // 16384 vertices in 4 partitions: about 3/4 of PageRank's updates go to other partitions' streams.
  write_graph(graph_dir.path(), "r", random_edges(1 << 14, 200000, 11), 1 << 14);
  const std::string g = (graph_dir / "r").string();
  const std::string input = g;  // the edge file itself
  const std::vector<FaultCase> cases = {
      {"ENOSPC writing updates", rule(fi::Op::kWrite, "updates", 64 * 1024, ENOSPC), {"-k", "4"}, {"No space left", "updates"}},
      {"ENOSPC writing the first update", rule(fi::Op::kWrite, "updates", 0, ENOSPC), {"-k", "4"}, {"No space left", "updates"}},
      {"ENOSPC writing edge streams", rule(fi::Op::kWrite, "edges.", 256 * 1024, ENOSPC), {"-k", "4"}, {"No space left", "edges."}},
      {"ENOSPC writing vertex state", rule(fi::Op::kWrite, "vertices", 0, ENOSPC), {"-k", "4"}, {"No space left", "vertices"}},
      // The on-disk grid's staging files (written while the next blocks are encoded): the first
      // write, and one while others are in flight.
      {"ENOSPC writing grid staging", rule(fi::Op::kWrite, "grid_group.", 0, ENOSPC),
       {"-k", "1", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "256K"}, {"No space left", "grid_group."}},
      {"ENOSPC writing grid staging later", rule(fi::Op::kWrite, "grid_group.", 256 * 1024, ENOSPC),
       {"-k", "1", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "256K"}, {"No space left", "grid_group."}},
      {"EIO reading edge streams", rule(fi::Op::kRead, "edges.", 128 * 1024, EIO), {"-k", "4"}, {"Input/output error", "edges."}},
      {"EIO reading updates", rule(fi::Op::kRead, "updates", 0, EIO), {"-k", "4"}, {"Input/output error", "updates"}},
      {"EIO reading the input (split pass)", rule(fi::Op::kRead, input, 512 * 1024, EIO), {"-k", "4"}, {"Input/output error", input}},
      {"EIO reading the input (K=1)", rule(fi::Op::kRead, input, 512 * 1024, EIO), {"-k", "1"}, {"Input/output error", input}},
      {"EIO reading the input at once", rule(fi::Op::kRead, input, 0, EIO), {}, {"Input/output error", input}},
  };
  for (const FaultCase& c : cases) run_fault_case(c, graph_dir.path(), g, work.path());
}

TEST_CASE("driver errors: transient EINTR and short transfers do not change the result", "[errors]") {
  TempDir graph_dir;
  TempDir work;
  write_graph(graph_dir.path(), "r", random_edges(1 << 12, 30000, 12), 1 << 12);
  const std::string g = (graph_dir / "r").string();
  const std::vector<std::string> base{"-g", g, "-b", "pagerank", "-k", "4", "--work_dir", work.path().string(),
                                      "--write_chunk", "64K", "--read_chunk", "64K"};
  auto with_output = [&](const std::string& name) {
    std::vector<std::string> args = base;
    args.push_back("--output");
    args.push_back((graph_dir / name).string());
    return args;
  };
  const ProcessResult clean = run_driver_in_process(with_output("clean.txt"));
  REQUIRE(clean.exit_code == kExitOk);
  int n = 0;
  const std::vector<fi::Rule> transient = {rule(fi::Op::kRead, "", 0, EINTR, 0, 5), rule(fi::Op::kWrite, "", 0, EINTR, 0, 5),
                                           rule(fi::Op::kRead, "", 0, 0, 3 * 4096, 20),
                                           rule(fi::Op::kWrite, "", 0, 0, 4096 + 12, 20)};
  for (const fi::Rule& glitch : transient) {
    const std::string name = "faulty" + std::to_string(n++) + ".txt";
    INFO(name);
    ProcessResult r;
    {
      FaultGuard rules({glitch});
      r = run_driver_in_process(with_output(name));
      CHECK(fi::injected_count() > 0);
    }
    INFO(r.err);
    REQUIRE(r.exit_code == kExitOk);
    CHECK(slurp(graph_dir / name) == slurp(graph_dir / "clean.txt"));
    CHECK(fs::is_empty(work.path()));
  }
}

// ---- signals and concurrent runs ----------------------------------------------------------------

TEST_CASE("driver errors: SIGTERM and SIGINT mid-run exit 128+N and leave nothing behind", "[errors]") {
  TempDir graph_dir;
  write_graph(graph_dir.path(), "big", random_edges(1 << 17, 1 << 20, 13), 1 << 17, EdgeFileType::kUnweighted);
  const auto graph_before = snapshot(graph_dir.path());
  for (const int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    TempDir work;
    TempDir out_dir;
    TempDir capture;
    const pid_t pid = spawn_driver({"-g", (graph_dir / "big").string(), "-b", "pagerank", "--pagerank::niters", "100000",
                                    "-k", "4", "--work_dir", work.path().string(), "--output",
                                    (out_dir / "ranks.txt").string(), "--stats_json", (out_dir / "stats.json").string()},
                                   capture / "out", capture / "err");
    // Wait until the run has its scratch directory (it is mid-run), then a little longer.
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (fs::is_empty(work.path()) && still_running(pid) && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    REQUIRE(still_running(pid));
    CHECK_FALSE(fs::is_empty(work.path()));
    REQUIRE(kill(pid, sig) == 0);
    const auto sent = Clock::now();
    const int code = wait_exit(pid, std::chrono::seconds(10));
    const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
    const std::string err = slurp(capture / "err");
    INFO("exit " << code << " after " << seconds << " s; stderr: " << err);
    CHECK(code == 128 + sig);
    CHECK(seconds < 5.0);
    CHECK(message_lines(err).size() == 1);
    CHECK_THAT(err, Catch::Contains("signal " + std::to_string(sig)));
    INFO("work dir: " << names(snapshot(work.path())) << "; output dir: " << names(snapshot(out_dir.path())));
    CHECK(fs::is_empty(work.path()));
    CHECK(fs::is_empty(out_dir.path()));
  }
  REQUIRE_UNCHANGED(graph_dir.path(), graph_before);
}

TEST_CASE("driver errors: SIGTERM while blocked opening the graph exits 143", "[errors]") {
  TempDir dir;
  REQUIRE(mkfifo((dir / "fifo.ini").c_str(), 0644) == 0);  // open() blocks until a writer comes
  TempDir capture;
  const pid_t pid = spawn_driver({"-g", (dir / "fifo").string(), "-b", "pagerank"}, capture / "out", capture / "err");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(still_running(pid));
  REQUIRE(kill(pid, SIGTERM) == 0);
  const int code = wait_exit(pid, std::chrono::seconds(5));
  const std::string err = slurp(capture / "err");
  INFO("stderr: " << err);
  CHECK(code == 128 + SIGTERM);
  CHECK(message_lines(err).size() == 1);
  CHECK_THAT(err, Catch::Contains("signal 15"));
}

// Clears the (process-wide) cancellation request however the test ends.
class CancelRequest {
 public:
  explicit CancelRequest(int sig) { set_cancel_signal_for_testing(sig); }
  ~CancelRequest() { set_cancel_signal_for_testing(0); }
  CancelRequest(const CancelRequest&) = delete;
  CancelRequest& operator=(const CancelRequest&) = delete;
};

TEST_CASE("driver errors: a stop request is honoured at every partition count (in-process)", "[errors]") {
  TempDir graph_dir;
  TempDir work;
  TempDir out_dir;
  write_graph(graph_dir.path(), "r", random_edges(1 << 12, 20000, 15), 1 << 12);
  const auto graph_before = snapshot(graph_dir.path());
  for (const char* k : {"1", "4"}) {
    for (const char* algorithm : {"pagerank", "cc", "range_check"}) {
      INFO("-b " << algorithm << " -k " << k);
      ProcessResult r;
      {
        CancelRequest stop(SIGINT);
        r = run_driver_in_process({"-g", (graph_dir / "r").string(), "-b", algorithm, "-k", k, "--work_dir",
                                   work.path().string(), "--output", (out_dir / "out.txt").string(), "--stats_json",
                                   (out_dir / "stats.json").string()});
      }
      expect_failure(r, 128 + SIGINT, {"signal 2"});
      CHECK(fs::is_empty(work.path()));
      CHECK(fs::is_empty(out_dir.path()));
    }
  }
  REQUIRE_UNCHANGED(graph_dir.path(), graph_before);
}

TEST_CASE("driver errors: two runs in the same work directory at once both succeed", "[errors]") {
  TempDir graph_dir;
  TempDir work;
  TempDir out_dir;
  write_graph(graph_dir.path(), "r", random_edges(1 << 14, 200000, 14), 1 << 14);
  const auto graph_before = snapshot(graph_dir.path());
  TempDir capture[2];
  pid_t pids[2];
  for (int i = 0; i < 2; ++i) {
    pids[i] = spawn_driver({"-g", (graph_dir / "r").string(), "-b", "pagerank", "--pagerank::niters", "10", "-k", "4",
                            "--work_dir", work.path().string(), "--output",
                            (out_dir / ("ranks" + std::to_string(i) + ".txt")).string(), "--stats_json",
                            (out_dir / ("stats" + std::to_string(i) + ".json")).string()},
                           capture[i] / "out", capture[i] / "err");
  }
  for (int i = 0; i < 2; ++i) {
    const int code = wait_exit(pids[i], std::chrono::seconds(60));
    INFO("run " << i << " stderr: " << slurp(capture[i] / "err"));
    CHECK(code == kExitOk);
  }
  const std::string first = slurp(out_dir / "ranks0.txt");
  CHECK(std::count(first.begin(), first.end(), '\n') == (1 << 14));
  CHECK(first == slurp(out_dir / "ranks1.txt"));
  // Exactly the two outputs and the two statistics files; no temporaries.
  const auto outputs = snapshot(out_dir.path());
  INFO("output dir: " << names(outputs));
  CHECK(outputs.size() == 4);
  CHECK(slurp(out_dir / "stats0.json").rfind("{\"graph\":", 0) == 0);
  INFO("work dir: " << names(snapshot(work.path())));
  CHECK(fs::is_empty(work.path()));
  REQUIRE_UNCHANGED(graph_dir.path(), graph_before);
}

// ---- limits on threads ---------------------------------------------------------------------------

// The pids controller's directory (cgroup v1 or v2) where this process may make a child group, or
// "" (not root, no pids controller).
fs::path pids_cgroup_root() {
  for (const fs::path& root : {fs::path("/sys/fs/cgroup/pids"), fs::path("/sys/fs/cgroup")}) {
    if (!fs::exists(root / "cgroup.procs")) continue;
    if (root.filename() != "pids" && slurp(root / "cgroup.controllers").find("pids") == std::string::npos) continue;
    if (access(root.c_str(), W_OK) == 0) return root;
  }
  return {};
}

// A child cgroup of the pids controller with its own pids.max, removed when destroyed (its
// processes have exited by then: each run below is waited for).
class PidsGroup {
 public:
  explicit PidsGroup(const fs::path& root) : dir_(root / ("edgestream-test-" + std::to_string(getpid()))) {
    std::error_code ec;
    fs::create_directory(dir_, ec);
    ok_ = !ec && fs::exists(dir_ / "pids.max");
  }
  PidsGroup(const PidsGroup&) = delete;
  PidsGroup& operator=(const PidsGroup&) = delete;
  ~PidsGroup() { rmdir(dir_.c_str()); }
  bool ok() const { return ok_; }
  bool set_max(int tasks) const {
    std::ofstream f(dir_ / "pids.max");
    f << tasks;
    f.close();
    return static_cast<bool>(f);
  }
  // benchmark_driver with `args`, started inside the group (a shell moves itself there, then execs it).
  ProcessResult run_driver(const std::vector<std::string>& args) const {
    std::vector<std::string> shell_args = {"-c", "echo $$ > \"" + (dir_ / "cgroup.procs").string() + "\" && exec \"$0\" \"$@\"",
                                           tool_path("benchmark_driver")};
    shell_args.insert(shell_args.end(), args.begin(), args.end());
    return run_program("/bin/sh", shell_args);
  }

 private:
  fs::path dir_;
  bool ok_ = false;
};

TEST_CASE("driver errors: a thread the system refuses is a clear error or a run without it, never a crash", "[errors]") {
  // A cgroup's pids.max counts threads: with 1, the driver's first thread is its only one. Without
  // the handling, std::system_error from std::thread or std::async ended the run in std::terminate
  // (SIGABRT): the pool's worker, the on-disk grid's window reads, --timeline's device sampler.
  if (kSanitized) {
    WARN("SKIP: the sanitizer runtimes start threads of their own (TSan's background thread, LSan's tracer at exit)");
    return;
  }
  const fs::path root = pids_cgroup_root();
  if (root.empty()) {
    WARN("SKIP: no writable pids cgroup controller (needs root and /sys/fs/cgroup/pids or cgroup v2's pids)");
    return;
  }
  PidsGroup group(root);
  if (!group.ok()) {
    WARN("SKIP: cannot make a child group under " << root.string());
    return;
  }
  SmallGraph graph;
  TempDir work;
  const auto before = snapshot(graph.dir.path());
  for (const int tasks : {1, 2, 3}) {
    for (const char* threads : {"1", "2"}) {
      INFO("pids.max " << tasks << ", -p " << threads);
      REQUIRE(group.set_max(tasks));
      // sssp from the on-disk grid, streamed in small windows: every window read starts threads.
      const ProcessResult r = group.run_driver({"-g", graph.g(), "-b", "sssp", "-p", threads, "--physical_memory", "1G",
                                                "--no_edge_cache", "--disk_grid", "on", "--stream_grid", "--grid_window",
                                                "16K", "--work_dir", work.path().string(), "--verify", "--timeline",
                                                (work / "timeline.json").string()});
      INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
      // The device sampler starts first (when a thread is left for it), then the pool's workers.
      if (std::string(threads) == "2" && tasks < 3) {
        // No room for the pool's one worker: the run stops before any work, saying why.
        expect_failure(r, kExitError, {"cannot start the 1 worker thread(s)", "-p 2", "pids.max"});
      } else {
        // -p 1 needs no thread beside the main one. The window reads run without theirs (read on
        // the thread that asks for the window), and so does the sampler (totals without samples).
        REQUIRE(r.exit_code == kExitOk);
        CHECK_THAT(r.out, Catch::Contains("Verification: PASS"));
        CHECK_THAT(r.out, Catch::Contains("CORE::CONFIG::GRID_ON_DISK 1"));
        if (tasks == 1 && r.err.find("not sampled") == std::string::npos) {  // (a work dir on a block device)
          CHECK_THAT(r.err, Catch::Contains("TIMELINE devices: totals only, no samples over time"));
        }
      }
      std::error_code ec;
      fs::remove(work / "timeline.json", ec);
      INFO("work dir: " << names(snapshot(work.path())));
      CHECK(fs::is_empty(work.path()));
    }
  }
  REQUIRE_UNCHANGED(graph.dir.path(), before);
}

}  // namespace
}  // namespace edgestream::test
