// [volumes] Scratch volumes (docs/volumes.md): the stripe arithmetic; striped files written and read
// back through SequentialWriter/SequentialReader with different chunk sizes and depths per volume
// (and several requests in flight on every volume); identical results with 1, 2 and 3 volumes for
// the foundation algorithms and two of the suite; X-Stream's placement options routing streams to
// the named volume (seen in the directories while the run is in progress and in the per-volume
// statistics); a tmpfs volume beside the ext4 one; errors for bad indexes, missing directories and
// bad settings; scratch removed on every volume after success, error and signal.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include "core/cancellation.hpp"
#include "core/scratch_directory.hpp"
#include "core/volume_set.hpp"
#include "io/aligned_buffer.hpp"
#include "io/fault_injection.hpp"
#include "io/file.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"
#include "io/striped_file.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;
namespace fs = std::filesystem;

std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> out(n);
  for (auto& b : out) b = static_cast<std::byte>(rng() & 0xFF);
  return out;
}

bool all_empty(const std::vector<const TempDir*>& dirs) {
  for (const TempDir* d : dirs) {
    if (!fs::is_empty(d->path())) return false;
  }
  return true;
}

// Names of the files under `dir` (recursive), without the per-run directory and its lock file
// (core/scratch_directory.hpp; made under a temporary name, then renamed).
std::set<std::string> file_names(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == kScratchLockName || name == ".edgestream.lock.new") continue;
    if (it->is_regular_file(ec)) names.insert(name);
  }
  return names;
}

}  // namespace

TEST_CASE("volumes: stripe arithmetic", "[volumes]") {
  // 3 members, 8 KiB stripes: stripe 4 is member 1's second stripe.
  const StripeLocation at = locate_stripe(4 * 8192 + 100, 3, 8192);
  CHECK(at.member == 1);
  CHECK(at.member_offset == 8192 + 100);
  CHECK(at.contiguous == 8192 - 100);
  // Member lengths add up to the logical size, and the partial stripe is on the right member.
  for (const std::uint64_t size : {0ULL, 1ULL, 8191ULL, 8192ULL, 3 * 8192ULL, 7 * 8192ULL + 5ULL}) {
    std::uint64_t sum = 0;
    for (std::size_t m = 0; m < 3; ++m) sum += stripe_member_length(size, m, 3, 8192);
    CHECK(sum == size);
  }
  CHECK(stripe_member_length(7 * 8192 + 5, 0, 3, 8192) == 3 * 8192);
  CHECK(stripe_member_length(7 * 8192 + 5, 1, 3, 8192) == 2 * 8192 + 5);
  CHECK(stripe_member_length(7 * 8192 + 5, 2, 3, 8192) == 2 * 8192);
}

