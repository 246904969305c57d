// Symmetric inputs (.ini symmetric=1: every edge also stored reversed): the key's parsing and
// writing, the tools that write it (rmat/erdos-renyi --symmetric, ingest of symmetric input), and
// cc's one-way grid scatter on such inputs: the same labels as the two-way scatter, half the
// updates, and a clear error when the claim is false (the engine checks it before any superstep).
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/graph_format.hpp"
#include "test_support.hpp"
#include "utils/ingest.hpp"

using namespace edgestream;
using namespace edgestream::test;

namespace {

// Appends a line to a graph's .ini (the tests' graphs are written without symmetric=).
void append_ini(const std::filesystem::path& ini, const std::string& line) {
  std::ofstream(ini, std::ios::app) << line << "\n";
}

// A random multigraph with both directions of every edge (duplicates and loops included), in a
// shuffled order, written with symmetric=1.
std::filesystem::path symmetric_graph(const std::filesystem::path& dir, const std::string& name, std::uint64_t vertices,
                                      std::uint64_t edges, std::uint64_t seed) {
  std::vector<Edge> half = random_edges(vertices, edges, seed);
  for (std::size_t i = 0; i < half.size(); i += 7) half[i].dst = half[i].src % 13;  // hubs, loops, duplicates
  std::vector<Edge> both = with_reverses(half, /*keep_loops=*/true);
  std::shuffle(both.begin(), both.end(), std::mt19937_64(seed));
  const auto ini = write_graph(dir, name, both, vertices, EdgeFileType::kUnweighted);
  append_ini(ini, "symmetric=1");
  return ini;
}

}  // namespace

TEST_CASE("symmetric=: parsed (0, 1, absent), refused otherwise naming the line, written back", "[symmetric]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(10, 20, 1), 10, EdgeFileType::kUnweighted);
  const auto plain = read_graph_ini(ini);
  REQUIRE(plain.has_value());
  CHECK_FALSE(plain->symmetric);
  const std::string text = slurp(ini);
  for (const auto& [value, expected] : {std::pair{"1", true}, std::pair{"0", false}}) {
    std::ofstream(ini) << text << "symmetric=" << value << "\n";
    const auto info = read_graph_ini(ini);
    REQUIRE(info.has_value());
    CHECK(info->symmetric == expected);
  }
  std::ofstream(ini) << text << "symmetric=yes\n";
  const auto bad = read_graph_ini(ini);
  REQUIRE_FALSE(bad.has_value());
  CHECK_THAT(bad.status().message(), Catch::Contains(ini.string() + ":6: 'symmetric' must be 0 or 1, got 'yes'"));
  GraphInfo info = *plain;
  info.symmetric = true;
  REQUIRE(write_graph_ini(info).is_ok());
  CHECK_THAT(slurp(ini), Catch::Contains("\nsymmetric=1\n"));
  const auto back = read_graph_ini(ini);
  REQUIRE(back.has_value());
  CHECK(back->symmetric);
}

TEST_CASE("symmetric=: written by the generators with --symmetric and by ingest of symmetric input", "[symmetric]") {
  TempDir dir;
  for (const std::string tool : {"rmat", "erdos-renyi"}) {
    for (const bool symmetric : {false, true}) {
      const auto name = dir.path() / (tool + (symmetric ? "-sym" : ""));
      std::vector<std::string> args = {"--name", name.string(), "--edges", "1000"};
      if (tool == "rmat") {
        args.insert(args.end(), {"--scale", "8"});
      } else {
        args.insert(args.end(), {"--vertices", "300"});
      }
      if (symmetric) args.push_back("--symmetric");
      const ProcessResult r = run_tool(tool, args);
      INFO(tool << " " << r.err);
      REQUIRE(r.exit_code == 0);
      const auto info = read_graph_ini(name.string() + ".ini");
      REQUIRE(info.has_value());
      CHECK(info->symmetric == symmetric);
    }
  }
  // Matrix Market: a symmetric file is written with both directions; a general one is not
  // symmetric; --symmetric mirrors any input (with duplicates removed too: both directions keep
  // the minimum weight).
  const auto mm = dir.path() / "m.mtx";
  std::ofstream(mm) << "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 1\n4 4\n";
  const auto general = dir.path() / "general.mtx";
  std::ofstream(general) << "%%MatrixMarket matrix coordinate pattern general\n4 4 2\n2 1\n3 1\n";
  struct Case {
    std::filesystem::path input;
    bool mirror;
    bool dedupe;
    bool expected;
  };
  for (const Case& c : {Case{mm, false, false, true}, Case{general, false, false, false}, Case{general, true, false, true},
                       Case{general, true, true, true}}) {
    IngestOptions options;
    options.input = c.input.string();
    options.output = dir.path() / "ingested";
    options.format = InputFormat::kMatrixMarket;
    options.type = EdgeFileType::kUnweighted;
    options.symmetric = c.mirror;
    options.remove_duplicates = c.dedupe;
    const auto summary = ingest_graph(options);
    INFO(c.input << " mirror " << c.mirror << " dedupe " << c.dedupe);
    REQUIRE(summary.has_value());
    const auto info = read_graph_ini(summary->ini_path);
    REQUIRE(info.has_value());
    CHECK(info->symmetric == c.expected);
  }
}

