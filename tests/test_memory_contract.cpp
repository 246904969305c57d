// The memory contract of --physical_memory: on a graph whose edge file is several times the budget
// (2^23 vertices, 16M type 1 edges = 192 MiB; budget 48 MiB), benchmark_driver run as a subprocess
// (so that the RSS is its own) keeps CORE::UTILS::PEAK_RSS within the budget for pagerank, bfs and
// cc, exits 0, leaves no scratch behind, and splits the graph (one partition's vertex state alone,
// 8-12 B per vertex, would exceed the budget at K = 1); its --stats_json `memory_plan` terms add up
// to the estimated peak, within the budget. A budget far too small fails quickly, with a
// single message naming --physical_memory. At K = 1 with the edges in an on-disk grid the peak RSS
// also stays within the budget. The program's static thread-local storage stays small (every
// thread the engine starts zeroes it).
#include <catch2/catch.hpp>
#include <link.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

constexpr std::uint64_t kBudget = 48ULL << 20;

// The big graph, generated once: with rmat when it works, otherwise uniform random edges written
// in chunks.
std::filesystem::path big_graph() {
  static TempDir dir;
  static const std::filesystem::path ini = [] {
    const auto name = dir / "g";
    const ProcessResult r = run_tool("rmat", {"--name", name.string(), "--scale", "23", "--edges", "16M", "--seed1", "7"});
    if (r.exit_code == 0 && std::filesystem::exists(name.string() + ".ini")) return std::filesystem::path(name.string() + ".ini");
    WARN("rmat failed (" << r.exit_code << ": " << r.err << "); writing random edges instead");
    const std::uint64_t vertices = std::uint64_t{1} << 23;
    const std::uint64_t edges = 16ULL << 20;
    {
      std::ofstream out(dir / "r", std::ios::binary | std::ios::trunc);
      std::vector<std::byte> bytes;
      for (std::uint64_t chunk = 0; chunk < 16; ++chunk) {
        const auto part = random_edges(vertices, edges / 16, 100 + chunk);
        bytes.resize(part.size() * 12);
        for (std::size_t i = 0; i < part.size(); ++i) encode_edge(bytes.data() + i * 12, part[i], EdgeFileType::kWeighted);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      }
    }
    GraphInfo info;
    info.ini_path = dir / "r.ini";
    info.name.assign(1, 'r');  // (not = "r": GCC 12 -Wrestrict false positive)
    info.type = EdgeFileType::kWeighted;
    info.vertices = vertices;
    info.edges = edges;
    if (!write_graph_ini(info).is_ok()) throw std::runtime_error("cannot write r.ini");
    return info.ini_path;
  }();
  return ini;
}

