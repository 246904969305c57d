// The direct-I/O fallback: where a filesystem refuses O_DIRECT (simulated by fault injection, since
// this kernel accepts O_DIRECT even on tmpfs), files open buffered and whole runs still give the
// reference result.
#include <catch2/catch.hpp>

#include "benchmarks/driver.hpp"
#include "io/fault_injection.hpp"
#include "io/file.hpp"
#include "tests/test_support.hpp"

namespace edgestream {
namespace {

using test::FaultGuard;

TEST_CASE("O_DIRECT refused: File falls back to buffered I/O", "[fallback]") {
  test::TempDir dir;
  FaultGuard guard({fault_injection::Rule{fault_injection::Op::kOpenDirect, "", 0, EINVAL}});
  auto file = File::open(dir / "f", OpenMode::kCreate, /*direct=*/true);
  REQUIRE(file.has_value());
  CHECK_FALSE(file->use_direct_io());
  CHECK(file->alignment() == 1);
  const std::string text = "unaligned payload of 33 bytes....";
  REQUIRE(file->write_at(3, std::as_bytes(std::span(text))).is_ok());
  std::string back(text.size(), '\0');
  auto n = file->read_at(3, std::as_writable_bytes(std::span(back)));
  REQUIRE(n.has_value());
  CHECK(*n == text.size());
  CHECK(back == text);
  CHECK(fault_injection::injected_count() >= 1);
}

TEST_CASE("O_DIRECT refused: a partitioned run still verifies", "[fallback]") {
  test::TempDir dir;
  const auto ini = test::write_graph(dir.path(), "g", test::random_edges(3000, 30000, 7), 3000);
  FaultGuard guard({fault_injection::Rule{fault_injection::Op::kOpenDirect, "", 0, EINVAL}});
  for (const char* algo : {"pagerank", "bfs", "cc", "sssp"}) {
    const auto r = test::run_driver_in_process({"-g", ini.string(), "-b", algo, "-k", "4", "-p", "2", "--work_dir",
                                                dir.path().string(), "--verify"});
    INFO(algo << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Verification: PASS") != std::string::npos);
    CHECK(test::stat_value(r.out, "CORE::PARTITIONS") == "4");
  }
  CHECK(fault_injection::injected_count() > 0);
  // Only the graph remains: scratch directories are gone.
  CHECK(dir.entries().size() == 2);
}

}  // namespace
}  // namespace edgestream
