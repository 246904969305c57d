// [ini_volumes]: per-volume request sizes and depth for the .ini's [disk] volumes (X-Stream's
// count / mnt0..mntN), given as extra keys mntN_read_chunk, mntN_write_chunk, mntN_io_depth and
// mntN_config (docs/volumes.md). X-Stream reads mntN as a plain path and ignores the extra keys, so
// such an .ini stays usable there. Checked: the settings reach each volume, a preset is read
// relative to the .ini and explicit keys win over it, results do not change, and bad keys are
// refused naming the .ini line.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/volume_set.hpp"
#include "tests/test_support.hpp"

namespace edgestream::test {
namespace {

namespace fs = std::filesystem;

struct DiskGraph {
  TempDir dir;
  TempDir vol0;
  TempDir vol1;
  fs::path ini = write_graph(dir.path(), "g", random_edges(4000, 60000, 5), 4000);
  std::string base = slurp(ini);
  void set_disk(const std::string& extra_keys) {
    std::ofstream(ini, std::ios::trunc) << base << "[disk]\ncount=2\nmnt0=" << vol0.path().string()
                                        << "\nmnt1=" << vol1.path().string() << "\n"
                                        << extra_keys;
  }
  // cc: its labels do not depend on request sizes (PageRank's float sums follow the update order).
  ProcessResult run(const std::string& out) {
    return run_driver_in_process({"-g", ini.string(), "-b", "cc", "-k", "4", "-p", "2", "--read_chunk", "16K",
                                  "--write_chunk", "16K", "--io_depth", "4", "--output", (dir / out).string()});
  }
};

}  // namespace

TEST_CASE("ini_volumes: mntN_ keys set each [disk] volume's chunks and depth; a preset is read beside the .ini", "[ini_volumes]") {
  DiskGraph g;
  std::ofstream(g.dir / "slow.cfg") << "# preset\nread_chunk = 32K\nwrite_chunk = 32K\nio_depth = 3\n";
  g.set_disk("mnt0_read_chunk=64K\nmnt0_io_depth=2\nmnt1_write_chunk=128K\nmnt1_config=slow.cfg\n");
  auto info = read_graph_ini(g.ini);
  REQUIRE(info);
  REQUIRE(info->volume_settings.size() == 2);
  auto v1 = ini_volume_settings(*info, 1);
  REQUIRE(v1);
  CHECK(v1->read_chunk == 32 << 10);
  CHECK(v1->write_chunk == 128 << 10);  // the explicit key wins over the preset, whatever the line order
  CHECK(v1->depth == 3);

  const ProcessResult r = g.run("set.txt");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(stat_value(r.out, "CORE::VOLUME::0::READ_CHUNK") == "65536");
  CHECK(stat_value(r.out, "CORE::VOLUME::0::WRITE_CHUNK") == "16384");  // not given: the run's
  CHECK(stat_value(r.out, "CORE::VOLUME::0::IO_DEPTH") == "2");
  CHECK(stat_value(r.out, "CORE::VOLUME::1::READ_CHUNK") == "32768");
  CHECK(stat_value(r.out, "CORE::VOLUME::1::WRITE_CHUNK") == "131072");
  CHECK(stat_value(r.out, "CORE::VOLUME::1::IO_DEPTH") == "3");
  CHECK(std::stoull(stat_value(r.out, "CORE::VOLUME::0::BYTES_WRITTEN")) > 0);
  CHECK(std::stoull(stat_value(r.out, "CORE::VOLUME::1::BYTES_WRITTEN")) > 0);

  g.set_disk("");
  const ProcessResult plain = g.run("plain.txt");
  REQUIRE(plain.exit_code == 0);
  CHECK(stat_value(plain.out, "CORE::VOLUME::1::READ_CHUNK") == "16384");
  CHECK(slurp(g.dir / "set.txt") == slurp(g.dir / "plain.txt"));

  // --work_dir replaces the .ini's volumes, and with them their settings.
  const ProcessResult overridden = run_driver_in_process({"-g", g.ini.string(), "-b", "pagerank", "-k", "4", "--read_chunk",
                                                          "16K", "--work_dir", g.vol0.path().string()});
  REQUIRE(overridden.exit_code == 0);
  CHECK(stat_value(overridden.out, "CORE::CONFIG::VOLUMES") == "1");
  CHECK(stat_value(overridden.out, "CORE::VOLUME::0::READ_CHUNK") == "16384");

  // The shipped presets (which also name codecs for --config) work as volume presets.
  const fs::path shipped = fs::path(EDGESTREAM_SOURCE_DIR) / "configs" / "network-volume.cfg";
  g.set_disk("mnt1_config=" + shipped.string() + "\n");
  const ProcessResult preset = g.run("preset.txt");
  INFO(preset.err);
  REQUIRE(preset.exit_code == 0);
  CHECK(stat_value(preset.out, "CORE::VOLUME::1::READ_CHUNK") == "1048576");
  CHECK(stat_value(preset.out, "CORE::VOLUME::1::IO_DEPTH") == "16");

  // write_graph_ini keeps the keys.
  g.set_disk("mnt1_io_depth=7\n");
  auto again = read_graph_ini(g.ini);
  REQUIRE(again);
  again->ini_path = g.dir / "copy.ini";
  again->name = (g.dir / "g").string();
  REQUIRE(write_graph_ini(*again).is_ok());
  CHECK_THAT(slurp(g.dir / "copy.ini"), Catch::Contains("mnt1_io_depth=7"));
}

TEST_CASE("ini_volumes: bad per-volume keys are refused naming the .ini line", "[ini_volumes]") {
  DiskGraph g;
  struct Case {
    const char* keys;
    const char* needle;
  };
  for (const Case& c : {Case{"mnt2_read_chunk=1M\n", "names volume 2 but [disk] count=2"},
                        Case{"mnt0_speed=fast\n", "unknown volume setting 'mnt0_speed'"},
                        Case{"mntx_read_chunk=1M\n", "unknown [disk] key 'mntx_read_chunk'"},
                        Case{"mnt1_read_chunk=1000\n", "mnt1_read_chunk: read_chunk must be a multiple of 4K"},
                        Case{"mnt0_io_depth=0\n", "mnt0_io_depth: io_depth must be between 1 and 256"},
                        Case{"mnt1_config=missing.cfg\n", "missing.cfg"}}) {
    INFO(c.keys);
    g.set_disk(c.keys);
    const ProcessResult r = g.run("o.txt");
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(g.ini.string() + ":") && Catch::Contains(c.needle));
    CHECK(fs::is_empty(g.vol0.path()));
    CHECK(fs::is_empty(g.vol1.path()));
  }
}

}  // namespace edgestream::test
