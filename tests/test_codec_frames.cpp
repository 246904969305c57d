// [codec_frames]: scratch streams are framed with a crc32 also with the `none` codec (the default,
// docs/compression.md): raw frames round-trip at frame boundaries, cost exactly one 32-byte header
// per frame, and a flipped byte anywhere in a stored chunk is corruption naming the file and the
// frame's offset; in a run, a flipped weight byte of an edge stream (which no id range check can
// see), a byte of an update stream and a byte of the vertex-state file are all reported, and
// --no_scratch_checksums gives back the unframed format.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
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
  // cannot see it; before framed none streams the run used the damaged weight). Edge streams
  // `none` (auto is delta for sssp): the opt-out below is for that codec.
  std::uint64_t hits = 0;
  ProcessResult r = run_with_flip(g, "edges.0", 1, {"--edges_codec", "none"}, &hits);
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
  r = run_with_flip(g, "edges.0", 1, {"--edges_codec", "none", "--no_scratch_checksums"}, &hits);
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

namespace edgestream::test {
namespace {

// Compressible bytes (runs of a repeated phrase with a pseudo-random byte every 61), so snappy and
// zlib store most frames compressed, with stored sizes that differ from frame to frame.
std::vector<std::byte> compressible(std::size_t n) {
  static const char kPhrase[] = "edgestream frames selected by offset; ";
  std::vector<std::byte> v(n);
  std::uint32_t x = 777;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1103515245U + 12345U;
    v[i] = i % 61 == 0 ? static_cast<std::byte>(x >> 24) : static_cast<std::byte>(kPhrase[i % (sizeof(kPhrase) - 1)]);
  }
  return v;
}

// Writes `data` with `codec` in frames of `frame` bytes (appends of 1..2999 bytes) keeping the
// frame offsets; returns the stored length.
std::uint64_t write_with_offsets(const File& file, const IoOptions& io, const std::vector<std::byte>& data,
                                 CodecSpec codec, bool checksums, std::size_t frame, std::vector<std::uint64_t>* offsets,
                                 CodecCounters* counters) {
  auto writer = FramedWriter::open(file, io, codec, checksums, frame, nullptr);
  REQUIRE(writer);
  (*writer)->keep_frame_offsets();
  FrameScratch scratch;
  std::uint32_t x = 99;
  for (std::size_t at = 0; at < data.size();) {
    x = x * 1103515245U + 12345U;
    const std::size_t n = std::min<std::size_t>(1 + (x >> 8) % 2999, data.size() - at);
    REQUIRE((*writer)->append(std::span<const std::byte>(data.data() + at, n), scratch).is_ok());
    at += n;
  }
  REQUIRE((*writer)->finish(scratch).is_ok());
  *offsets = (*writer)->frame_offsets();
  *counters = (*writer)->codec_counters();
  return (*writer)->bytes_stored();
}

// Reads `extents` through FramedReader; checks every chunk against `data` at raw_offset() and
// returns the raw offsets of the chunks in order.
Expected<std::vector<std::uint64_t>> read_selected(const File& file, const IoOptions& io, const std::vector<FrameExtent>& extents,
                                                   bool framed, std::size_t frame, const std::vector<std::byte>& data) {
  ES_ASSIGN_OR_RETURN(auto reader, FramedReader::open(file, extents, io, framed, frame, 3, nullptr, nullptr, nullptr));
  std::vector<std::uint64_t> offsets;
  for (int guard = 0; guard < 100000; ++guard) {
    ES_ASSIGN_OR_RETURN(auto chunk, reader->next());
    if (chunk.empty()) return offsets;
    const std::uint64_t at = reader->raw_offset();
    if (at + chunk.size() > data.size() || std::memcmp(chunk.data(), data.data() + at, chunk.size()) != 0) {
      return internal_error("the chunk of " + std::to_string(chunk.size()) + " bytes at raw offset " + std::to_string(at) +
                            " is not the data there");
    }
    offsets.push_back(at);
  }
  return internal_error("next() never reaches the end");
}

// Frames [first, last) of a stream written with `offsets`: their stored bytes and raw bytes.
FrameExtent frame_run(const std::vector<std::uint64_t>& offsets, std::uint64_t stored, std::uint64_t raw, std::size_t frame,
                      std::size_t first, std::size_t last) {
  return FrameExtent{offsets[first], last < offsets.size() ? offsets[last] : stored, first * frame,
                     std::min<std::uint64_t>(last * frame, raw)};
}

}  // namespace

