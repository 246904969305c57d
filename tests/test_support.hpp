// Helpers shared by the tests: temporary directories, writing small graphs, running
// benchmark_driver (as a subprocess or in-process), reading --output files, and converting the real
// graphs of ../shared/data/real (gzip text) to the binary format at test time.
#pragma once

#include <sys/types.h>

#include <chrono>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/fault_injection.hpp"
#include "io/graph_format.hpp"

namespace edgestream::test {

/// Sanitizer builds carry tens of MiB of shadow memory: RSS budgets cannot hold there.
/// GCC defines __SANITIZE_ADDRESS__/__SANITIZE_THREAD__; clang 14 (the libFuzzer/ASan build of
/// scripts/sanitize.sh) only answers __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define EDGESTREAM_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(EDGESTREAM_TEST_SANITIZED)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

/// The whole content of a file ("" when it cannot be read).
std::string slurp(const std::filesystem::path& path);

/// XORs the byte at `offset` of `path` with `mask` in place (simulated media damage); false when the
/// file cannot be opened or is shorter. No Catch2 assertion inside: usable from fault callbacks.
bool flip_byte(const std::filesystem::path& path, std::uint64_t offset, unsigned char mask);

/// flip_byte on the file called `name` somewhere under `dir` (a run's scratch file), at `offset`,
/// counted from the end when negative (-1: the last byte); false when there is no such file or
/// the flip fails. No Catch2 assertion inside: fault callbacks run on the engine's I/O threads.
bool flip_scratch_byte(const std::filesystem::path& dir, const std::string& name, long long offset, unsigned char mask);

/// A fresh directory under the system temp dir (on the ext4 disk here, so O_DIRECT works),
/// removed with its contents when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  /// Names of the entries in the directory (not recursive).
  std::vector<std::string> entries() const;

 private:
  std::filesystem::path path_;
};

/// Writes `dir/name` (edge file) and `dir/name.ini`; returns the .ini path.
std::filesystem::path write_graph(const std::filesystem::path& dir, const std::string& name,
                                  const std::vector<Edge>& edges, std::uint64_t vertices,
                                  EdgeFileType type = EdgeFileType::kWeighted);

/// A random graph: `edges` edges with uniform endpoints (and weights in [0,1)) from `seed`.
std::vector<Edge> random_edges(std::uint64_t vertices, std::uint64_t edges, std::uint64_t seed);
/// The skewed graph of the edge-grid tests (test_edge_grid.cpp, test_grid_build.cpp): `dir/g`, 30,011
/// vertices (a count that is not a multiple of any block size), 200,000 random edges with hot low
/// ids (every third source taken mod 97, every fifth destination mod 41).
std::filesystem::path skewed_graph(const std::filesystem::path& dir);
/// The vertex count of long_in_lists_edges' graphs.
inline constexpr std::uint32_t kLongListsVertices = 30011;
/// The grid order tests' graph (test_edge_grid.cpp, test_grid_build.cpp): kLongListsVertices
/// vertices, 120,000 random edges from `seed`, every third one to one of 97 vertices (long in-edge
/// lists: a vertex's updates show their records' order).
std::vector<Edge> long_in_lists_edges(std::uint64_t seed);
/// Writes `edges` as graph "g" in `dir` and reads its description back (REQUIREs that it reads).
GraphInfo write_and_read_graph(const std::filesystem::path& dir, const std::vector<Edge>& edges, std::uint32_t vertices);
/// A symmetric version of `edges`: each edge followed by its reverse (same weight); loops dropped,
/// or (keep_loops) each kept and followed by its copy.
std::vector<Edge> with_reverses(const std::vector<Edge>& edges, bool keep_loops = false);

struct ProcessResult {
  int exit_code = -1;  // 128 + signal if killed by a signal
  std::string out;
  std::string err;
};

