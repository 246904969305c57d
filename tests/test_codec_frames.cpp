// [codec_frames]: scratch streams are framed with a crc32 also with the `none` codec (the default,
// docs/compression.md): raw frames round-trip at frame boundaries, cost exactly one 32-byte header
// per frame, and a flipped byte anywhere in a stored chunk is corruption naming the file and the
// frame's offset; in a run, a flipped weight byte of an edge stream (which no id range check can
// see), a byte of an update stream and a byte of the vertex-state file are all reported, and
// --no_scratch_checksums gives back the unframed format.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "compress/framed_stream.hpp"
#include "io/fault_injection.hpp"
#include "io/file.hpp"
#include "tests/test_support.hpp"

namespace edgestream::test {
namespace {

namespace fs = std::filesystem;
namespace fi = fault_injection;

std::vector<std::byte> pattern(std::size_t n) {
  std::vector<std::byte> v(n);
  std::uint32_t x = 12345;
  for (auto& b : v) {
    x = x * 1103515245U + 12345U;
    b = static_cast<std::byte>(x >> 24);
  }
  return v;
}

IoOptions small_io() {
  IoOptions io;
  io.read_chunk = 8192;
  io.write_chunk = 8192;
  io.depth = 2;
  return io;
}

// Writes `data` as a `none` stream with checksums (frames of `frame` bytes); returns stored bytes.
std::uint64_t write_raw_framed(const File& file, const std::vector<std::byte>& data, std::size_t frame, bool* framed) {
  auto writer = FramedWriter::open(file, small_io(), CodecSpec{}, /*checksums=*/true, frame, nullptr);
  REQUIRE(writer);
  FrameScratch scratch;
  for (std::size_t at = 0; at < data.size(); at += 1000) {
    const std::size_t n = std::min<std::size_t>(1000, data.size() - at);
    REQUIRE((*writer)->append(std::span<const std::byte>(data.data() + at, n), scratch).is_ok());
  }
  REQUIRE((*writer)->finish(scratch).is_ok());
  CHECK(scratch.bytes.size() == 0);  // raw frames need no compression output buffer
  *framed = (*writer)->framed();
  const CodecCounters& c = (*writer)->codec_counters();
  CHECK(c.frames == c.raw_frames);
  CHECK(c.raw_bytes == data.size());
  return (*writer)->bytes_stored();
}

Expected<std::vector<std::byte>> read_back(const File& file, std::uint64_t stored, std::uint64_t raw, std::size_t frame) {
  ES_ASSIGN_OR_RETURN(auto reader, FramedReader::open(file, stored, raw, small_io(), true, frame, 3, nullptr, nullptr, nullptr));
  std::vector<std::byte> back;
  for (;;) {
    ES_ASSIGN_OR_RETURN(auto chunk, reader->next());
    if (chunk.empty()) return back;
    back.insert(back.end(), chunk.begin(), chunk.end());
  }
}


}  // namespace

TEST_CASE("codec_frames: none streams with checksums are raw frames that round-trip at frame boundaries", "[codec_frames]") {
  TempDir dir;
  const std::size_t frame = 4096;
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, frame - 1, frame, frame + 1, 3 * frame, 5 * frame + 77}) {
    INFO("size " << size);
    const auto data = pattern(size);
    std::string name = "s";
    name += std::to_string(size);  // (operator+ on a literal trips GCC 12's -Wrestrict false positive)
    const fs::path path = dir / name;
    auto file = File::open(path, OpenMode::kCreate, true);
    REQUIRE(file);
    bool framed = false;
    const std::uint64_t stored = write_raw_framed(*file, data, frame, &framed);
    CHECK(framed);
    const std::uint64_t frames = (size + frame - 1) / frame;
    CHECK(stored == size + frames * kFrameHeaderBytes);  // exactly one header per frame
    CHECK(fs::file_size(path) == stored);
    auto back = read_back(*file, stored, size, frame);
    REQUIRE(back);
    CHECK(*back == data);
  }
}