// Runs of whole frames picked by frame_offsets() (none+crc, snappy, zlib, incompressible snappy;
// direct/buffered x uring/sync) decode to exactly those frames at their raw offsets; an extent whose
// raw offsets disagree with its frames' headers is corruption naming the file and the frame.
TEST_CASE("codec_frames: append_through writes the same stream, frame offsets and counters as append", "[codec_frames]") {
  TempDir dir;
  const std::size_t frame = 8192;
  const auto packable = compressible(23 * frame + 1000);
  const auto random = pattern(23 * frame + 1000);
  std::vector<std::byte> records(23 * frame + 1000);  // 8-byte edges by source: what delta packs
  for (std::size_t i = 0; i + 8 <= records.size(); i += 8) {
    const std::uint32_t edge[2] = {static_cast<std::uint32_t>(i / 40), static_cast<std::uint32_t>(1000 + i % 77)};
    std::memcpy(records.data() + i, edge, 8);
  }
  struct Case {
    const char* name;
    CodecSpec codec;
    bool checksums;
    const std::vector<std::byte>* data;
  };
  for (const Case& c : {Case{"none+crc", CodecSpec{}, true, &random}, Case{"none, unframed", CodecSpec{}, false, &random},
                        Case{"snappy", CodecSpec{CodecId::kSnappy, 0}, true, &packable},
                        Case{"snappy, incompressible", CodecSpec{CodecId::kSnappy, 0}, true, &random},
                        Case{"zlib", CodecSpec{CodecId::kZlib, 1}, false, &packable},
                        Case{"delta", for_records(CodecSpec{CodecId::kDelta, 0}, 8), true, &records}}) {
    for (const bool direct : {true, false}) {
      for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
        // Runs of 3 frames, then one of half a frame (the rest buffered: the next run falls back to
        // append), then runs of 2 frames and the tail.
        for (const std::size_t odd_run : {std::size_t{3 * frame}, std::size_t{frame / 2}}) {
          INFO(c.name << (direct ? " direct " : " buffered ") << (engine == IoEngine::kUring ? "uring " : "sync ") << odd_run);
          IoOptions io = small_io();
          io.direct = direct;
          io.engine = engine;
          const std::vector<std::byte>& data = *c.data;
          std::vector<std::size_t> runs;
          for (std::size_t at = 0, k = 0; at < data.size(); ++k) {
            const std::size_t n = std::min(data.size() - at, k < 2 ? 3 * frame : k == 2 ? odd_run : 2 * frame);
            runs.push_back(n);
            at += n;
          }
          std::vector<char> stored[2];
          std::vector<std::uint64_t> offsets[2];
          CodecCounters counters[2];
          for (const bool through : {false, true}) {
            const fs::path path = dir / (through ? "through" : "append");
            auto file = File::open(path, OpenMode::kCreate, direct);
            REQUIRE(file);
            auto writer = FramedWriter::open(*file, io, c.codec, c.checksums, frame, nullptr);
            REQUIRE(writer);
            (*writer)->keep_frame_offsets();
            FrameScratch scratch;
            AlignedBuffer run(3 * frame);
            AlignedBuffer room((*writer)->through_room_bytes(3 * frame));
            CHECK((room.size() > 0) == (*writer)->framed());
            std::size_t at = 0;
            for (const std::size_t n : runs) {
              std::memcpy(run.data(), data.data() + at, n);
              if (through) {
                const Status status = (*writer)->append_through(std::span(run.data(), n), std::span(room.data(), room.size()), scratch, 2 * 4096, 3);
                INFO(status.to_string());
                REQUIRE(status.is_ok());
                std::memset(run.data(), 0xEE, run.size());  // both are the caller's again
                if (room.size() > 0) std::memset(room.data(), 0xEE, room.size());
              } else {
                REQUIRE((*writer)->append(std::span<const std::byte>(run.data(), n), scratch).is_ok());
              }
              at += n;
            }
            REQUIRE((*writer)->finish(scratch).is_ok());
            REQUIRE((*writer)->bytes_appended() == data.size());
            offsets[through ? 1 : 0] = (*writer)->frame_offsets();
            counters[through ? 1 : 0] = (*writer)->codec_counters();
            std::ifstream in(path, std::ios::binary);
            stored[through ? 1 : 0].assign(std::istreambuf_iterator<char>(in), {});
          }
          REQUIRE(stored[0].size() == stored[1].size());
          CHECK(stored[0] == stored[1]);
          CHECK(offsets[0] == offsets[1]);
          CHECK(counters[0].frames == counters[1].frames);
          CHECK(counters[0].raw_frames == counters[1].raw_frames);
          CHECK(counters[0].skipped_frames == counters[1].skipped_frames);
          CHECK(counters[0].raw_bytes == counters[1].raw_bytes);
          CHECK(counters[0].stored_bytes == counters[1].stored_bytes);
          if (c.codec.enabled() && c.data != &random) CHECK(counters[1].frames > counters[1].raw_frames);  // really encoded
        }
      }
    }
  }
}

