// Tests of device_probe (utils/device_probe.*): the CSV's shape and columns (CONTRACT §2), sane
// numbers, removal of the test file, errors on a bad directory or bad sizes, the recommendation
// rule and the generated preset. Small sizes and short cells: a few seconds in all.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "io/block_device.hpp"
#include "tests/test_support.hpp"
#include "utils/device_probe.hpp"

namespace edgestream {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

TEST_CASE("device_probe: CSV shape, sane numbers, test file removed", "[device_probe]") {
  test::TempDir dir;
  test::TempDir out_dir;
  const std::string preset = (out_dir / "probe.cfg").string();
  const auto r = test::run_tool("device_probe", {dir.path().string(), "--sizes", "4K,64K,1M", "--depths", "1,2",
                                                 "--file_size", "8M", "--seconds", "0.05", "--preset_out", preset});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = split(r.out, '\n');
  REQUIRE(lines.size() == 1 + 2 * 3 * 2);  // header + read/write x 3 sizes x 2 depths
  CHECK(lines[0] == "op,request_bytes,queue_depth,MBps,IOPS,seconds,bytes,direct_io,device,filesystem");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    INFO(lines[i]);
    const auto f = split(lines[i], ',');
    REQUIRE(f.size() == 10);
    CHECK((f[0] == "read" || f[0] == "write"));
    const double size = std::stod(f[1]);
    CHECK((size == 4096 || size == 65536 || size == 1048576));
    CHECK((f[2] == "1" || f[2] == "2"));
    const double mbps = std::stod(f[3]);
    const double iops = std::stod(f[4]);
    const double seconds = std::stod(f[5]);
    const double bytes = std::stod(f[6]);
    CHECK(mbps > 0.001);
    CHECK(mbps < 1e6);  // 1 TB/s would mean the timing is broken
    CHECK(seconds >= 0.05);
    CHECK(seconds < 30);
    CHECK(bytes >= size);
    CHECK(std::fmod(bytes, size) == 0);
    // IOPS and MB/s must describe the same transfers.
    CHECK(iops * size / 1e6 == Approx(mbps).epsilon(0.02).margin(0.002));  // CSV rounding: 3 decimals, IOPS 1
    CHECK(bytes / seconds / 1e6 == Approx(mbps).epsilon(0.02).margin(0.002));
    CHECK(f[7] == "1");  // the temp dir is on ext4 here: O_DIRECT must be in effect
    CHECK(f[9] != "unknown");
  }
  CHECK(r.err.find("recommend --read_chunk") != std::string::npos);
  CHECK(dir.entries().empty());  // the test file is gone
  const std::string cfg = test::slurp(preset);
  CHECK(cfg.find("read_chunk = ") != std::string::npos);
  CHECK(cfg.find("write_chunk = ") != std::string::npos);
  CHECK(cfg.find("io_depth = ") != std::string::npos);
  const bool delta = cfg.find("\nedges_codec = delta\n") != std::string::npos;
  CHECK((delta || cfg.find("\nedges_codec = auto\n") != std::string::npos));
  CHECK((cfg.find("\ngrid_codec = ef\n") != std::string::npos) == delta);
  CHECK(r.err.find(delta ? "--edges_codec delta --grid_codec ef" : "--edges_codec auto") != std::string::npos);
}

