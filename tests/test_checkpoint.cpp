// Resumable runs (--checkpoint/--resume, core/checkpoint.hpp): atomic replacement of checkpoint
// files, corruption and mismatch errors, resumes equal to uninterrupted runs bit for bit, and runs
// killed with SIGKILL mid-iteration and resumed.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/checkpoint.hpp"
#include "core/cancellation.hpp"
#include "io/fault_injection.hpp"
#include "tests/test_support.hpp"


namespace fs = std::filesystem;
using namespace edgestream;
using namespace edgestream::test;

namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string state_of(const CheckpointFileReader& r) {
  std::string s(r.state_bytes(), '\0');
  REQUIRE(r.read_state(0, std::span(reinterpret_cast<std::byte*>(s.data()), s.size())).is_ok());
  return s;
}

// A small graph shared by the in-process tests (5000 vertices, 60000 random weighted edges).
fs::path small_graph() {
  static TempDir dir;
  static const fs::path ini = write_graph(dir.path(), "g", random_edges(5000, 60000, 7), 5000);
  return ini;
}

// A graph whose PageRank takes seconds out of core on this (busy, 2-core) machine: RMAT scale 16,
// 1M edges (12 MiB).
fs::path rmat_graph() {
  static TempDir dir;
  static const fs::path ini = [] {
    const fs::path name = dir / "rmat16";
    const ProcessResult r = run_tool("rmat", {"--name", name.string(), "--scale", "16", "--edges", std::to_string(16 << 16)});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return fs::path(name.string() + ".ini");
  }();
  return ini;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The lines of the driver's stdout that describe the computation (not its I/O or timing).
std::string result_lines(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  std::string kept;
  while (std::getline(in, line)) {
    if (line.rfind("ALGORITHM::", 0) == 0 || line.rfind("CORE::PHASES", 0) == 0 || line.rfind("CORE::UPDATES::", 0) == 0 ||
        line.rfind("Verification", 0) == 0) {
      kept += line + "\n";
    }
  }
  return kept;
}

// The highest complete "HEARTBEAT superstep N " in `text`, or -1.
long last_heartbeat(const std::string& text) {
  long last = -1;
  std::size_t at = 0;
  const std::string key = "HEARTBEAT superstep ";
  while ((at = text.find(key, at)) != std::string::npos) {
    at += key.size();
    // The file is read while the run writes it: a line whose number is not complete yet is skipped.
    const std::size_t end = text.find(' ', at);
    if (end == std::string::npos || end == at) break;
    last = std::stol(text.substr(at, end - at));
  }
  return last;
}

}  // namespace

TEST_CASE("A checkpoint replaces the previous one only when complete", "[checkpoint]") {
  TempDir dir;
  const std::string meta_a = "fields of A";
  const std::string state_a(100000, 'a');
  {
    auto w = CheckpointFileWriter::begin(dir.path(), state_a.size());
    REQUIRE(w.has_value());
    REQUIRE(w->append(bytes_of(state_a).subspan(0, 4000)).is_ok());
    REQUIRE(w->append(bytes_of(state_a).subspan(4000)).is_ok());
    REQUIRE(w->commit(bytes_of(meta_a)).is_ok());
  }
  auto check_a = [&] {
    auto r = CheckpointFileReader::open(dir.path());
    INFO(r.status().message());
    REQUIRE(r.has_value());
    CHECK(std::string(reinterpret_cast<const char*>(r->meta().data()), r->meta().size()) == meta_a);
    CHECK(state_of(*r) == state_a);
  };
  check_a();
  const std::string state_b(100000, 'b');
  SECTION("killed while the new state is written") {
    auto w = CheckpointFileWriter::begin(dir.path(), state_b.size());
    REQUIRE(w.has_value());
    REQUIRE(w->append(bytes_of(state_b).subspan(0, 50000)).is_ok());
    w->abandon_like_a_crash();
    CHECK(fs::exists(dir / ("checkpoint.tmp-" + std::to_string(::getpid()))));
    check_a();
  }
  SECTION("killed after the whole state, before the rename") {
    auto w = CheckpointFileWriter::begin(dir.path(), state_b.size());
    REQUIRE(w.has_value());
    REQUIRE(w->append(bytes_of(state_b)).is_ok());
    w->abandon_like_a_crash();
    check_a();
  }
  SECTION("an error (incomplete state at commit) removes the temporary and keeps the old one") {
    {
      auto w = CheckpointFileWriter::begin(dir.path(), state_b.size());
      REQUIRE(w.has_value());
      REQUIRE(w->append(bytes_of(state_b).subspan(0, 10)).is_ok());
      CHECK_FALSE(w->commit(bytes_of("B")).is_ok());
    }
    check_a();
    CHECK(dir.entries() == std::vector<std::string>{"checkpoint"});
  }
  SECTION("a complete new checkpoint replaces the old one") {
    auto w = CheckpointFileWriter::begin(dir.path(), state_b.size());
    REQUIRE(w.has_value());
    REQUIRE(w->append(bytes_of(state_b)).is_ok());
    REQUIRE(w->commit(bytes_of("B")).is_ok());
    auto r = CheckpointFileReader::open(dir.path());
    REQUIRE(r.has_value());
    CHECK(state_of(*r) == state_b);
    CHECK(dir.entries() == std::vector<std::string>{"checkpoint"});
  }
}