TEST_CASE("codec_frames: reading selected frame runs by frame_offsets() gives each frame at its raw offset", "[codec_frames]") {
  TempDir dir;
  const std::size_t frame = 4096;
  const auto packable = compressible(20 * frame + 1234);  // 21 frames, the last one short
  const auto random = pattern(20 * frame + 1234);
  const std::size_t frames = 21;
  struct Case {
    const char* name;
    CodecSpec codec;
    const std::vector<std::byte>* data;
  };
  // Incompressible snappy input: frames stored raw, then skipped without trying (write_raw_frame).
  for (const Case& c : {Case{"none+crc", CodecSpec{}, &random}, Case{"snappy", CodecSpec{CodecId::kSnappy, 0}, &packable},
                        Case{"zlib", CodecSpec{CodecId::kZlib, 1}, &packable},
                        Case{"snappy, incompressible", CodecSpec{CodecId::kSnappy, 0}, &random}}) {
    const std::vector<std::byte>& data = *c.data;
    for (const bool direct : {true, false}) {
      for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
        INFO(c.name << (direct ? " direct " : " buffered ") << (engine == IoEngine::kUring ? "uring" : "sync"));
        IoOptions io = small_io();
        io.direct = direct;
        io.engine = engine;
        const fs::path path = dir / "sel";
        auto file = File::open(path, OpenMode::kCreate, direct);
        REQUIRE(file);
        std::vector<std::uint64_t> offsets;
        CodecCounters counters;
        const std::uint64_t stored = write_with_offsets(*file, io, data, c.codec, true, frame, &offsets, &counters);
        REQUIRE(fs::file_size(path) == stored);
        REQUIRE(offsets.size() == frames);
        CHECK(offsets[0] == 0);
        for (std::size_t f = 1; f < frames; ++f) CHECK(offsets[f] > offsets[f - 1]);
        if (c.data == &packable) CHECK(counters.frames > counters.raw_frames);  // really compressed frames
        if (c.codec.enabled() && c.data == &random) CHECK(counters.skipped_frames > 0);
        // The whole stream through the extents overload.
        auto all = read_selected(*file, io, {frame_run(offsets, stored, data.size(), frame, 0, frames)}, true, frame, data);
        INFO(all.status().to_string());
        REQUIRE(all);
        REQUIRE(all->size() == frames);
        // Runs of frames: {1,2}, {5}, {7..last}; single first/last frames; adjacent runs; every other frame.
        const std::vector<std::vector<std::pair<std::size_t, std::size_t>>> selections = {
            {{1, 3}, {5, 6}, {7, frames}},
            {{0, 1}},
            {{frames - 1, frames}},
            {{2, 4}, {4, 5}, {9, 12}, {12, 13}},
            {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}, {16, 17}, {18, 19}, {20, 21}},
            {{3, 18}},
        };
        for (const auto& selection : selections) {
          std::vector<FrameExtent> extents;
          std::vector<std::uint64_t> want;
          for (const auto& [first, last] : selection) {
            extents.push_back(frame_run(offsets, stored, data.size(), frame, first, last));
            for (std::size_t f = first; f < last; ++f) want.push_back(f * frame);
          }
          CAPTURE(extents.size(), extents.front().stored_begin, extents.back().stored_end);
          auto got = read_selected(*file, io, extents, true, frame, data);
          INFO(got.status().to_string());
          REQUIRE(got);
          CHECK(*got == want);  // exactly the selected frames, in order, each whole
        }
        // An extent whose raw_begin is not its first frame's header raw offset is corruption naming the
        // file and the frame's offset: off by one byte, by one frame, and in the second extent of a list.
        for (const std::uint64_t shift : {std::uint64_t{1}, std::uint64_t{frame}}) {
          for (const bool second : {false, true}) {
            std::vector<FrameExtent> extents = {frame_run(offsets, stored, data.size(), frame, 1, 3),
                                                frame_run(offsets, stored, data.size(), frame, 5, 6)};
            FrameExtent& wrong = extents[second ? 1 : 0];
            wrong.raw_begin += shift;
            wrong.raw_end += shift;
            CAPTURE(shift, second);
            auto got = read_selected(*file, io, extents, true, frame, data);
            REQUIRE_FALSE(got);
            CHECK(got.status().code() == StatusCode::kCorruption);
            CHECK_THAT(got.status().message(), Catch::Contains(path.string()) &&
                                                   Catch::Contains("at byte offset " + std::to_string(wrong.stored_begin)));
          }
        }
        // A raw_end that does not match what the extent's frames decode to is corruption too.
        for (const std::int64_t delta : {std::int64_t{-1}, std::int64_t{1}, std::int64_t{frame}}) {
          FrameExtent e = frame_run(offsets, stored, data.size(), frame, 5, 8);
          e.raw_end = static_cast<std::uint64_t>(static_cast<std::int64_t>(e.raw_end) + delta);
          CAPTURE(delta);
          auto got = read_selected(*file, io, {e, frame_run(offsets, stored, data.size(), frame, 9, 10)}, true, frame, data);
          REQUIRE_FALSE(got);
          CHECK(got.status().code() == StatusCode::kCorruption);
          CHECK_THAT(got.status().message(), Catch::Contains(path.string()));
        }
      }
    }
  }
}