TEST_CASE("symmetric input: cc, mis, checkbip use each edge once each way: the same output, half the updates", "[symmetric]") {
  TempDir dir;
  TempDir work;
  const auto sym = symmetric_graph(dir.path(), "sym", 30011, 150000, 3);
  // The same file without the claim.
  const auto plain = dir.path() / "plain.ini";
  {
    std::string text = slurp(sym);
    text.erase(text.find("symmetric=1\n"));
    std::ofstream(plain) << text;  // name=sym: the same edge file
  }
  REQUIRE_FALSE(read_graph_ini(plain)->symmetric);
  enum class Kind { kMemoryGrid, kWholeRecords, kDiskGrid, kStreams };
  struct Variant {
    Kind kind;
    std::vector<std::string> args;
  };
  // The grid of block-local records (one record of each pair, scattered both ways) in memory, one
  // and two threads; on disk: resident (built in place), streamed, kept in part (the records as
  // they are: --grid_codec auto would code the halved grid, which then fits), and in slabs too
  // many to stage (one input pass each) Elias-Fano coded; the in-memory grid of whole records
  // (every record, each scattered one way); K = 3 (edge streams without reversed copies).
  const std::vector<Variant> variants = {
      {Kind::kMemoryGrid, {"-p", "2"}},
      {Kind::kMemoryGrid, {"-p", "1"}},
      {Kind::kDiskGrid, {"-p", "2", "--no_edge_cache", "--disk_grid", "on"}},
      {Kind::kDiskGrid, {"-p", "2", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "64K", "--stream_grid"}},
      {Kind::kDiskGrid, {"-p", "2", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "64K", "--grid_memory", "512K", "--grid_codec", "none"}},
      {Kind::kDiskGrid, {"-p", "1", "--no_edge_cache", "--disk_grid", "on", "--grid_window", "16K", "--stream_grid", "--grid_codec", "ef"}},
      {Kind::kWholeRecords, {"-p", "2", "--full_grid_records"}},
      {Kind::kStreams, {"-p", "2", "-k", "3"}},
  };
  // cc in every variant; mis and checkbip in one of each kind.
  const std::vector<std::pair<std::string, std::vector<std::size_t>>> runs = {
      {"cc", {0, 1, 2, 3, 4, 5, 6, 7}}, {"mis", {0, 3, 6, 7}}, {"checkbip", {0, 3, 6, 7}}};
  for (const auto& [algorithm, which] : runs) {
    for (const std::size_t v : which) {
      const Variant& variant = variants[v];
      INFO(algorithm << " variant " << v);
      std::string outputs[2];
      std::uint64_t emitted[2] = {};
      std::uint64_t grid_file[2] = {};
      std::uint64_t grid_records[2] = {};
      std::uint64_t edges = 0;
      for (int claimed = 0; claimed < 2; ++claimed) {
        std::vector<std::string> args = {"-g", (claimed != 0 ? sym : plain).string(), "-b", algorithm, "--physical_memory", "1G",
                                         "--cpu_cache_size", "16K", "--work_dir", work.path().string(), "--output",
                                         (dir.path() / "out.txt").string(), "--verify"};
        args.insert(args.end(), variant.args.begin(), variant.args.end());
        const ProcessResult r = run_driver_verified(args);
        CHECK(stat_value(r.out, "CORE::CONFIG::PARTITIONS") == (variant.kind == Kind::kStreams ? "3" : "1"));
        CHECK(stat_value(r.out, "CORE::CONFIG::EDGE_GRID") == (variant.kind == Kind::kStreams ? "0" : "1"));
        CHECK(stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == (variant.kind == Kind::kDiskGrid ? "1" : "0"));
        CHECK(stat_value(r.out, "CORE::CONFIG::GRID_RECORD_BYTES") == (variant.kind == Kind::kWholeRecords ? "8" : variant.kind == Kind::kStreams ? "0" : "4"));
        CHECK(stat_value(r.out, "CORE::CONFIG::SYMMETRIC_ONE_WAY") == (claimed != 0 ? "1" : "0"));
        outputs[claimed] = slurp(dir.path() / "out.txt");
        emitted[claimed] = std::stoull(stat_value(r.out, "CORE::UPDATES::EMITTED"));
        grid_file[claimed] = std::stoull(stat_value(r.out, "CORE::CONFIG::GRID_FILE_BYTES"));
        grid_records[claimed] = std::stoull(stat_value(r.out, "CORE::CONFIG::GRID_RECORDS"));
        edges = std::stoull(stat_value(r.out, "CORE::CONFIG::EDGES"));
      }
      if (variant.kind == Kind::kMemoryGrid || variant.kind == Kind::kDiskGrid) {
        // A grid of block-local records keeps the records with src <= dst: those of one direction
        // (the generator's graph has loops too: a few more than half).
        CHECK(grid_records[0] == edges);
        CHECK(grid_records[1] * 2 >= edges);
        CHECK(grid_records[1] * 10 < edges * 6);
      } else if (variant.kind == Kind::kWholeRecords) {
        CHECK(grid_records[1] == edges);
      }
      if (variant.kind == Kind::kDiskGrid) {
        // About half the file.
        INFO("grid file " << grid_file[1] << " of " << grid_file[0] << " bytes");
        CHECK(grid_file[1] * 10 < grid_file[0] * 6);
        CHECK(grid_file[1] * 10 > grid_file[0] * 4);
      }
      CHECK(outputs[1] == outputs[0]);
      // Superstep 0 emits along every record both ways (two-way) or once (one-way); later
      // supersteps follow what changed (K > 1: a superstep later), so the totals are about half.
      INFO("emitted " << emitted[1] << " of " << emitted[0]);
      CHECK(emitted[1] * 10 < emitted[0] * 7);
      CHECK(emitted[1] * 10 > emitted[0] * 3);
    }
  }
  CHECK(work.entries().empty());
}