TEST_CASE("A damaged checkpoint is refused with an error naming the file", "[checkpoint]") {
  TempDir dir;
  const fs::path ini = small_graph();
  const fs::path ckpt = dir / "ckpt";
  const std::vector<std::string> base = {"-g", ini.string(), "-b", "pagerank", "--pagerank::niters", "6", "-k", "3",
                                         "-p", "2", "--work_dir", dir.path().string()};
  const ProcessResult first = run_driver_in_process(with(base, {"--checkpoint", ckpt.string(), "--checkpoint_every", "2"}));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(stat_value(first.out, "CORE::CHECKPOINT::WRITTEN") == "3");  // before supersteps 2, 4 and 6
  const fs::path file = ckpt / "checkpoint";
  REQUIRE(fs::exists(file));
  const std::uintmax_t size = fs::file_size(file);
  const std::vector<std::string> resume = with(base, {"--resume", ckpt.string()});
  REQUIRE(run_driver_in_process(resume).exit_code == 0);

  SECTION("one flipped byte in the vertex state") {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size - 1000));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x10);
    f.seekp(static_cast<std::streamoff>(size - 1000));
    f.write(&c, 1);
    f.close();
    const ProcessResult r = run_driver_in_process(resume);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(file.string()) != std::string::npos);
    CHECK(r.err.find("corrupt: checksum") != std::string::npos);
  }
  SECTION("one flipped byte in the header") {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20);
    f.write("\x7f", 1);
    f.close();
    const ProcessResult r = run_driver_in_process(resume);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(file.string()) != std::string::npos);
  }
  SECTION("truncated") {
    fs::resize_file(file, size - 7);
    const ProcessResult r = run_driver_in_process(resume);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(file.string()) != std::string::npos);
    CHECK(r.err.find("truncated") != std::string::npos);
  }
  SECTION("empty") {
    fs::resize_file(file, 0);
    const ProcessResult r = run_driver_in_process(resume);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("truncated") != std::string::npos);
  }
  SECTION("missing") {
    fs::remove(file);
    const ProcessResult r = run_driver_in_process(resume);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("no checkpoint in " + ckpt.string()) != std::string::npos);
  }
  // Nothing left behind in the scratch volume.
  CHECK(dir.entries() == std::vector<std::string>{"ckpt"});
}