// Unframed (none, no checksums): extents are plain byte ranges and raw_offset() is each chunk's
// file offset, inside one extent.
TEST_CASE("codec_frames: an unframed stream read by extents gives raw_offset() = the chunk's stored offset", "[codec_frames]") {
  TempDir dir;
  const auto data = pattern(100003);
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      INFO((direct ? "direct " : "buffered ") << (engine == IoEngine::kUring ? "uring" : "sync"));
      IoOptions io = small_io();
      io.direct = direct;
      io.engine = engine;
      const fs::path path = dir / "raw";
      auto file = File::open(path, OpenMode::kCreate, direct);
      REQUIRE(file);
      std::vector<std::uint64_t> offsets;
      CodecCounters counters;
      const std::uint64_t stored = write_with_offsets(*file, io, data, CodecSpec{}, /*checksums=*/false, 4096, &offsets,
                                                      &counters);
      REQUIRE(stored == data.size());
      CHECK(offsets.empty());  // no frames
      const std::uint64_t n = data.size();
      const std::vector<std::vector<FrameExtent>> lists = {
          {{0, n, 0, n}},
          {{100, 5000, 100, 5000}, {5000, 20000, 5000, 20000}, {30001, 30002, 30001, 30002}, {40000, n, 40000, n}},
          {{8191, 8193, 8191, 8193}, {12288, 12289, 12288, 12289}, {50001, 90001, 50001, 90001}},
          {{n - 1, n, n - 1, n}},
      };
      for (std::size_t l = 0; l < lists.size(); ++l) {
        CAPTURE(l);
        auto reader = FramedReader::open(*file, lists[l], io, false, 4096, 3, nullptr, nullptr, nullptr);
        REQUIRE(reader);
        // The chunks come in order, each inside one extent at the raw offset it was stored at.
        std::vector<std::byte> got;
        std::vector<std::byte> want;
        std::size_t extent = 0;
        std::uint64_t at = lists[l][0].raw_begin;
        for (const FrameExtent& e : lists[l]) want.insert(want.end(), data.begin() + static_cast<std::ptrdiff_t>(e.raw_begin),
                                                          data.begin() + static_cast<std::ptrdiff_t>(e.raw_end));
        for (int guard = 0; guard < 100000; ++guard) {
          auto chunk = (*reader)->next();
          INFO(chunk.status().to_string());
          REQUIRE(chunk);
          if (chunk->empty()) break;
          if (at == lists[l][extent].raw_end) {
            REQUIRE(extent + 1 < lists[l].size());  // not a chunk after the last extent
            at = lists[l][++extent].raw_begin;
          }
          REQUIRE((*reader)->raw_offset() == at);
          REQUIRE(at + chunk->size() <= lists[l][extent].raw_end);
          REQUIRE(std::memcmp(chunk->data(), data.data() + at, chunk->size()) == 0);
          got.insert(got.end(), chunk->begin(), chunk->end());
          at += chunk->size();
        }
        CHECK(got == want);
      }
    }
  }
}