/// Installs fault-injection rules for one scope; the rules are always cleared when it ends.
class FaultGuard {
 public:
  explicit FaultGuard(std::vector<fault_injection::Rule> rules) { fault_injection::set_rules(std::move(rules)); }
  ~FaultGuard() { fault_injection::clear(); }
  FaultGuard(const FaultGuard&) = delete;
  FaultGuard& operator=(const FaultGuard&) = delete;
};

/// Path of a built tool ("benchmark_driver", "rmat", ...).
std::string tool_path(const std::string& name);
/// Runs a built tool with `args` (no shell), capturing stdout and stderr.
ProcessResult run_tool(const std::string& name, const std::vector<std::string>& args);
/// Runs the program at `path` (no shell, no PATH search) with `args`, capturing stdout and stderr.
ProcessResult run_program(const std::string& path, const std::vector<std::string>& args);
/// Starts the program at `path` with `args` without waiting: stdin /dev/null, stdout and stderr
/// into the files `out` and `err`. Returns the child's pid, or -1 when it cannot be started.
pid_t spawn_program(const std::string& path, const std::vector<std::string>& args, const std::filesystem::path& out,
                    const std::filesystem::path& err);
/// spawn_program for benchmark_driver; the test fails (REQUIRE) when it cannot be started.
pid_t spawn_driver(const std::vector<std::string>& args, const std::filesystem::path& out, const std::filesystem::path& err);
/// Waits for `pid` at most `timeout`: its exit code (128 + signal when killed), or -1 after killing it
/// with SIGKILL when it did not finish in time (a hang), -2 when waitpid fails.
int wait_exit(pid_t pid, std::chrono::milliseconds timeout);
/// The lines of stderr text that are not warnings (e.g. "warning: ... refuses O_DIRECT").
std::vector<std::string> message_lines(const std::string& err);
/// Runs edgestream::driver_main in this process (so fault injection applies).
ProcessResult run_driver_in_process(const std::vector<std::string>& args);
/// run_driver_in_process for a run that must succeed and verify: `args` hold --verify (REQUIRE);
/// REQUIREs exit 0 and CHECKs "Verification: PASS", with the run's stdout and stderr in the
/// message of a failure. Catch2 assertions: call it from test cases only.
ProcessResult run_driver_verified(const std::vector<std::string>& args);

/// One cell of the configuration matrices the algorithm tests sweep: -k K -p P, direct or --no_dio.
struct DriverConfig {
  std::string k;
  std::string p;
  bool direct = true;
};
/// "-k K -p P" plus " --no_dio" when buffered.
std::string describe(const DriverConfig& c);

struct DriverRun {
  ProcessResult proc;
  std::vector<std::vector<std::string>> rows;  // the --output file (read_output)
};
/// Runs benchmark_driver in this process: -g ini -b algorithm with `c`, a fresh scratch --work_dir,
/// --output to a temporary file, --read_chunk 4K --write_chunk `write_chunk`, --verify (unless
/// `verify` is false), then `extra`. REQUIREs exit 0; CHECKs "Verification: PASS" when verifying and
/// that the scratch directory is empty afterwards. Catch2 assertions: call it from test cases only.
DriverRun run_driver_config(const std::filesystem::path& ini, const std::string& algorithm, const DriverConfig& c,
                            const std::vector<std::string>& extra = {}, bool verify = true,
                            const std::string& write_chunk = "4K");

/// Parses an --output file: vertex -> the tab-separated values after the vertex id.
std::vector<std::vector<std::string>> read_output(const std::filesystem::path& path);
/// The value of a "KEY value" statistics line (e.g. "ALGORITHM::CC::COMPONENTS"), or "" if absent.
std::string stat_value(const std::string& out, const std::string& key);

/// ../shared/data/real relative to the source tree.
std::filesystem::path real_data_dir();
/// Converts shared/data/real/<file> (gzip text "src dst" lines, # comments) with the library ingest
/// code (ingest_graph: strict, ids kept) into a type 2 graph
/// in a process-wide cache directory and returns its .ini path. vertices = max id + 1.
std::filesystem::path real_graph(const std::string& file);

}  // namespace edgestream::test