TEST_CASE("A checkpoint of another run is refused with the difference named", "[checkpoint]") {
  TempDir dir;
  const fs::path ini = write_graph(dir.path(), "g", random_edges(5000, 60000, 7), 5000);
  const fs::path ckpt = dir / "ckpt";
  const std::vector<std::string> base = {"-g", ini.string(), "-k", "3", "-p", "2", "--work_dir", dir.path().string()};
  const ProcessResult first = run_driver_in_process(
      with(base, {"-b", "pagerank", "--pagerank::niters", "5", "--checkpoint", ckpt.string(), "--checkpoint_every", "1"}));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  auto refused = [&](const std::vector<std::string>& args, const std::string& expected) {
    const ProcessResult r = run_driver_in_process(with(args, {"--resume", ckpt.string()}));
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("cannot resume from checkpoint " + (ckpt / "checkpoint").string()) != std::string::npos);
    CHECK(r.err.find(expected) != std::string::npos);
  };
  const std::vector<std::string> pagerank5 = with(base, {"-b", "pagerank", "--pagerank::niters", "5"});
  REQUIRE(run_driver_in_process(with(pagerank5, {"--resume", ckpt.string()})).exit_code == 0);
  refused(with(base, {"-b", "pagerank", "--pagerank::niters", "7"}),
          "written by -b pagerank --pagerank::niters 5, this run is -b pagerank --pagerank::niters 7");
  refused(with(base, {"-b", "cc"}), "this run is -b cc");
  // Another graph, or this one's edge file rewritten.
  const fs::path other = write_graph(dir.path(), "other", random_edges(5000, 60000, 8), 5000);
  refused({"-g", other.string(), "-k", "3", "-p", "2", "-b", "pagerank", "--pagerank::niters", "5"}, "written for graph");
  fs::last_write_time(dir / "g", fs::last_write_time(dir / "g") + std::chrono::seconds(1));
  refused(pagerank5, "the edge file of " + ini.string() + " changed since");
  fs::last_write_time(dir / "g", fs::last_write_time(dir / "g") - std::chrono::seconds(1));
  const fs::path bigger = write_graph(dir.path(), "bigger", random_edges(6000, 60000, 7), 6000);
  refused({"-g", bigger.string(), "-k", "3", "-p", "2", "-b", "pagerank", "--pagerank::niters", "5"}, "written for graph");
  // Another partition count, thread count, codec.
  refused({"-g", ini.string(), "-k", "4", "-p", "2", "-b", "pagerank", "--pagerank::niters", "5"},
          "3 streaming partitions, this run asks for -k 4");
  refused({"-g", ini.string(), "-k", "3", "-p", "1", "-b", "pagerank", "--pagerank::niters", "5"}, "threads (-p) 2");
  refused(with(pagerank5, {"--updates_codec", "snappy"}), "--updates_codec none");
  // Another edge order: keyed segments of another size, or none (input order).
  refused(with(pagerank5, {"--segment_records", "1000"}), "records per keyed segment");
  refused(with(pagerank5, {"--segment_records", "0"}), "records per keyed segment");
}

TEST_CASE("K = 1: a resume needs the checkpoint's edge grid (its order decides the sums)", "[checkpoint]") {
  TempDir dir;
  const fs::path ini = write_graph(dir.path(), "g", random_edges(5000, 60000, 7), 5000);
  const fs::path ckpt = dir / "ckpt";
  const std::vector<std::string> base = {"-g", ini.string(), "-p", "2", "--work_dir", dir.path().string(), "-b", "pagerank",
                                         "--pagerank::niters", "5", "--output", (dir / "out.txt").string()};
  const ProcessResult first = run_driver_in_process(with(base, {"--checkpoint", ckpt.string(), "--checkpoint_every", "1"}));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  REQUIRE(stat_value(first.out, "CORE::CONFIG::EDGE_GRID") == "1");  // the in-memory grid
  const std::string expected = slurp(dir / "out.txt");
  auto resume = [&](const std::vector<std::string>& extra) { return run_driver_in_process(with(with(base, extra), {"--resume", ckpt.string()})); };
  // The on-disk grid of unsorted records scatters in the in-memory grid's order: exact.
  const ProcessResult on_disk = resume({"--no_edge_cache", "--disk_grid", "on", "--grid_codec", "none"});
  INFO(on_disk.err);
  REQUIRE(on_disk.exit_code == 0);
  CHECK(stat_value(on_disk.out, "CORE::CONFIG::GRID_ON_DISK") == "1");
  CHECK(slurp(dir / "out.txt") == expected);
  // Sorted buckets (Elias-Fano) or input order would add in another order: refused.
  for (const auto& [extra, named] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--no_edge_cache", "--disk_grid", "on", "--grid_codec", "ef"}, "sorted (Elias-Fano) grid window bytes (0: unsorted) 0 in the checkpoint"},
           {{"--no_edge_grid"}, "edge grid block shift (0: no grid)"}}) {
    const ProcessResult r = resume(extra);
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("cannot resume from checkpoint " + (ckpt / "checkpoint").string() + ": the memory plan differs: " + named) !=
          std::string::npos);
  }
}