// frame_offsets() holds only the frames written since restart(), from stored offset 0 again, and
// selected frames of the rewritten stream read back by them.
TEST_CASE("codec_frames: frame_offsets() start again after restart()", "[codec_frames]") {
  TempDir dir;
  const std::size_t frame = 4096;
  const fs::path path = dir / "again";
  auto file = File::open(path, OpenMode::kCreate, true);
  REQUIRE(file);
  auto writer = FramedWriter::open(*file, small_io(), CodecSpec{CodecId::kZlib, 1}, true, frame, nullptr);
  REQUIRE(writer);
  (*writer)->keep_frame_offsets();
  FrameScratch scratch;
  const auto first = pattern(12 * frame);
  REQUIRE((*writer)->append(first, scratch).is_ok());
  REQUIRE((*writer)->finish(scratch).is_ok());
  CHECK((*writer)->frame_offsets().size() == 12);
  (*writer)->restart();
  CHECK((*writer)->frame_offsets().empty());
  const auto second = compressible(5 * frame + 10);
  REQUIRE((*writer)->append(second, scratch).is_ok());
  REQUIRE((*writer)->finish(scratch).is_ok());
  const std::vector<std::uint64_t> offsets = (*writer)->frame_offsets();
  REQUIRE(offsets.size() == 6);
  CHECK(offsets[0] == 0);
  const std::uint64_t stored = (*writer)->bytes_stored();
  CHECK(fs::file_size(path) == stored);
  auto got = read_selected(*file, small_io(), {frame_run(offsets, stored, second.size(), frame, 1, 2),
                                               frame_run(offsets, stored, second.size(), frame, 3, 6)},
                           true, frame, second);
  INFO(got.status().to_string());
  REQUIRE(got);
  CHECK(*got == std::vector<std::uint64_t>{frame, 3 * frame, 4 * frame, 5 * frame});
}

}  // namespace edgestream::test