TEST_CASE("device_probe: a preset it writes is accepted by benchmark_driver --config", "[device_probe]") {
  test::TempDir dir;
  const std::string preset = (dir / "probe.cfg").string();
  auto r = test::run_tool("device_probe", {dir.path().string(), "--sizes", "4K,16K", "--depths", "1", "--ops", "read",
                                           "--file_size", "1M", "--seconds", "0.02", "--preset_out", preset});
  REQUIRE(r.exit_code == 0);
  const auto ini = test::write_graph(dir.path(), "g", test::random_edges(100, 500, 7), 100);
  r = test::run_tool("benchmark_driver", {"-g", ini.string(), "-b", "pagerank", "--config", preset, "--verify"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("Verification: PASS") != std::string::npos);
}

TEST_CASE("presets: every configs/*.cfg is accepted by benchmark_driver and takes effect", "[device_probe]") {
  test::TempDir dir;
  const auto ini = test::write_graph(dir.path(), "g", test::random_edges(300, 3000, 11), 300);
  int presets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(EDGESTREAM_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".cfg") continue;
    ++presets;
    const std::string cfg = test::slurp(entry.path());
    const auto r = test::run_tool("benchmark_driver", {"-g", ini.string(), "-b", "pagerank", "-k", "2", "--config",
                                                       entry.path().string(), "--work_dir", dir.path().string(), "--verify"});
    INFO(entry.path().string() << "\n" << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Verification: PASS") != std::string::npos);
    // The preset's io_depth reaches the engine (chunks may shrink under the budget, the depth does not).
    const auto pos = cfg.find("io_depth = ");
    REQUIRE(pos != std::string::npos);
    const std::string depth = cfg.substr(pos + 11, cfg.find('\n', pos) - pos - 11);
    CHECK(test::stat_value(r.out, "CORE::CONFIG::IO_DEPTH") == depth);
  }
  CHECK(presets >= 4);
}

TEST_CASE("device_probe: bad directory, bad sizes and bad depths fail with a message", "[device_probe]") {
  test::TempDir dir;
  auto r = test::run_tool("device_probe", {(dir / "missing").string(), "--seconds", "0.01"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("missing is not an existing directory") != std::string::npos);
  CHECK(r.out.empty());

  r = test::run_tool("device_probe", {dir.path().string(), "--sizes", "5000", "--file_size", "1M"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("5000 is not a positive multiple of 4096") != std::string::npos);

  r = test::run_tool("device_probe", {dir.path().string(), "--sizes", "4K", "--depths", "0", "--file_size", "1M"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("queue depth 0") != std::string::npos);

  r = test::run_tool("device_probe", {dir.path().string(), "--sizes", "4M", "--file_size", "1M"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("smaller than the largest request size") != std::string::npos);

  r = test::run_tool("device_probe", {dir.path().string(), "--sizes", "4X"});
  CHECK(r.exit_code == 2);
  r = test::run_tool("device_probe", {});
  CHECK(r.exit_code == 2);
  CHECK(dir.entries().empty());
}

TEST_CASE("device_probe: the recommendation is the cheapest cell within 90% of the best", "[device_probe]") {
  ProbeResult result;
  auto cell = [](const char* op, std::uint64_t size, unsigned depth, double mbps) {
    ProbeCell c;
    c.op = op;
    c.request_bytes = size;
    c.queue_depth = depth;
    c.seconds = 1;
    c.bytes = static_cast<std::uint64_t>(mbps * 1e6);
    c.requests = c.bytes / size;
    return c;
  };
  result.cells = {cell("read", 1 << 20, 1, 500), cell("read", 1 << 20, 4, 950), cell("read", 4 << 20, 1, 930),
                  cell("read", 16 << 20, 4, 1000), cell("write", 1 << 20, 1, 300), cell("write", 4 << 20, 2, 600),
                  cell("write", 16 << 20, 1, 590)};
  const ProbeRecommendation rec = recommend(result);
  CHECK(rec.read_chunk == (1u << 20));  // 1M x 4 = 4 MiB in flight reaches 95%; 4M x 1 ties at 4 MiB but is slower
  CHECK(rec.best_read_mbps == Approx(1000));
  CHECK(rec.write_chunk == (4u << 20));  // 4M x 2 = 8 MiB < 16M x 1
  CHECK(rec.io_depth == 4);
  ProbeResult reads_only;
  reads_only.cells = {cell("read", 64 << 10, 8, 100)};
  const ProbeRecommendation r2 = recommend(reads_only);
  CHECK(r2.read_chunk == (64u << 10));
  CHECK(r2.write_chunk == 0);
  CHECK(r2.io_depth == 8);
  // The codecs: by the slower op's best bandwidth, below kDeltaEdgesBelowMbps delta edge streams
  // and an Elias-Fano grid, else the engine's own choice (auto).
  CHECK(rec.edges_codec == "auto");  // best read 1000, best write 600: not below 600
  CHECK(rec.grid_codec.empty());
  CHECK(r2.edges_codec == "delta");  // reads only, 100 MB/s
  CHECK(r2.grid_codec == "ef");
  ProbeResult slow_writes;
  slow_writes.cells = {cell("read", 1 << 20, 4, 2000), cell("write", 1 << 20, 4, 599)};
  CHECK(recommend(slow_writes).edges_codec == "delta");
  CHECK(recommend(ProbeResult{}).edges_codec.empty());  // nothing measured: no codec line
}

TEST_CASE("device_probe: the device and filesystem of a directory come from mountinfo", "[device_probe]") {
  test::TempDir dir;
  const auto [device, fs] = device_of(dir.path());
  CHECK(device != "unknown");
  CHECK(fs != "unknown");
  CHECK(device_of(dir / "missing").first == "unknown");
  CHECK(format_size(4096) == "4K");
  CHECK(format_size(64ull << 20) == "64M");
  CHECK(format_size(5000) == "5000");
}

TEST_CASE("device numbers: a path's MAJ:MIN is its filesystem's, none for a missing path", "[device_probe]") {
  test::TempDir dir;
  const auto number = device_number_of(dir.path());
  REQUIRE(number.has_value());
  const std::string text = number->text();
  CHECK(text == std::to_string(number->major_id) + ":" + std::to_string(number->minor_id));
  const auto inside = device_number_of(dir.path() / ".");
  REQUIRE(inside.has_value());
  CHECK(inside->text() == text);  // the same filesystem
  CHECK_FALSE(device_number_of(dir / "missing").has_value());
  const auto proc = device_number_of("/proc");
  REQUIRE(proc.has_value());
  CHECK(proc->major_id == 0);  // procfs: no block device behind it
  CHECK(proc->text() != text);
}

}  // namespace
}  // namespace edgestream