TEST_CASE("Checkpoint options: refusals and usage errors", "[checkpoint]") {
  TempDir dir;
  const std::string ini = small_graph().string();
  for (const char* algorithm : {"mcst", "scc", "triangle_counting", "reverse", "als"}) {
    const ProcessResult r = run_driver_in_process({"-g", ini, "-b", algorithm, "--checkpoint", (dir / "c").string()});
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find(std::string("not supported for -b ") + algorithm) != std::string::npos);
  }
  ProcessResult r = run_driver_in_process({"-g", ini, "-b", "pagerank", "--checkpoint_every", "2"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("need --checkpoint") != std::string::npos);
  r = run_driver_in_process({"-g", ini, "-b", "pagerank", "--checkpoint", (dir / "c").string(), "--checkpoint_seconds", "-1"});
  CHECK(r.exit_code == 2);
  r = run_driver_in_process({"-g", ini, "-b", "pagerank", "--checkpoint", (dir / "c").string(), "--checkpoint_every", "0"});
  CHECK(r.exit_code == 2);
  r = run_driver_in_process({"-g", ini, "-b", "pagerank", "--resume", (dir / "nothing").string()});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("does not exist") != std::string::npos);
  // The default schedule (300 s) writes nothing in a short run; the directory is made.
  r = run_driver_in_process({"-g", ini, "-b", "pagerank", "--checkpoint", (dir / "d").string()});
  CHECK(r.exit_code == 0);
  CHECK(stat_value(r.out, "CORE::CHECKPOINT::WRITTEN") == "0");
  CHECK(fs::is_directory(dir / "d"));
}

TEST_CASE("Resuming from a checkpoint gives the uninterrupted run's output bit for bit", "[checkpoint]") {
  struct Case {
    std::vector<std::string> algorithm;
    std::string k;
    std::string p;
  };
  const std::vector<Case> cases = {
      {{"-b", "pagerank", "--pagerank::niters", "7"}, "1", "2"},
      {{"-b", "pagerank", "--pagerank::niters", "7", "--updates_codec", "snappy"}, "4", "2"},
      {{"-b", "pagerank_ddf"}, "3", "2"},
      {{"-b", "bfs", "--bfs::root", "3"}, "3", "1"},
      {{"-b", "bfs_forest"}, "2", "2"},
      {{"-b", "wcc"}, "3", "2"},
      {{"-b", "sssp", "--sssp::source", "5"}, "1", "1"},
      {{"-b", "sssp_forest"}, "4", "2"},
      {{"-b", "spmv"}, "3", "2"},
      {{"-b", "mis"}, "3", "2"},
      {{"-b", "checkbip"}, "2", "2"},
      {{"-b", "bc", "--bc::source", "1"}, "3", "2"},
      {{"-b", "belief_propagation", "--belief_propagation::niters", "4"}, "2", "1"},
      {{"-b", "hyperanf", "--hyperanf::rsd", "0.3"}, "3", "2"},
  };
  const fs::path ini = small_graph();
  for (const Case& c : cases) {
    TempDir dir;
    const std::vector<std::string> base =
        with(with({"-g", ini.string(), "-k", c.k, "-p", c.p, "--work_dir", dir.path().string()}, c.algorithm), {"--verify"});
    INFO(c.algorithm[1] << " -k " << c.k << " -p " << c.p);
    const ProcessResult plain = run_driver_in_process(with(base, {"--output", (dir / "plain.txt").string()}));
    REQUIRE(plain.exit_code == 0);
    const ProcessResult first = run_driver_in_process(
        with(base, {"--output", (dir / "first.txt").string(), "--checkpoint", (dir / "ckpt").string(), "--checkpoint_every", "1"}));
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const std::string written = stat_value(first.out, "CORE::CHECKPOINT::WRITTEN");
    CHECK(written == std::to_string(std::stoull(stat_value(first.out, "CORE::PHASES")) - 1));
    // The run's last checkpoint is left in the directory: resume from it.
    const ProcessResult resumed = run_driver_in_process(with(base, {"--output", (dir / "resumed.txt").string(), "--resume",
                                                                    (dir / "ckpt").string()}));
    INFO(resumed.err);
    REQUIRE(resumed.exit_code == 0);
    CHECK(stat_value(resumed.out, "CORE::CHECKPOINT::RESUMED_FROM") == written);
    const std::string expected = slurp(dir / "plain.txt");
    CHECK(!expected.empty());
    CHECK(slurp(dir / "first.txt") == expected);
    CHECK(slurp(dir / "resumed.txt") == expected);
    CHECK(result_lines(first.out) == result_lines(plain.out));
    CHECK(result_lines(resumed.out) == result_lines(plain.out));
  }
}