TEST_CASE("codec_frames: a flipped byte anywhere in a raw frame is corruption naming the file and the frame offset", "[codec_frames]") {
  TempDir dir;
  const std::size_t frame = 4096;
  const auto data = pattern(3 * frame + 100);
  const fs::path path = dir / "stream";
  const std::uint64_t frame_stride = kFrameHeaderBytes + frame;
  // Header bytes (magic, codec, lengths, offset, crcs) and payload start/middle/end, in frames 0 and 2.
  for (const std::uint64_t frame_start : {std::uint64_t{0}, 2 * frame_stride}) {
    for (const std::uint64_t at : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{9}, std::uint64_t{13}, std::uint64_t{17},
                                   std::uint64_t{25}, std::uint64_t{30}, std::uint64_t{kFrameHeaderBytes},
                                   std::uint64_t{kFrameHeaderBytes + frame / 2}, std::uint64_t{frame_stride - 1}}) {
      INFO("frame at " << frame_start << ", byte " << at);
      auto file = File::open(path, OpenMode::kCreate, true);
      REQUIRE(file);
      bool framed = false;
      const std::uint64_t stored = write_raw_framed(*file, data, frame, &framed);
      REQUIRE(flip_byte(path, frame_start + at, 0x01));
      auto back = read_back(*file, stored, data.size(), frame);
      REQUIRE_FALSE(back);
      CHECK(back.status().code() == StatusCode::kCorruption);
      CHECK_THAT(back.status().message(), Catch::Contains(path.string()) &&
                                              Catch::Contains("at byte offset " + std::to_string(frame_start)));
    }
  }
}

// The run every engine-level case uses: 4 partitions, 64 KiB requests, depth 1 (so the flipped byte
// near a stream's end is read after the flip).
struct FrameGraph {
  TempDir graph_dir;
  TempDir work;
  TempDir out_dir;
  fs::path ini = write_graph(graph_dir.path(), "r", random_edges(1 << 14, 200000, 33), 1 << 14);
  std::string algorithm = "pagerank";
  std::vector<std::string> args(const std::vector<std::string>& extra) const {
    std::vector<std::string> a{"-g", (graph_dir / "r").string(), "-b", algorithm, "--pagerank::niters", "3", "-k", "4",
                               "--work_dir", work.path().string(), "--write_chunk", "64K", "--read_chunk", "64K",
                               "--io_depth", "1", "--io_engine", "sync", "--output", (out_dir / "out.txt").string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

// Runs the driver with a rule that flips a byte `from_end` bytes before the end of scratch file
// `name` when it is first read.
ProcessResult run_with_flip(const FrameGraph& g, const std::string& name, std::uint64_t from_end,
                            const std::vector<std::string>& extra, std::uint64_t* hits) {
  fi::Rule flip;
  flip.op = fi::Op::kRead;
  flip.path_contains = name;
  flip.times = 1;
  const fs::path work = g.work.path();
  auto flipped = std::make_shared<std::atomic<bool>>(false);
  flip.on_hit = [work, name, from_end, flipped] {
    *flipped = flip_scratch_byte(work, name, -static_cast<long long>(from_end), 0x10);
  };
  FaultGuard guard({flip});
  ProcessResult r = run_driver_in_process(g.args(extra));
  *hits = fi::injected_count();
  REQUIRE((*hits == 0 || *flipped));  // the scratch file was found and damaged when the rule fired
  return r;
}

TEST_CASE("codec_frames: a flipped weight byte in an edge stream is reported by default, unseen without checksums", "[codec_frames]") {
  FrameGraph g;
  // sssp reads weights, so its edge streams keep them (pagerank's hold 8-byte records without).
  g.algorithm = "sssp";
  // The last byte of the stream: the top byte of the last record's weight (an id range check
  // cannot see it; before framed none streams the run used the damaged weight).
  std::uint64_t hits = 0;
  ProcessResult r = run_with_flip(g, "edges.0", 1, {}, &hits);
  INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
  REQUIRE(hits == 1);
  CHECK(r.exit_code == 1);
  const auto lines = message_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::Contains("corrupt stored chunk in " + g.work.path().string() + "/edgestream-") &&
                           Catch::Contains("edges.0 at byte offset") && Catch::Contains("checksum mismatch"));
  CHECK(fs::is_empty(g.work.path()));
  CHECK(fs::is_empty(g.out_dir.path()));

  // The opt-out writes unframed records: the same flip goes through (what the default prevents).
  r = run_with_flip(g, "edges.0", 1, {"--no_scratch_checksums"}, &hits);
  INFO("opt-out: exit " << r.exit_code << "\nstderr:\n" << r.err);
  REQUIRE(hits == 1);
  CHECK(r.exit_code == 0);
  CHECK(stat_value(r.out, "CORE::CONFIG::SCRATCH_CHECKSUMS") == "0");
}

TEST_CASE("codec_frames: a flipped byte in an update stream or the vertex-state file is corruption naming it", "[codec_frames]") {
  FrameGraph g;
  SECTION("update stream") {
    std::uint64_t hits = 0;
    ProcessResult r = run_with_flip(g, "updates0.1", 3, {}, &hits);
    INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
    REQUIRE(hits == 1);
    CHECK(r.exit_code == 1);
    const auto lines = message_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains("corrupt stored chunk in") && Catch::Contains("updates0.1 at byte offset"));
  }
  SECTION("vertex state") {
    std::uint64_t hits = 0;
    // The first read of the vertex file is partition 0's; the flip lands in partition 3's state.
    ProcessResult r = run_with_flip(g, "vertices", 3, {}, &hits);
    INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
    REQUIRE(hits == 1);
    CHECK(r.exit_code == 1);
    const auto lines = message_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains("vertex state file") && Catch::Contains("checksum mismatch in partition 3") &&
                             Catch::Contains("byte offset"));
  }
  CHECK(fs::is_empty(g.work.path()));
}