TEST_CASE("volumes: striped files round-trip with per-volume chunks and depths", "[volumes]") {
  TempDir a, b, c;
  VolumeCounters counters[3];
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      INFO((direct ? "direct" : "buffered") << (engine == IoEngine::kUring ? " uring" : " sync"));
      StripeLayout layout;
      layout.unit = 16384;
      IoOptions io_a{4096, 8192, 4, direct, engine};
      IoOptions io_b{16384, 4096, 2, direct, engine};
      IoOptions io_c{8192, 16384, 3, direct, engine};
      layout.members = {{a / "s", io_a, &counters[0]}, {b / "s", io_b, &counters[1]}, {c / "s", io_c, &counters[2]}};
      auto file = File::open_striped(layout, OpenMode::kCreate, direct);
      REQUIRE(file.has_value());
      const auto data = random_bytes(40 * 16384 + 777, direct ? 1 : 2);
      IoOptions io;  // the stream's defaults; the members' own settings win
      io.engine = engine;
      io.direct = direct;
      auto writer = SequentialWriter::open(*file, io, nullptr);
      REQUIRE(writer.has_value());
      // Appends of odd sizes cross buffer and stripe boundaries.
      for (std::size_t at = 0; at < data.size();) {
        const std::size_t n = std::min<std::size_t>(data.size() - at, 1000 + at % 5000);
        REQUIRE((*writer)->append(std::span(data.data() + at, n)).is_ok());
        at += n;
      }
      REQUIRE((*writer)->finish().is_ok());
      CHECK(fs::file_size(a / "s") == stripe_member_length(data.size(), 0, 3, 16384));
      CHECK(fs::file_size(b / "s") == stripe_member_length(data.size(), 1, 3, 16384));
      CHECK(fs::file_size(c / "s") == stripe_member_length(data.size(), 2, 3, 16384));
      CHECK(file->size().value() == data.size());
      // Member 1 holds logical stripe 1 at its offset 0.
      const std::string b_bytes = slurp(b / "s");
      REQUIRE(b_bytes.size() >= 16384);
      CHECK(std::memcmp(b_bytes.data(), data.data() + 16384, 16384) == 0);
      IoCounters read_counters;
      auto reader = SequentialReader::open(*file, 0, data.size(), io, &read_counters);
      REQUIRE(reader.has_value());
      std::vector<std::byte> back;
      for (;;) {
        auto chunk = (*reader)->next();
        REQUIRE(chunk.has_value());
        if (chunk->empty()) break;
        CHECK(chunk->size() <= 16384);
        back.insert(back.end(), chunk->begin(), chunk->end());
      }
      CHECK(back == data);
      CHECK(read_counters.bytes_read == data.size());
      // read_at across stripes, from an aligned offset.
      AlignedBuffer middle(3 * 16384);
      auto got = file->read_at(16384 + 4096, std::span(middle.data(), middle.size()));
      REQUIRE(got.has_value());
      CHECK(*got == middle.size());
      CHECK(std::memcmp(middle.data(), data.data() + 16384 + 4096, middle.size()) == 0);
    }
  }
  // With io_uring, one stream kept several requests in flight on each volume, never more than the
  // volume's depth.
  for (int v = 0; v < 3; ++v) {
    INFO("volume " << v << " mean in flight " << double(counters[v].in_flight_sum) / double(counters[v].async_requests));
    CHECK(counters[v].async_requests > 0);
    CHECK(counters[v].max_in_flight >= 2);
    CHECK(counters[v].bytes_read > 0);
    CHECK(counters[v].bytes_written > 0);
  }
  CHECK(counters[0].max_in_flight <= 4);
  CHECK(counters[1].max_in_flight <= 2);
  CHECK(counters[2].max_in_flight <= 3);
}

TEST_CASE("volumes: errors name the member file and its offset; fault injection applies to members", "[volumes]") {
  TempDir a, b;
  StripeLayout layout;
  layout.unit = 8192;
  // Depth 1 per member: a striped file's reader keeps each member's own depth in flight (not the
  // reader's), and the rule below needs one request of b at a time.
  layout.members = {{a / "m", IoOptions{4096, 4096, 1, true, IoEngine::kUring}, nullptr},
                    {b / "m", IoOptions{4096, 4096, 1, true, IoEngine::kUring}, nullptr}};
  auto file = File::open_striped(layout, OpenMode::kCreate, true);
  REQUIRE(file.has_value());
  const auto bytes = random_bytes(64 * 1024, 3);
  AlignedBuffer data(bytes.size());
  std::memcpy(data.data(), bytes.data(), bytes.size());
  REQUIRE(file->write_at(0, std::span<const std::byte>(data.data(), data.size())).is_ok());
  namespace fi = fault_injection;
  fi::set_rules({fi::Rule{fi::Op::kRead, (b / "m").string(), 8192, EIO, 0, 1}});
  // One request of b in flight (the members' depth 1 above): the rule counts completed bytes, so
  // with several in flight the request that fails would be whichever completed after 8192 bytes of
  // b (member offset 8192 or 12288, depending on completion order; CI saw 12288 twice, the second
  // time with this reader's depth 1 and the members' depth 2).
  auto reader = SequentialReader::open(*file, 0, data.size(), IoOptions{4096, 4096, 1, true, IoEngine::kUring}, nullptr);
  REQUIRE(reader.has_value());
  Status error;
  for (;;) {
    auto chunk = (*reader)->next();
    if (!chunk) {
      error = chunk.status();
      break;
    }
    if (chunk->empty()) break;
  }
  fi::clear();
  INFO(error.message());
  REQUIRE_FALSE(error.is_ok());
  CHECK_THAT(error.message(), Catch::Contains((b / "m").string()));
  CHECK_THAT(error.message(), Catch::Contains("8192"));
  CHECK_THAT(file->describe_offset(3 * 8192), Catch::Contains((b / "m").string() + " at offset 8192"));
}