TEST_CASE("A run killed with SIGKILL mid-iteration resumes to the uninterrupted result", "[checkpoint]") {
  if (kSanitized) {
    WARN("SKIP: the SIGKILL/resume test runs in Release only (the sanitizer build is too slow for its graph)");
    return;
  }
  struct Case {
    std::vector<std::string> algorithm;
    std::string k;
    std::string p;
    long kill_after;  // superstep whose heartbeat triggers the kill (a later one is under way)
  };
  const std::vector<Case> cases = {
      {{"-b", "pagerank", "--pagerank::niters", "30"}, "1", "2", 9},
      {{"-b", "pagerank", "--pagerank::niters", "10"}, "4", "1", 4},
      {{"-b", "cc"}, "3", "2", 2},
      {{"-b", "sssp"}, "1", "1", 3},
      {{"-b", "pagerank_ddf"}, "4", "2", 3},
  };
  const fs::path ini = rmat_graph();
  std::mt19937 rng(12345);
  for (const Case& c : cases) {
    TempDir dir;
    const std::vector<std::string> base = with(
        {"-g", ini.string(), "-k", c.k, "-p", c.p, "--work_dir", dir.path().string(), "--physical_memory", "512M"}, c.algorithm);
    INFO(c.algorithm[1] << " -k " << c.k << " -p " << c.p);
    const ProcessResult plain = run_tool("benchmark_driver", with(base, {"--output", (dir / "plain.txt").string()}));
    INFO(plain.err);
    REQUIRE(plain.exit_code == 0);
    REQUIRE(std::stol(stat_value(plain.out, "CORE::PHASES")) > c.kill_after + 1);

    const fs::path ckpt = dir / "ckpt";
    const pid_t pid = spawn_driver(with(base, {"--output", (dir / "killed.txt").string(), "--checkpoint", ckpt.string(),
                                               "--checkpoint_every", "2", "--heartbeat"}),
                                   dir / "killed.out", dir / "killed.err");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    int status = 0;
    bool exited = false;
    while (last_heartbeat(slurp(dir / "killed.err")) < c.kill_after && std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    // Somewhere inside the next superstep(s).
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 40)(rng)));
    if (!exited) {
      REQUIRE(kill(pid, SIGKILL) == 0);
      REQUIRE(waitpid(pid, &status, 0) == pid);
    }
    INFO(slurp(dir / "killed.err"));
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(WTERMSIG(status) == SIGKILL);
    CHECK_FALSE(fs::exists(dir / "killed.txt"));
    REQUIRE(fs::exists(ckpt / "checkpoint"));

    // SIGKILL leaves the killed run's scratch directory behind (nothing can remove it then)...
    auto scratch_dirs = [&] {
      std::size_t n = 0;
      for (const auto& entry : fs::directory_iterator(dir.path())) n += entry.path().filename().string().rfind("edgestream-", 0) == 0;
      return n;
    };
    const std::size_t left_by_kill = scratch_dirs();
    const ProcessResult resumed = run_tool("benchmark_driver", with(base, {"--output", (dir / "killed.txt").string(), "--resume",
                                                                           ckpt.string(), "--checkpoint", ckpt.string(),
                                                                           "--checkpoint_every", "2"}));
    INFO(resumed.err);
    REQUIRE(resumed.exit_code == 0);
    const long from = std::stol(stat_value(resumed.out, "CORE::CHECKPOINT::RESUMED_FROM"));
    CHECK(from >= 2);
    // Resuming with --checkpoint keeps checkpointing.
    const long phases = std::stol(stat_value(plain.out, "CORE::PHASES"));
    CHECK(std::stol(stat_value(resumed.out, "CORE::CHECKPOINT::WRITTEN")) == (phases - 1 - from) / 2);
    const std::string expected = slurp(dir / "plain.txt");
    CHECK(!expected.empty());
    CHECK(slurp(dir / "killed.txt") == expected);
    CHECK(result_lines(resumed.out) == result_lines(plain.out));
    // The resumed run removes the killed run's scratch directory (its lock is free: the owner is
    // dead), says so, removes its own, and the killed run's temporary checkpoint.
    // (K = 1 with the edges in memory makes no scratch directory.)
    CHECK(left_by_kill <= 1);
    if (c.k != "1") CHECK(left_by_kill == 1);
    if (left_by_kill == 1) {
      CHECK_THAT(resumed.err, Catch::Contains("removed stale scratch directory " +
                                              (dir / ("edgestream-" + std::to_string(pid) + "-")).string()) &&
                                  Catch::Contains("left by a killed run"));
    }
    CHECK(scratch_dirs() == 0);
    for (const auto& entry : fs::directory_iterator(ckpt)) CHECK(entry.path().filename() == "checkpoint");
  }
}