TEST_CASE("codec_frames: framed none streams give the same results as unframed ones and report the setting", "[codec_frames]") {
  FrameGraph g;
  ProcessResult framed = run_driver_in_process(g.args({"--verify"}));
  REQUIRE(framed.exit_code == 0);
  const std::string framed_out = slurp(g.out_dir / "out.txt");
  CHECK_THAT(framed.out, Catch::Contains("Verification: PASS"));
  CHECK(stat_value(framed.out, "CORE::CONFIG::SCRATCH_CHECKSUMS") == "1");
  ProcessResult raw = run_driver_in_process(g.args({"--no_scratch_checksums"}));
  REQUIRE(raw.exit_code == 0);
  CHECK(slurp(g.out_dir / "out.txt") == framed_out);
  // Framed streams store one 32-byte header per frame besides the records (the device counters
  // hide it in the padding of the last aligned write, so the codec counters are checked).
  const auto value = [](const ProcessResult& r, const char* key) { return std::stoull(stat_value(r.out, key)); };
  CHECK(value(framed, "CORE::COMPRESSION::EDGES::RAW_BYTES") == 200000 * 8);  // pagerank never reads the weight
  const std::uint64_t headers =
      value(framed, "CORE::COMPRESSION::EDGES::STORED_BYTES") - value(framed, "CORE::COMPRESSION::EDGES::RAW_BYTES");
  CHECK(headers > 0);
  CHECK(headers % kFrameHeaderBytes == 0);
  CHECK(value(raw, "CORE::COMPRESSION::EDGES::STORED_BYTES") == 0);  // unframed: nothing went through frames
}

// K > 1 edge streams keep a weighted input's weight only for programs that read it: pagerank's
// records are 8 bytes, sssp's 12; both verify against their in-memory references.
TEST_CASE("codec_frames: edge streams drop the weight for programs that never read it", "[codec_frames]") {
  for (const char* algorithm : {"pagerank", "sssp"}) {
    FrameGraph g;
    g.algorithm = algorithm;
    const ProcessResult r = run_driver_in_process(g.args({"--verify"}));
    INFO(algorithm << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Verification: PASS"));
    const std::uint64_t record = std::string(algorithm) == "pagerank" ? 8 : 12;
    CHECK(std::stoull(stat_value(r.out, "CORE::COMPRESSION::EDGES::RAW_BYTES")) == 200000 * record);
  }
}

}  // namespace edgestream::test