TEST_CASE("volumes: --work_dir settings, presets and placement validation", "[volumes]") {
  TempDir dir;
  auto plain = parse_work_dir(dir.path().string());
  REQUIRE(plain.has_value());
  CHECK(plain->first == dir.path());
  CHECK(plain->second.read_chunk == 0);
  auto set = parse_work_dir(dir.path().string() + ",read_chunk=1M,write_chunk=2M,io_depth=16");
  REQUIRE(set.has_value());
  CHECK(set->first == dir.path());
  CHECK(set->second.read_chunk == (1U << 20));
  CHECK(set->second.write_chunk == (2U << 20));
  CHECK(set->second.depth == 16);
  {
    std::ofstream(dir / "preset.cfg") << "# a preset\nread_chunk = 1M\nwrite_chunk = 1M\nio_depth = 16\n";
  }
  auto preset = parse_work_dir(dir.path().string() + ",config=" + (dir / "preset.cfg").string() + ",io_depth=3");
  REQUIRE(preset.has_value());
  CHECK(preset->second.read_chunk == (1U << 20));
  CHECK(preset->second.depth == 3);  // given after the preset: wins
  auto bad_key = parse_work_dir(dir.path().string() + ",read_chunks=1M");
  REQUIRE_FALSE(bad_key.has_value());
  CHECK_THAT(bad_key.status().message(), Catch::Contains("unknown volume setting 'read_chunks'"));
  auto bad_chunk = parse_work_dir(dir.path().string() + ",read_chunk=1000");
  REQUIRE_FALSE(bad_chunk.has_value());
  CHECK_THAT(bad_chunk.status().message(), Catch::Contains("multiple of 4K"));
  auto missing_preset = parse_work_dir(dir.path().string() + ",config=/nonexistent/x.cfg");
  REQUIRE_FALSE(missing_preset.has_value());
  CHECK_THAT(missing_preset.status().message(), Catch::Contains("/nonexistent/x.cfg"));
  VolumePlacement placement;
  placement.updates1 = 2;
  const Status status = validate_placement(placement, 2);
  REQUIRE_FALSE(status.is_ok());
  CHECK_THAT(status.message(), Catch::Contains("--updates1_disk 2"));
  CHECK_THAT(status.message(), Catch::Contains("2 volumes"));
  CHECK(validate_placement(placement, 3).is_ok());
}