// ---- a checkpoint the storage refuses (docs/checkpoint.md "When a checkpoint cannot be written") --

namespace {

// The lines of `err` that start with "warning: checkpoint".
std::vector<std::string> checkpoint_warnings(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("warning: checkpoint", 0) == 0) lines.push_back(line);
  }
  return lines;
}

fault_injection::Rule checkpoint_fault(fault_injection::Op op, int error, std::uint64_t after_bytes, int times) {
  fault_injection::Rule r;
  r.op = op;
  r.path_contains = "checkpoint.tmp-";
  r.error = error;
  r.after_bytes = after_bytes;
  r.times = times;
  return r;
}

}  // namespace

TEST_CASE("A failed checkpoint write warns once, keeps the previous checkpoint and the run goes on", "[checkpoint]") {
  namespace fi = fault_injection;
  TempDir dir;
  const fs::path ini = small_graph();
  const fs::path ckpt = dir / "ckpt";
  const std::vector<std::string> base = {"-g", ini.string(), "-b", "pagerank", "--pagerank::niters", "7", "-k", "4",
                                         "-p", "2", "--work_dir", dir.path().string()};
  const ProcessResult plain = run_driver_in_process(with(base, {"--output", (dir / "plain.txt").string()}));
  REQUIRE(plain.exit_code == 0);
  const std::string expected = slurp(dir / "plain.txt");
  REQUIRE(!expected.empty());
  // Checkpoints before supersteps 2, 4 and 6; their size (the fields grow a little with each).
  const std::vector<std::string> checkpointing = {"--checkpoint", ckpt.string(), "--checkpoint_every", "2",
                                                  "--stats_json", (dir / "stats.json").string()};
  std::uint64_t one = 0;
  {
    const ProcessResult r = run_driver_in_process(with(base, checkpointing));
    REQUIRE(r.exit_code == 0);
    REQUIRE(stat_value(r.out, "CORE::CHECKPOINT::WRITTEN") == "3");
    CHECK(stat_value(r.out, "CORE::CHECKPOINT::FAILED") == "0");
    one = std::stoull(stat_value(r.out, "CORE::CHECKPOINT::BYTES")) / 3;
    fs::remove_all(ckpt);
  }
  REQUIRE(one > 10000);
  struct Case {
    std::string name;
    std::vector<fi::Rule> rules;
    std::string failed;        // CORE::CHECKPOINT::FAILED
    std::string written;       // CORE::CHECKPOINT::WRITTEN
    std::string resumed_from;  // "" = no checkpoint is left
    std::vector<std::string> message;  // in every warning
  };
  const std::vector<Case> cases = {
      {"ENOSPC from the second checkpoint on",
       {checkpoint_fault(fi::Op::kWrite, ENOSPC, one + 4096, -1)},
       "2",
       "1",
       "2",
       {"write " + (ckpt / "checkpoint.tmp-").string(), "No space left on device", "the previous checkpoint " +
                                                                                          (ckpt / "checkpoint").string() +
                                                                                          " (before superstep 2) stays valid"}},
      {"EIO in the second checkpoint only",
       {checkpoint_fault(fi::Op::kWrite, EIO, one + 4096, 1)},
       "1",
       "2",
       "6",
       {"warning: checkpoint before superstep 4 failed: write " + (ckpt / "checkpoint.tmp-").string(), "Input/output error"}},
      {"fdatasync fails every time",
       {checkpoint_fault(fi::Op::kSync, EIO, 0, -1)},
       "3",
       "0",
       "",
       {"fdatasync " + (ckpt / "checkpoint.tmp-").string(), "Input/output error", "there is no checkpoint to resume from yet"}},
      {"the rename fails twice",
       {checkpoint_fault(fi::Op::kRename, EACCES, 0, 2)},
       "2",
       "1",
       "6",
       {"rename " + (ckpt / "checkpoint.tmp-").string(), "Permission denied"}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    fs::remove_all(ckpt);
    ProcessResult r;
    std::string warned;  // the engine warns on this process's std::cerr
    {
      std::ostringstream text;
      std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
      {
        FaultGuard faults(c.rules);
        r = run_driver_in_process(with(with(base, checkpointing), {"--output", (dir / "faulted.txt").string()}));
      }
      std::cerr.rdbuf(old);
      warned = text.str();
    }
    INFO(r.err << warned);
    REQUIRE(r.exit_code == 0);
    CHECK(slurp(dir / "faulted.txt") == expected);
    CHECK(stat_value(r.out, "CORE::CHECKPOINT::FAILED") == c.failed);
    CHECK(stat_value(r.out, "CORE::CHECKPOINT::WRITTEN") == c.written);
    const std::string json = slurp(dir / "stats.json");
    CHECK_THAT(json, Catch::Contains("\"checkpoint\":{\"written\":" + c.written + ",\"failed\":" + c.failed + ","));
    // One warning per failed checkpoint, naming the file and the error.
    const std::vector<std::string> warnings = checkpoint_warnings(warned);
    CHECK(message_lines(warned).empty());
    CHECK(warnings.size() == std::stoul(c.failed));
    for (const std::string& w : warnings) {
      for (const std::string& part : c.message) CHECK_THAT(w, Catch::Contains(part));
      CHECK_THAT(w, Catch::Contains("the run goes on without it"));
    }
    CHECK(message_lines(r.err).empty());  // nothing else on stderr
    // No temporary left; the last good checkpoint resumes to the uninterrupted result.
    for (const auto& entry : fs::directory_iterator(dir.path())) CHECK(entry.path().filename().string().rfind("edgestream-", 0) != 0);
    if (c.resumed_from.empty()) {
      CHECK((!fs::exists(ckpt) || fs::is_empty(ckpt)));
      continue;
    }
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(ckpt)) left.push_back(entry.path().filename().string());
    CHECK(left == std::vector<std::string>{"checkpoint"});
    const ProcessResult resumed = run_driver_in_process(with(base, {"--resume", ckpt.string(), "--output", (dir / "resumed.txt").string()}));
    INFO(resumed.err);
    REQUIRE(resumed.exit_code == 0);
    CHECK(stat_value(resumed.out, "CORE::CHECKPOINT::RESUMED_FROM") == c.resumed_from);
    CHECK(slurp(dir / "resumed.txt") == expected);
  }
}