// Runs benchmark_driver -b `algorithm` -p 2 on `ini` at --physical_memory `budget` (`bytes`) in a
// fresh work directory, as a subprocess: it exits 0, its peak RSS stays within the budget, and it
// leaves no scratch behind. Returns the run for further checks.
ProcessResult run_within_budget(const std::filesystem::path& ini, const std::string& algorithm, const std::string& budget,
                                std::uint64_t bytes, const std::vector<std::string>& extra) {
  TempDir work;
  std::vector<std::string> args = {"-g", ini.string(), "-b", algorithm, "--physical_memory", budget,
                                   "-p", "2", "--work_dir", work.path().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = run_tool("benchmark_driver", args);
  INFO("-b " << algorithm << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string rss = stat_value(r.out, "CORE::UTILS::PEAK_RSS");
  REQUIRE_FALSE(rss.empty());
  CHECK(std::stoull(rss) <= bytes);
  CHECK(work.entries().empty());
  return r;
}

}  // namespace

TEST_CASE("memory: peak RSS stays within --physical_memory 48M on a 192 MiB graph", "[memory]") {
  if (kSanitized) {
    WARN("skipped under a sanitizer: its shadow memory alone exceeds the budgets used here");
    return;
  }
  const auto ini = big_graph();
  auto info = read_graph_ini(ini);
  REQUIRE(info);
  REQUIRE(info->edges * info->record_size() >= 3 * kBudget);
  for (const std::string algorithm : {"pagerank", "bfs", "cc"}) {
    TempDir out;
    const auto json = out / "stats.json";
    const ProcessResult r =
        run_within_budget(ini, algorithm, "48M", kBudget, {"--pagerank::niters", "3", "--stats_json", json.string()});
    const std::string partitions = stat_value(r.out, "CORE::CONFIG::PARTITIONS");
    REQUIRE_FALSE(partitions.empty());
    if (algorithm != "bfs") CHECK(std::stoull(partitions) > 1);
    // The plan's terms, as --stats_json gives them: they make up the estimate, which fits the budget.
    boost::property_tree::ptree root;
    REQUIRE_NOTHROW(boost::property_tree::read_json(json.string(), root));
    const auto& plan = root.get_child("memory_plan");
    std::uint64_t sum = 0;
    for (const auto& [name, value] : plan) {
      if (name != "budget") sum += value.get_value<std::uint64_t>();
    }
    INFO("-b " << algorithm << ": " << slurp(json));
    CHECK(plan.size() == 13);
    CHECK(plan.get<std::uint64_t>("budget") == kBudget);
    CHECK(sum == root.get<std::uint64_t>("estimated_peak_bytes"));
    CHECK(sum <= kBudget);
    CHECK(plan.get<std::uint64_t>("vertex_state") >= (std::uint64_t{1} << 23) * 8 / std::stoull(partitions));
    CHECK(plan.get<std::uint64_t>("baseline") > 0);
    if (std::stoull(partitions) > 1) CHECK(plan.get<std::uint64_t>("stream_writers") > 0);
    // bfs's keyed streams keep a bit per vertex of the graph (its settled vertices), the others none.
    const bool settled = algorithm == "bfs" && std::stoull(partitions) > 1;
    const auto settled_bytes = plan.get<std::uint64_t>("settled_bits");
    if (settled) {
      CHECK(settled_bytes >= (std::uint64_t{1} << 23) / 8);
      CHECK(settled_bytes <= (std::uint64_t{1} << 23) / 8 + 8192);
    } else {
      CHECK(settled_bytes == 0);
    }
  }
}

TEST_CASE("memory: a budget far too small fails at once with a message naming --physical_memory", "[memory]") {
  const auto ini = big_graph();
  for (const std::string algorithm : {"pagerank", "cc"}) {
    TempDir work;
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_tool("benchmark_driver", {"-g", ini.string(), "-b", algorithm, "--physical_memory", "1M",
                                                          "-p", "2", "--work_dir", work.path().string()});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO("-b " << algorithm << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.exit_code < 128);  // an error exit, not a crash
    CHECK(r.err.find("--physical_memory") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one message
    CHECK(seconds < 10.0);
    CHECK(work.entries().empty());
  }
}

// CORE::UTILS::PEAK_RSS must be the driver's own peak, whoever starts it. posix_spawn (and Python's
// subprocess) start the child with vfork: getrusage's ru_maxrss then carries the parent's peak
// across exec, while /proc/self/status VmHWM starts afresh. Declared last in this file because it
// raises this test process's own peak for good.
TEST_CASE("memory: PEAK_RSS does not include the RSS of the process that started the driver", "[memory]") {
  if (kSanitized) {
    WARN("skipped under a sanitizer: its shadow memory alone exceeds the budgets used here");
    return;
  }
  TempDir dir;
  const auto ini = write_graph(dir.path(), "small", random_edges(1000, 5000, 3), 1000);
  std::vector<char> ballast(256ULL << 20);
  for (std::size_t i = 0; i < ballast.size(); i += 4096) ballast[i] = static_cast<char>(i);
  const ProcessResult r = run_tool("benchmark_driver", {"-g", ini.string(), "-b", "cc", "--work_dir", dir.path().string()});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string rss = stat_value(r.out, "CORE::UTILS::PEAK_RSS");
  REQUIRE_FALSE(rss.empty());
  CHECK(std::stoull(rss) < (100ULL << 20));  // the driver itself needs a few MiB here
  CHECK(ballast[4096] == static_cast<char>(4096));
}

TEST_CASE("memory: the on-disk grid keeps peak RSS within --physical_memory", "[memory]") {
  if (kSanitized) {
    WARN("skipped under a sanitizer: its shadow memory alone exceeds the budgets used here");
    return;
  }
  // At 128M the vertex state of bfs and cc fits (K = 1) but the 192 MiB of edges do not: the grid of
  // 4-byte records (64 MiB) goes to disk and is read back in windows every superstep.
  const auto ini = big_graph();
  for (const std::string algorithm : {"bfs", "cc"}) {
    const ProcessResult r = run_within_budget(ini, algorithm, "128M", 128ULL << 20, {"--disk_grid", "on"});
    CHECK(stat_value(r.out, "CORE::CONFIG::PARTITIONS") == "1");
    CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == "1");
  }
}

// Every thread's creation zeroes (and faults in) the program's static TLS, and the engine starts a
// thread per staged block read or write: rmat22 sssp at 256M starts ~1900. A 1 MiB thread_local
// (vertex_output's stdio buffer once) cost that run ~0.1 s of set-up (docs/performance.md, session 43).
TEST_CASE("memory: the program's static thread-local storage stays small", "[memory]") {
  struct Found {
    bool executable = false;
    std::uint64_t tls_bytes = 0;
  } found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // a shared object: not the program
        auto* f = static_cast<Found*>(data);
        f->executable = true;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type == PT_TLS) f->tls_bytes = info->dlpi_phdr[i].p_memsz;
        }
        return 1;  // the first entry is the program
      },
      &found);
  REQUIRE(found.executable);
  INFO("static TLS bytes: " << found.tls_bytes);
  CHECK(found.tls_bytes <= 64U << 10);  // ~56 B here; a sanitizer runtime adds a few KiB
}