namespace {

// Runs the driver in-process with the given scratch volumes; returns (result, --output text).
std::pair<ProcessResult, std::string> run_on(const fs::path& ini, const std::string& algorithm,
                                              const std::vector<std::string>& volumes,
                                              const std::vector<std::string>& extra) {
  TempDir out;
  std::vector<std::string> args = {"-g", ini.string(), "-b", algorithm, "--output", (out / "o.txt").string(),
                                   "--read_chunk", "16K", "--write_chunk", "16K"};
  if (std::find(extra.begin(), extra.end(), "--pagerank::niters") == extra.end()) {
    args.push_back("--pagerank::niters");
    args.push_back("5");
  }
  for (const auto& v : volumes) {
    args.push_back("--work_dir");
    args.push_back(v);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = run_driver_in_process(args);
  return {r, slurp(out / "o.txt")};
}

}  // namespace

TEST_CASE("volumes: identical results with 1, 2 and 3 striped volumes", "[volumes]") {
  TempDir graph_dir;
  const fs::path ini = write_graph(graph_dir.path(), "g", random_edges(3000, 24000, 41), 3000);
  TempDir v0, v1, v2;
  const std::vector<const TempDir*> all = {&v0, &v1, &v2};
  struct Cell {
    const char* p;
    bool direct;
    const char* codec;
  };
  const Cell cells[] = {{"1", true, "none"}, {"2", true, "snappy"}, {"1", false, "snappy"}, {"2", false, "none"}};
  for (const char* algorithm : {"pagerank", "bfs", "cc", "sssp", "scc", "mcst"}) {
    for (const Cell& cell : cells) {
      std::vector<std::string> extra = {"-k", "4", "-p", cell.p, "--edges_codec", cell.codec, "--updates_codec", cell.codec};
      if (!cell.direct) extra.push_back("--no_dio");
      std::string reference;
      for (int n = 1; n <= 3; ++n) {
        INFO(algorithm << " -p " << cell.p << (cell.direct ? " direct" : " --no_dio") << " codec " << cell.codec << " volumes "
                       << n);
        std::vector<std::string> volumes = {v0.path().string()};
        // Volumes with their own depths. (Equal chunks: the read chunk decides where record runs
        // end and the write chunk the frame size, and PageRank's combined float sums follow those
        // boundaries, so only equal chunks can give bit-identical ranks; depth and stripe unit must not matter.)
        if (n >= 2) volumes.push_back(v1.path().string() + ",io_depth=2");
        if (n >= 3) volumes.push_back(v2.path().string() + ",io_depth=3,read_chunk=16K,write_chunk=16K");
        if (n >= 3) extra.insert(extra.end(), {"--stripe_unit", "32K"});
        auto [r, output] = run_on(ini, algorithm, volumes, extra);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(stat_value(r.out, "CORE::CONFIG::PARTITIONS") == "4");
        CHECK(stat_value(r.out, "CORE::CONFIG::VOLUMES") == std::to_string(n));
        REQUIRE_FALSE(output.empty());
        if (n == 1) {
          reference = output;
        } else {
          CHECK(output == reference);
          // Striping used every volume.
          for (int v = 0; v < n; ++v) {
            CHECK(std::stoull(stat_value(r.out, "CORE::VOLUME::" + std::to_string(v) + "::BYTES_WRITTEN")) > 0);
          }
        }
        CHECK(all_empty(all));
      }
    }
  }
}

TEST_CASE("volumes: per-volume statistics add up to the scratch streams' traffic", "[volumes]") {
  TempDir graph_dir;
  const fs::path ini = write_graph(graph_dir.path(), "g", random_edges(3000, 24000, 43), 3000);
  TempDir v0, v1;
  TempDir out;
  // Different chunks per volume (a 16K stripe: one 16K read on volume 0, two 8K reads on volume 1).
  auto [r, output] = run_on(ini, "pagerank", {v0.path().string(), v1.path().string() + ",read_chunk=8K,write_chunk=16K"},
                            {"-k", "4", "--verify", "--stats_json", (out / "s.json").string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string stats_text = r.out;
  auto value = [&](const std::string& key) { return std::stoull(stat_value(stats_text, key)); };
  const std::uint64_t written = value("CORE::VOLUME::0::BYTES_WRITTEN") + value("CORE::VOLUME::1::BYTES_WRITTEN");
  const std::uint64_t read = value("CORE::VOLUME::0::BYTES_READ") + value("CORE::VOLUME::1::BYTES_READ");
  CHECK(written == value("CORE::BYTES::EDGES_WRITTEN") + value("CORE::BYTES::UPDATES_WRITTEN") +
                       value("CORE::BYTES::VERTICES_WRITTEN"));
  CHECK(read == value("CORE::BYTES::EDGES_READ") + value("CORE::BYTES::UPDATES_READ") + value("CORE::BYTES::VERTICES_READ"));
  CHECK_THAT(r.out, Catch::Contains("Verification: PASS"));
  CHECK(value("CORE::VOLUME::1::READ_CHUNK") == 8192);
  // One stream kept several requests in flight on each volume.
  CHECK(value("CORE::VOLUME::0::MAX_IN_FLIGHT") >= 2);
  CHECK(value("CORE::VOLUME::1::MAX_IN_FLIGHT") >= 2);
  const std::string json = slurp(out / "s.json");
  CHECK_THAT(json, Catch::Contains("\"volumes\":[{\"path\":\"" + v0.path().string() + "\""));
  CHECK_THAT(json, Catch::Contains("\"mean_in_flight\":"));
  CHECK_THAT(json, Catch::Contains("\"streams\":{\"input\":"));  // existing keys unchanged
}

TEST_CASE("volumes: placement options route streams to the named volumes", "[volumes]") {
  TempDir graph_dir;
  const fs::path ini = write_graph(graph_dir.path(), "g", random_edges(20000, 400000, 47), 20000);
  TempDir v0, v1, v2;
  const std::vector<const TempDir*> all = {&v0, &v1, &v2};
  // A long run, watched: the file names seen on each volume while it is in progress; stopped by a
  // (simulated) SIGINT once files were seen everywhere.
  std::map<int, std::set<std::string>> seen;
  std::atomic<bool> stop{false};
  std::atomic<bool> fired{false};
  std::thread watcher([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!stop) {
      if (std::chrono::steady_clock::now() > deadline) {  // never seen: stop the run anyway (the test fails)
        set_cancel_signal_for_testing(SIGINT);
        return;
      }
      int i = 0;
      bool everywhere = true;
      for (const TempDir* d : all) {
        auto names = file_names(d->path());
        everywhere = everywhere && !names.empty();
        seen[i++].insert(names.begin(), names.end());
      }
      // 4 edge streams + 4 + 4 update streams + the vertex file, all created at setup.
      if (everywhere && seen[0].size() + seen[1].size() + seen[2].size() >= 13) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        set_cancel_signal_for_testing(SIGINT);
        fired = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  });
  auto [r, output] = run_on(ini, "pagerank", {v0.path().string(), v1.path().string(), v2.path().string()},
                            {"-k", "4", "--pagerank::niters", "100000", "--edges_disk", "1", "--updates0_disk", "2",
                             "--updates1_disk", "0", "--vertices_disk", "2"});
  stop = true;
  watcher.join();
  set_cancel_signal_for_testing(0);
  INFO(r.err);
  REQUIRE(fired);
  CHECK(r.exit_code == 128 + SIGINT);
  CHECK(all_empty(all));  // scratch removed on every volume after the signal
  auto only = [&](int v, const std::string& prefix) {
    for (const auto& name : seen[v]) {
      INFO("volume " << v << " holds " << name);
      CHECK(name.rfind(prefix, 0) == 0);
    }
  };
  only(1, "edges.");
  for (const auto& name : seen[2]) {
    INFO("volume 2 holds " << name);
    CHECK((name.rfind("updates0.", 0) == 0 || name == "vertices"));
  }
  only(0, "updates1.");
  CHECK(seen[1].count("edges.3") == 1);  // placed streams are whole files, not stripes
}

TEST_CASE("volumes: a tmpfs volume beside the disk (buffered fallback on one volume only)", "[volumes]") {
  if (!fs::is_directory("/dev/shm")) {
    WARN("SKIP: /dev/shm is missing; the tmpfs + ext4 volume case is not run");
    return;
  }
  TempDir graph_dir;
  const fs::path ini = write_graph(graph_dir.path(), "g", random_edges(3000, 24000, 53), 3000);
  TempDir disk;
  const fs::path shm = fs::path("/dev/shm") / ("edgestream-volumes-test-" + std::to_string(::getpid()));
  fs::create_directories(shm);
  auto [ref, ref_out] = run_on(ini, "sssp", {disk.path().string()}, {"-k", "4"});
  REQUIRE(ref.exit_code == 0);
  auto [r, output] = run_on(ini, "sssp", {disk.path().string(), shm.string()}, {"-k", "4"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(output == ref_out);
  CHECK(std::stoull(stat_value(r.out, "CORE::VOLUME::1::BYTES_WRITTEN")) > 0);
  CHECK(fs::is_empty(shm));
  CHECK(fs::is_empty(disk.path()));
  std::error_code ec;
  fs::remove_all(shm, ec);
}

TEST_CASE("volumes: bad indexes, missing directories and injected errors", "[volumes]") {
  TempDir graph_dir;
  const fs::path ini = write_graph(graph_dir.path(), "g", random_edges(3000, 24000, 59), 3000);
  TempDir v0, v1;
  {
    auto [r, out] = run_on(ini, "bfs", {v0.path().string(), v1.path().string()}, {"-k", "4", "--edges_disk", "2"});
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("--edges_disk 2") && Catch::Contains("2 volumes"));
  }
  {
    auto [r, out] = run_on(ini, "bfs", {}, {"-k", "4", "--vertices_disk", "1"});  // one volume: the graph's directory
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("--vertices_disk 1") && Catch::Contains("1 volume"));
  }
  {
    auto [r, out] = run_on(ini, "bfs", {v0.path().string(), (v1 / "missing").string()}, {"-k", "4"});
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains((v1 / "missing").string()));
  }
  {
    auto [r, out] = run_on(ini, "bfs", {v0.path().string() + ",io_depth=0"}, {"-k", "4"});
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("io_depth"));
  }
  {
    // An .ini [disk] volume that does not exist.
    std::ofstream(graph_dir / "g.ini", std::ios::app) << "[disk]\ncount=2\nmnt0=" << v0.path().string()
                                                      << "\nmnt1=" << (v1 / "nope").string() << "\n";
    auto [r, out] = run_on(ini, "bfs", {}, {"-k", "4"});
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains((v1 / "nope").string()));
  }
  {
    // A write error on a member of the second volume: the error names that member file; scratch
    // removed on both volumes.
    namespace fi = fault_injection;
    fi::set_rules({fi::Rule{fi::Op::kWrite, v1.path().string(), 20000, EIO, 0, -1}});
    auto [r, out] = run_on(ini, "pagerank", {v0.path().string(), v1.path().string()}, {"-k", "4"});
    fi::clear();
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(v1.path().string()));
    CHECK(fs::is_empty(v0.path()));
    CHECK(fs::is_empty(v1.path()));
  }
}