TEST_CASE("Compressed scratch streams: a stopped run resumes bit for bit; another codec is refused", "[checkpoint]") {
  namespace fi = fault_injection;
  struct Case {
    std::string edges;
    std::string updates;
  };
  const std::vector<Case> cases = {{"snappy", "zlib"}, {"zlib", "snappy"}, {"zlib", "none"}};
  const fs::path ini = small_graph();
  for (const Case& c : cases) {
    INFO("--edges_codec " << c.edges << " --updates_codec " << c.updates);
    TempDir dir;
    const fs::path ckpt = dir / "ckpt";
    const std::vector<std::string> base = {"-g", ini.string(), "-b", "pagerank", "--pagerank::niters", "9", "-k", "4",
                                           "-p", "2", "--work_dir", dir.path().string(), "--edges_codec", c.edges,
                                           "--updates_codec", c.updates};
    const ProcessResult plain = run_driver_in_process(with(base, {"--output", (dir / "plain.txt").string()}));
    INFO(plain.err);
    REQUIRE(plain.exit_code == 0);
    CHECK(std::stoull(stat_value(plain.out, "CORE::PHASES")) == 10);
    const std::string expected = slurp(dir / "plain.txt");
    REQUIRE(!expected.empty());
    // Stop (as SIGTERM would) while the second checkpoint (before superstep 4) is being written,
    // i.e. inside superstep 4, after the checkpoint before superstep 2 was committed.
    std::uint64_t one = 0;
    {
      const ProcessResult probe =
          run_driver_in_process(with(base, {"--checkpoint", (dir / "probe").string(), "--checkpoint_every", "2"}));
      REQUIRE(probe.exit_code == 0);
      one = std::stoull(stat_value(probe.out, "CORE::CHECKPOINT::BYTES")) / std::stoull(stat_value(probe.out, "CORE::CHECKPOINT::WRITTEN"));
    }
    fi::Rule stop = checkpoint_fault(fi::Op::kWrite, 0, one + 4096, 1);
    stop.on_hit = [] { set_cancel_signal_for_testing(SIGTERM); };
    ProcessResult stopped;
    {
      FaultGuard faults({stop});
      stopped = run_driver_in_process(
          with(base, {"--checkpoint", ckpt.string(), "--checkpoint_every", "2", "--output", (dir / "stopped.txt").string()}));
      set_cancel_signal_for_testing(0);
    }
    INFO(stopped.err);
    CHECK(stopped.exit_code == 128 + SIGTERM);
    CHECK_FALSE(fs::exists(dir / "stopped.txt"));
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(ckpt)) left.push_back(entry.path().filename().string());
    CHECK(left == std::vector<std::string>{"checkpoint"});
    // Resume (and keep checkpointing): the uninterrupted run's output, byte for byte.
    const ProcessResult resumed = run_driver_in_process(with(
        base, {"--resume", ckpt.string(), "--checkpoint", ckpt.string(), "--checkpoint_every", "2", "--output", (dir / "resumed.txt").string()}));
    INFO(resumed.err);
    REQUIRE(resumed.exit_code == 0);
    CHECK(stat_value(resumed.out, "CORE::CHECKPOINT::RESUMED_FROM") == "2");
    CHECK(slurp(dir / "resumed.txt") == expected);
    CHECK(result_lines(resumed.out) == result_lines(plain.out));
    // Resuming with another codec is refused (exit 2) naming the checkpoint and the codec.
    std::vector<std::string> other = base;
    const auto at = std::find(other.begin(), other.end(), "--edges_codec");
    *(at + 1) = c.edges == "zlib" ? "snappy" : "zlib";
    const ProcessResult refused = run_driver_in_process(with(other, {"--resume", ckpt.string()}));
    INFO(refused.err);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("cannot resume from checkpoint " + (ckpt / "checkpoint").string()) &&
                                Catch::Contains("--edges_codec " + c.edges));
    std::vector<std::string> other_updates = base;
    *(std::find(other_updates.begin(), other_updates.end(), "--updates_codec") + 1) = c.updates == "none" ? "snappy" : "none";
    const ProcessResult refused2 = run_driver_in_process(with(other_updates, {"--resume", ckpt.string()}));
    INFO(refused2.err);
    CHECK(refused2.exit_code == 2);
    CHECK_THAT(refused2.err, Catch::Contains("--updates_codec " + c.updates));
  }
}
