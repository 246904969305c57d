// Keeping the input in memory (K = 1 with room in the budget): the input is read once, and every
// algorithm gives exactly what it gives when the input is re-read from storage each superstep, or
// when the edges are kept in an on-disk grid (read twice to build it, then never again).
#include <catch2/catch.hpp>

#include "tests/test_support.hpp"

namespace edgestream {
namespace {

TEST_CASE("edges kept in memory: read once, same results as streaming from storage", "[edge_cache]") {
  test::TempDir dir;
  const std::uint64_t edges = 40000;
  const auto ini = test::write_graph(dir.path(), "g", test::random_edges(5000, edges, 21), 5000);
  for (const char* algo : {"pagerank", "bfs", "cc", "sssp", "degree_cnt"}) {
    INFO(algo);
    std::string outputs[3];
    for (int cached = 0; cached < 3; ++cached) {  // 0: input re-read, 1: in memory, 2: on-disk grid
      std::vector<std::string> args = {"-g", ini.string(), "-b", algo, "-p", "2", "--physical_memory", "1G",
                                       "--output", (dir / "out.txt").string(), "--verify", "--read_chunk", "64K",
                                       "--work_dir", dir.path().string()};
      if (cached != 1) args.push_back("--no_edge_cache");
      if (cached == 2) args.insert(args.end(), {"--disk_grid", "on"});
      if (cached == 0) args.push_back("--no_edge_grid");
      const auto r = test::run_driver_verified(args);
      CHECK(test::stat_value(r.out, "CORE::PARTITIONS") == "1");
      CHECK(test::stat_value(r.out, "CORE::CONFIG::EDGES_IN_MEMORY") == (cached == 1 ? "1" : "0"));
      CHECK(test::stat_value(r.out, "CORE::CONFIG::GRID_ON_DISK") == (cached == 2 ? "1" : "0"));
      const std::uint64_t supersteps = std::stoull(test::stat_value(r.out, "CORE::PHASES"));
      const std::uint64_t input_read = std::stoull(test::stat_value(r.out, "CORE::BYTES::INPUT_READ"));
      if (cached == 1) {
        CHECK(input_read == edges * 12);
      } else if (cached == 2) {
        // Checked and counted in one pass, placed in a second (the grid fits its two windows).
        CHECK(input_read == 2 * edges * 12);
      } else {
        // Programs with active() (bfs, cc, sssp) skip a superstep where no vertex can emit: BFS's
        // last superstep has no vertex at its level, so it reads the input one time fewer.
        const std::string name = algo;
        const bool skips = name == "bfs" || name == "cc" || name == "sssp";
        CHECK(input_read % (edges * 12) == 0);
        CHECK(input_read >= edges * 12);
        CHECK(input_read <= supersteps * edges * 12);
        if (!skips) CHECK(input_read == supersteps * edges * 12);
        if (name == "bfs") CHECK(input_read == (supersteps - 1) * edges * 12);
      }
      outputs[cached] = test::slurp(dir / "out.txt");
    }
    CHECK(outputs[0] == outputs[1]);
    CHECK(outputs[1] == outputs[2]);
  }
}

TEST_CASE("edges kept in memory: a bad id is still reported with its record", "[edge_cache]") {
  test::TempDir dir;
  auto edges = test::random_edges(100, 1000, 5);
  edges[777].dst = 100;
  const auto ini = test::write_graph(dir.path(), "g", edges, 100);
  const auto r = test::run_driver_in_process({"-g", ini.string(), "-b", "pagerank", "--physical_memory", "1G"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("record 777"));
}

}  // namespace
}  // namespace edgestream