TEST_CASE("symmetric input: a real graph stored both ways keeps its published components", "[symmetric]") {
  // email-Enron lists each undirected edge once; ingest --symmetric writes both directions and
  // symmetric=1. 1,065 WCCs, the largest with 33,696 vertices (shared/data/real/README.md).
  TempDir dir;
  IngestOptions options;
  options.input = (real_data_dir() / "email-enron-undirected.txt.gz").string();
  options.output = dir.path() / "enron";
  options.format = InputFormat::kSnap;
  options.type = EdgeFileType::kUnweighted;
  options.strict = true;
  options.symmetric = true;
  const auto summary = ingest_graph(options);
  REQUIRE(summary.has_value());
  // The grid in memory, on disk; K = 2 (the split writes no reversed copies: the input has them).
  const std::vector<std::vector<std::string>> variants = {{}, {"--no_edge_cache", "--disk_grid", "on"}, {"-k", "2"}};
  for (std::size_t v = 0; v < variants.size(); ++v) {
    INFO("variant " << v);
    std::vector<std::string> args = {"-g", summary->ini_path.string(), "-b", "cc", "-p", "2", "--physical_memory", "1G",
                                     "--work_dir", dir.path().string(), "--verify"};
    args.insert(args.end(), variants[v].begin(), variants[v].end());
    const ProcessResult r = run_driver_verified(args);
    CHECK(stat_value(r.out, "ALGORITHM::CC::COMPONENTS") == "1065");
    CHECK(stat_value(r.out, "CORE::CONFIG::PARTITIONS") == (v == 2 ? "2" : "1"));
    CHECK(stat_value(r.out, "CORE::CONFIG::SYMMETRIC_ONE_WAY") == "1");
  }
}

TEST_CASE("symmetric input: a false claim is an error naming the .ini and the edge file, before any superstep", "[symmetric]") {
  TempDir dir;
  TempDir work;
  // Both directions of every edge but one: its reverse is replaced by another edge's copy.
  std::vector<Edge> both = with_reverses(random_edges(5000, 20000, 8));
  both[12345] = both[100];
  const auto ini = write_graph(dir.path(), "g", both, 5000, EdgeFileType::kUnweighted);
  append_ini(ini, "symmetric=1");
  const std::string before = slurp(dir.path() / "g");
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, std::vector<std::string>{"--no_edge_cache", "--disk_grid", "on"},
                                                std::vector<std::string>{"--no_edge_cache", "--disk_grid", "on", "--grid_window", "16K"},
                                                std::vector<std::string>{"-k", "3"}}) {
    std::vector<std::string> args = {"-g", ini.string(), "-b", "cc", "-p", "2", "--physical_memory", "1G", "--cpu_cache_size", "16K",
                                     "--work_dir", work.path().string(), "--heartbeat"};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = run_driver_in_process(args);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    const auto lines = message_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains(ini.string() + " says symmetric=1, but edge file " + (dir.path() / "g").string() +
                                         " is not symmetric"));
    CHECK(r.err.find("HEARTBEAT") == std::string::npos);  // no superstep ran
  }
  CHECK(slurp(dir.path() / "g") == before);  // the input is never modified
  CHECK(work.entries().empty());
  // Programs that do not rely on the claim run as before.
  const ProcessResult bfs = run_driver_in_process({"-g", ini.string(), "-b", "bfs", "-p", "2", "--physical_memory", "1G", "--verify"});
  CHECK(bfs.exit_code == 0);
}
