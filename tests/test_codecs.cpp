// Compressed scratch streams (compress/): codec round trips on random and adversarial data, the
// 12.5% rule, framed streams across frame boundaries, corruption (header and payload, every codec)
// reported with file and offset, every algorithm identical with every codec at K = 1 and 3 with
// an empty scratch directory afterwards, the driver's codec options, and the memory contract with
// compression on.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "algorithms/bfs.hpp"
#include "algorithms/cc.hpp"
#include "algorithms/pagerank.hpp"
#include "algorithms/sssp.hpp"
#include "compress/codec.hpp"
#include "compress/delta_codec.hpp"
#include "compress/delta_decode_avx2.hpp"
#include "compress/frame.hpp"
#include "compress/framed_stream.hpp"
#include "core/engine.hpp"
#include "io/file.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng());
  return v;
}

// Edge-like records: small ids, few distinct weights (compressible but not trivially).
std::vector<std::byte> edge_like(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(i % 12 < 3 ? rng() % 7 : (i % 12 < 8 ? 0 : rng() % 3));
  return v;
}

// Random bytes with a run of zeros making up `zero_percent` of the buffer.
std::vector<std::byte> partly_compressible(std::size_t n, unsigned zero_percent, std::uint64_t seed) {
  auto v = random_bytes(n, seed);
  std::fill(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n * zero_percent / 100), std::byte{0});
  return v;
}

const std::vector<std::string> kCodecs = {"none", "zlib", "zlib:9", "snappy", "delta"};
const std::vector<std::string> kRealCodecs = {"zlib", "zlib:6", "snappy", "delta"};

CodecSpec spec(const std::string& name) {
  auto s = parse_codec("codec", name);
  REQUIRE(s);
  return *s;
}

std::vector<std::pair<std::string, std::vector<std::byte>>> samples() {
  return {{"empty", {}},
          {"one byte", {std::byte{42}}},
          {"incompressible 1 MiB", random_bytes(1 << 20, 1)},
          {"zeros 1 MiB", std::vector<std::byte>(1 << 20)},
          {"repetitive", [] {
             std::vector<std::byte> v(300000);
             for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::byte>("abcab"[i % 5]);
             return v;
           }()},
          {"edge-like", edge_like(777777, 2)}};
}

// Every decoded byte of a framed (or, framed = false, raw) stream of `raw` bytes stored in `stored`.
std::vector<std::byte> read_stream(const File& file, std::uint64_t stored, std::uint64_t raw, const IoOptions& io, bool framed,
                                   std::size_t frame, unsigned slots) {
  auto reader = FramedReader::open(file, stored, raw, io, framed, frame, slots, nullptr, nullptr, nullptr);
  REQUIRE(reader);
  std::vector<std::byte> back;
  for (;;) {
    auto chunk = (*reader)->next();
    REQUIRE(chunk);
    if (chunk->empty()) break;
    back.insert(back.end(), chunk->begin(), chunk->end());
  }
  return back;
}

// Writes `data` through a FramedWriter (appends of `piece` bytes) and reads it back.
std::vector<std::byte> round_trip_stream(const std::filesystem::path& path, const std::string& codec,
                                         const std::vector<std::byte>& data, std::size_t frame, std::size_t piece,
                                         std::uint64_t* stored = nullptr) {
  IoOptions io;
  io.read_chunk = 8192;
  io.write_chunk = 8192;
  io.depth = 2;
  auto file = File::open(path, OpenMode::kCreate, true);
  REQUIRE(file);
  auto writer = FramedWriter::open(*file, io, spec(codec), /*checksums=*/false, frame, nullptr);
  REQUIRE(writer);
  FrameScratch scratch;
  for (std::size_t at = 0; at < data.size(); at += piece) {
    const std::size_t n = std::min(piece, data.size() - at);
    REQUIRE((*writer)->append(std::span<const std::byte>(data.data() + at, n), scratch).is_ok());
  }
  REQUIRE((*writer)->finish(scratch).is_ok());
  REQUIRE((*writer)->bytes_appended() == data.size());
  if (stored != nullptr) *stored = (*writer)->bytes_stored();
  CHECK(std::filesystem::file_size(path) == (*writer)->bytes_stored());
  return read_stream(*file, (*writer)->bytes_stored(), data.size(), io, (*writer)->framed(), frame, 3);
}

Status read_all(const File& file, std::uint64_t stored, std::uint64_t raw, std::size_t frame) {
  IoOptions io;
  io.read_chunk = 8192;
  io.depth = 2;
  ES_ASSIGN_OR_RETURN(auto reader, FramedReader::open(file, stored, raw, io, true, frame, 2, nullptr, nullptr, nullptr));
  for (;;) {
    ES_ASSIGN_OR_RETURN(auto chunk, reader->next());
    if (chunk.empty()) return Status::ok();
  }
}

// A reverse-edge program (forward and reverse edge streams): in superstep 0 every edge sends 1 to its
// destination (forward) and, read backwards, 1 to its source: in- and out-degrees, weighted by a
// hash of the weight so that a damaged record would show.
struct Degrees {
  struct Vertex {
    std::uint32_t in;
    std::uint32_t out;
  };
  struct Update {
    std::uint32_t amount;
    std::uint32_t reverse;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kReverseEdges = true;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static std::uint32_t amount(const Edge& e) { return 1 + static_cast<std::uint32_t>(e.weight * 8); }
  void init(VertexId, Vertex& s) const { s = Vertex{0, 0}; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t s, Emit&& emit) const {
    if (s == 0) emit(e.dst, Update{amount(e), 0});
  }
  template <typename Emit>
  void scatter_reverse(const Vertex&, const Edge& e, std::uint32_t s, Emit&& emit) const {
    if (s == 0) emit(e.src, Update{amount(e), 1});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    (u.reverse != 0 ? s.out : s.in) += u.amount;
    return true;
  }
  bool done(const SuperstepStats& s) const { return s.superstep >= 1; }
};

std::string sh(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += a + " ";
  return s;
}

}  // namespace

TEST_CASE("codecs: names parse, canonical names round-trip, bad names list the codecs", "[codecs]") {
  for (const std::string name : {"none", "zlib:1", "zlib:9", "snappy", "delta"}) CHECK(codec_name(spec(name)) == name);
  CHECK(codec_name(spec("zlib")) == "zlib:" + std::to_string(kDefaultZlibLevel));
  for (const std::string bad : {"bogus", "zlib:0", "zlib:10", "zlib:", "ZLIB", "", "snappy:1", "delta:8"}) {
    auto s = parse_codec("edges_codec", bad);
    REQUIRE_FALSE(s);
    CHECK(s.status().code() == StatusCode::kInvalidArgument);
    CHECK(s.status().message().find("--edges_codec") != std::string::npos);
    CHECK(s.status().message().find("snappy") != std::string::npos);
  }
}

TEST_CASE("codecs: every codec round-trips random and adversarial data as one frame", "[codecs]") {
  for (const auto& name : kCodecs) {
    const auto codec = make_codec(spec(name));
    for (const auto& [what, data] : samples()) {
      INFO(name << " on " << what);
      std::vector<std::byte> frame(max_frame_bytes(*codec, data.size()));
      FrameHeader h;
      auto n = encode_frame(*codec, data, 5, frame, &h);
      REQUIRE(n);
      CHECK(*n == kFrameHeaderBytes + h.stored_length);
      CHECK(h.raw_length == data.size());
      // Never larger than raw + header; compressed only when it saves at least 1/8.
      CHECK(h.stored_length <= data.size());
      if (h.codec != CodecId::kNone) CHECK(h.stored_length < data.size() - data.size() / 8);
      auto header = parse_frame_header(std::span<const std::byte, kFrameHeaderBytes>(frame.data(), kFrameHeaderBytes));
      REQUIRE(header);
      CHECK(header->raw_offset == 5);
      std::vector<std::byte> back(header->raw_length);
      REQUIRE(decode_frame_payload(*header, std::span<const std::byte>(frame.data() + kFrameHeaderBytes, header->stored_length),
                                   back)
                  .is_ok());
      CHECK(back == data);
    }
  }
  // Zeros compress with every real codec; random bytes never do.
  for (const auto& name : kRealCodecs) {
    const auto codec = make_codec(spec(name));
    for (const bool zeros : {true, false}) {
      const std::vector<std::byte> data = zeros ? std::vector<std::byte>(65536) : random_bytes(65536, 9);
      std::vector<std::byte> frame(max_frame_bytes(*codec, data.size()));
      FrameHeader h;
      REQUIRE(encode_frame(*codec, data, 0, frame, &h));
      CHECK((h.codec == codec->id()) == zeros);
    }
  }
}

TEST_CASE("codecs: the 12.5% rule decides raw or compressed storage exactly", "[codecs]") {
  for (const auto& name : kRealCodecs) {
    const auto codec = make_codec(spec(name));
    bool saw_raw = false;
    bool saw_compressed = false;
    for (unsigned percent = 0; percent <= 30; ++percent) {
      const auto data = partly_compressible(100000, percent, percent);
      std::vector<std::byte> out(codec->max_compressed_length(data.size()));
      auto plain = codec->compress(data, out);
      REQUIRE(plain);
      const bool should_compress = *plain < data.size() - data.size() / 8;
      std::vector<std::byte> frame(max_frame_bytes(*codec, data.size()));
      FrameHeader h;
      REQUIRE(encode_frame(*codec, data, 0, frame, &h));
      INFO(name << " zeros " << percent << "% compressed to " << *plain);
      CHECK((h.codec != CodecId::kNone) == should_compress);
      CHECK(h.stored_length == (should_compress ? *plain : data.size()));
      (should_compress ? saw_compressed : saw_raw) = true;
    }
    CHECK(saw_raw);         // the sweep crosses the threshold...
    CHECK(saw_compressed);  // ...in both directions
  }
}

TEST_CASE("codecs: framed streams round-trip at sizes around the frame boundaries", "[codecs]") {
  TempDir dir;
  const std::size_t frame = 4096;
  for (const auto& name : kCodecs) {
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, frame - 1, frame, frame + 1, 3 * frame, 3 * frame + 7,
                                   std::size_t{50000}}) {
      for (const bool compressible : {true, false}) {
        for (const std::size_t piece : {std::size_t{1}, std::size_t{12}, std::size_t{5000}}) {
          if (piece == 1 && size > 3 * frame + 7) continue;
          INFO(name << " size " << size << (compressible ? " compressible" : " random") << " appends of " << piece);
          const auto data = compressible ? edge_like(size, size) : random_bytes(size, size);
          std::uint64_t stored = 0;
          CHECK(round_trip_stream(dir / "s", name, data, frame, piece, &stored) == data);
          if (name == "none") CHECK(stored == size);  // today's raw format: no framing at all
          // Frames are packed: a stored stream is never longer than raw plus one header per frame.
          CHECK(stored <= size + (size + frame - 1) / frame * kFrameHeaderBytes);
        }
      }
    }
  }
}

TEST_CASE("codecs: a stream that stops compressing is stored raw without trying, and tried again later", "[codecs]") {
  TempDir dir;
  const std::size_t frame = 4096;
  IoOptions io;
  io.read_chunk = 8192;
  io.write_chunk = 8192;
  io.depth = 2;
  for (const std::string codec : {"snappy", "zlib"}) {
    INFO(codec);
    // 40 random frames, then 40 compressible ones, then 40 random ones again.
    std::vector<std::byte> data = random_bytes(40 * frame, 1);
    const std::vector<std::byte> text = edge_like(40 * frame, 2);
    data.insert(data.end(), text.begin(), text.end());
    const std::vector<std::byte> tail = random_bytes(40 * frame, 3);
    data.insert(data.end(), tail.begin(), tail.end());
    auto file = File::open(dir / "s", OpenMode::kCreate, true);
    REQUIRE(file);
    auto writer = FramedWriter::open(*file, io, spec(codec), /*checksums=*/false, frame, nullptr);
    REQUIRE(writer);
    FrameScratch scratch;
    REQUIRE((*writer)->append(data, scratch).is_ok());
    REQUIRE((*writer)->finish(scratch).is_ok());
    const CodecCounters& c = (*writer)->codec_counters();
    CHECK(c.frames == 120);
    // Random frames are skipped after a streak of failures (4 tried, then 8 skipped, 1 tried, 16
    // skipped, ...), so fewer than half of the 80 random frames are tried ...
    CHECK(c.skipped_frames > 40);
    CHECK(c.skipped_frames <= c.raw_frames);
    // ... and once a tried frame compresses again, the stream compresses: at most the frames of
    // one skip (32 here) of the compressible middle are lost to skipping.
    CHECK(c.frames - c.raw_frames >= 40 - 32);
    CHECK(c.raw_bytes == data.size());
    CHECK(c.stored_bytes < data.size());
    // Readers cannot tell: the stream decodes to the same bytes.
    CHECK(read_stream(*file, (*writer)->bytes_stored(), data.size(), io, true, frame, 2) == data);
  }
}

TEST_CASE("codecs: a flipped byte in a stored chunk is corruption naming the file and the chunk's offset", "[codecs]") {
  TempDir dir;
  const std::size_t frame = 16384;
  for (const auto& name : kRealCodecs) {
    for (const bool compressible : {true, false}) {  // false: frames stored raw, only the checksum guards them
      const auto data = compressible ? edge_like(3 * frame, 4) : random_bytes(3 * frame, 4);
      const auto path = dir / ("c-" + std::to_string(compressible));
      std::uint64_t stored = 0;
      REQUIRE(round_trip_stream(path, name, data, frame, 1000, &stored) == data);
      // Frame offsets from the headers.
      std::vector<std::uint64_t> offsets;
      std::vector<FrameHeader> headers;
      const std::string original = slurp(path);
      REQUIRE(original.size() == stored);
      for (std::uint64_t at = 0; at < stored;) {
        auto h = parse_frame_header(std::span<const std::byte, kFrameHeaderBytes>(
            reinterpret_cast<const std::byte*>(original.data() + at), kFrameHeaderBytes));
        REQUIRE(h);
        offsets.push_back(at);
        headers.push_back(*h);
        CHECK((h->codec != CodecId::kNone) == compressible);
        at += kFrameHeaderBytes + h->stored_length;
      }
      REQUIRE(offsets.size() == 3);
      // Every header byte of the second frame, and payload bytes at its start, middle and end.
      std::vector<std::uint64_t> positions;
      for (std::uint64_t i = 0; i < kFrameHeaderBytes; ++i) positions.push_back(offsets[1] + i);
      const std::uint64_t payload = offsets[1] + kFrameHeaderBytes;
      for (const std::uint64_t p : {payload, payload + headers[1].stored_length / 2, payload + headers[1].stored_length - 1}) {
        positions.push_back(p);
      }
      for (const std::uint64_t pos : positions) {
        for (const unsigned char mask : {0x01, 0x80}) {
          std::string damaged = original;
          damaged[pos] = static_cast<char>(damaged[pos] ^ static_cast<char>(mask));
          std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
          auto file = File::open(path, OpenMode::kReadOnly, true);
          REQUIRE(file);
          const Status status = read_all(*file, stored, data.size(), frame);
          INFO(name << (compressible ? " compressible" : " raw frames") << " byte " << pos << " ^ " << int(mask) << ": "
                    << status.message());
          REQUIRE(status.code() == StatusCode::kCorruption);
          CHECK(status.message().find(path.string()) != std::string::npos);
          CHECK(status.message().find("byte offset " + std::to_string(offsets[1])) != std::string::npos);
        }
      }
      // A stream cut short, and a stream said to be longer than it is.
      std::ofstream(path, std::ios::binary | std::ios::trunc) << original.substr(0, original.size() - 5);
      auto file = File::open(path, OpenMode::kReadOnly, true);
      REQUIRE(file);
      CHECK(read_all(*file, stored - 5, data.size(), frame).code() == StatusCode::kCorruption);
      std::ofstream(path, std::ios::binary | std::ios::trunc) << original;
      auto again = File::open(path, OpenMode::kReadOnly, true);
      REQUIRE(again);
      CHECK(read_all(*again, stored, data.size() + 1, frame).code() == StatusCode::kCorruption);
      CHECK(read_all(*again, stored, data.size(), frame / 2).code() == StatusCode::kCorruption);  // frame too large
      CHECK(read_all(*again, stored, data.size(), frame).is_ok());
    }
  }
}

TEST_CASE("codecs: every algorithm gives identical results with every codec at K = 1 and at K = 3", "[codecs]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(3000, 40000, 17), 3000);
  for (const std::string algorithm : {"pagerank", "bfs", "cc", "sssp", "degree_cnt"}) {
    std::string across_k;
    for (const std::string k : {"1", "3"}) {
      std::string expected;  // codecs change nothing at a given K
      for (const std::string codec : {"none", "snappy", "zlib", "zlib:9", "delta", "compressed_io", "mixed"}) {
        TempDir work;
        const auto out = work / "out.txt";
        TempDir scratch;
        std::vector<std::string> args = {"-g", ini.string(), "-b", algorithm, "-k", k, "-p", "2", "--work_dir",
                                         scratch.path().string(), "--output", out.string(), "--verify"};
        if (codec == "compressed_io") {
          args.push_back("--compressed_io");
        } else if (codec == "mixed") {
          args.insert(args.end(), {"--edges_codec", "snappy", "--updates_codec", "zlib:3"});
        } else {
          args.insert(args.end(), {"--edges_codec", codec, "--updates_codec", codec});
        }
        INFO(sh(args));
        const ProcessResult r = run_driver_verified(args);
        CHECK(scratch.entries().empty());
        const std::string result = slurp(out);
        REQUIRE_FALSE(result.empty());
        if (expected.empty()) expected = result;
        // The delta codec's keyed streams order each key's records by their other vertex: PageRank's
        // float sums then add in another order (checked by --verify, within the engine's tolerance).
        if (codec != "delta" || k == "1" || algorithm != std::string("pagerank")) CHECK(result == expected);
        if (k == "3" && codec == "delta") {
          CHECK(stat_value(r.out, "CORE::CONFIG::EDGES_CODEC") == "delta");
          CHECK(std::stoull(stat_value(r.out, "CORE::COMPRESSION::EDGES::STORED_BYTES")) <
                std::stoull(stat_value(r.out, "CORE::COMPRESSION::EDGES::RAW_BYTES")) * 3 / 4);  // it compresses ids
        }
        // PageRank's float sums depend on K (the engine's documented tolerance); the rest do not.
        if (algorithm != std::string("pagerank")) {
          if (across_k.empty()) across_k = result;
          CHECK(result == across_k);
        }
        if (k == "3" && codec == "zlib") {
          CHECK(stat_value(r.out, "CORE::CONFIG::EDGES_CODEC") == "zlib:1");
          CHECK(std::stoull(stat_value(r.out, "CORE::COMPRESSION::EDGES::RAW_BYTES")) > 0);
          CHECK(std::stoull(stat_value(r.out, "CORE::COMPRESSION::EDGES::STORED_BYTES")) > 0);
        }
        if (codec == "compressed_io") CHECK(stat_value(r.out, "CORE::CONFIG::UPDATES_CODEC") == "zlib:1");
        if (codec == "mixed") {
          CHECK(stat_value(r.out, "CORE::CONFIG::EDGES_CODEC") == "snappy");
          CHECK(stat_value(r.out, "CORE::CONFIG::UPDATES_CODEC") == "zlib:3");
        }
      }
    }
  }
}

TEST_CASE("codecs: --edges_codec auto (the default) is delta for bfs, cc and sssp; explicit codecs and --compressed_io win",
          "[codecs]") {
  // The engine resolves auto for its program: delta where the keyed scatter skips records by the
  // active vertex bits.
  EngineOptions options;
  options.edges_codec_auto = true;
  CHECK(Engine<BfsProgram>::with_edges_codec(options).edges_codec == CodecSpec{CodecId::kDelta, 0});
  CHECK_FALSE(Engine<BfsProgram>::with_edges_codec(options).edges_codec_auto);
  CHECK(Engine<CcProgram>::with_edges_codec(options).edges_codec == CodecSpec{CodecId::kDelta, 0});
  CHECK(Engine<SsspProgram>::with_edges_codec(options).edges_codec == CodecSpec{CodecId::kDelta, 0});
  CHECK(Engine<PageRankProgram>::with_edges_codec(options).edges_codec == CodecSpec{});
  options.edges_codec_auto = false;
  options.edges_codec = CodecSpec{CodecId::kSnappy, 0};
  CHECK(Engine<BfsProgram>::with_edges_codec(options).edges_codec == CodecSpec{CodecId::kSnappy, 0});

  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(3000, 40000, 29), 3000);
  for (const std::string algorithm : {"bfs", "cc", "sssp", "pagerank"}) {
    std::string reference;  // with --edges_codec none
    for (const std::string choice : {"none", "default", "auto", "compressed_io"}) {
      TempDir work;
      const auto out = work / "out.txt";
      const auto json = work / "stats.json";
      TempDir scratch;
      std::vector<std::string> args = {"-g", ini.string(), "-b", algorithm, "-k", "3", "-p", "2", "--work_dir",
                                       scratch.path().string(), "--output", out.string(), "--stats_json", json.string(),
                                       "--verify"};
      if (choice == "compressed_io") args.push_back("--compressed_io");
      if (choice == "none" || choice == "auto") args.insert(args.end(), {"--edges_codec", choice});
      INFO(sh(args));
      const ProcessResult r = run_driver_verified(args);
      CHECK(scratch.entries().empty());
      const std::string expected = choice == "compressed_io" ? "zlib:1"
                                   : choice == "none"        ? "none"
                                   : algorithm != "pagerank" ? "delta"
                                                             : "none";
      CHECK(stat_value(r.out, "CORE::CONFIG::EDGES_CODEC") == expected);
      CHECK(slurp(json).find("\"edges_codec\":\"" + expected + "\"") != std::string::npos);
      if (expected == "delta") {
        CHECK(std::stoull(stat_value(r.out, "CORE::COMPRESSION::EDGES::STORED_BYTES")) <
              std::stoull(stat_value(r.out, "CORE::COMPRESSION::EDGES::RAW_BYTES")) * 3 / 4);
      }
      const std::string result = slurp(out);
      REQUIRE_FALSE(result.empty());
      if (reference.empty()) reference = result;
      // PageRank's float sums may add in another order with another codec (--verify checks them).
      if (algorithm != "pagerank") CHECK(result == reference);
    }
  }
  // auto is for edge streams only.
  const ProcessResult r = run_driver_in_process({"-g", ini.string(), "-b", "bfs", "--updates_codec", "auto"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--updates_codec 'auto' is not a codec") != std::string::npos);
}

TEST_CASE("codecs: reverse edge streams (split into two stream sets) are identical with every codec", "[codecs]") {
  TempDir dir;
  const std::uint64_t V = 2000;
  const auto edges = random_edges(V, 30000, 23);
  const auto ini = write_graph(dir.path(), "g", edges, V);
  auto info = read_graph_ini(ini);
  REQUIRE(info);
  std::vector<Degrees::Vertex> expected(V, Degrees::Vertex{0, 0});
  for (const Edge& e : edges) {
    expected[e.dst].in += Degrees::amount(e);
    expected[e.src].out += Degrees::amount(e);
  }
  for (const auto& name : kCodecs) {
    for (const std::uint64_t k : {1, 3, 4}) {
      for (const unsigned p : {1U, 2U}) {
        INFO(name << " -k " << k << " -p " << p);
        TempDir work;
        EngineOptions options;
        options.threads = p;
        options.forced_partitions = k;
        options.io.read_chunk = 4096;
        options.io.write_chunk = 8192;  // frames of 8 KiB: many frames, records across frame ends
        options.work_dirs = {work.path()};
        options.edges_codec = spec(name);
        options.updates_codec = spec(name == "none" ? "snappy" : name);
        std::vector<Degrees::Vertex> result(V);
        auto stats = run_engine(*info, options, Degrees{}, [&](VertexId first, std::span<const Degrees::Vertex> states) {
          std::copy(states.begin(), states.end(), result.begin() + first);
          return Status::ok();
        });
        REQUIRE(stats);
        std::uint64_t wrong = 0;
        for (std::uint64_t v = 0; v < V; ++v) wrong += (result[v].in != expected[v].in || result[v].out != expected[v].out) ? 1 : 0;
        CHECK(wrong == 0);
        if (k > 1 && name != "none") {
          CHECK(stats->edges_codec_io.raw_bytes == 2 * edges.size() * 12);  // forward and reverse streams
          CHECK(stats->edges_codec_io.decoded_bytes == stats->supersteps * 2 * edges.size() * 12);  // both read every superstep
        }
        CHECK(work.entries().empty());
      }
    }
  }
}

TEST_CASE("codecs: the driver rejects unknown codecs as usage errors and reports compression in --stats_json", "[codecs]") {
  TempDir dir;
  const auto ini = write_graph(dir.path(), "g", random_edges(500, 4000, 5), 500);
  for (const std::string option : {"--edges_codec", "--updates_codec"}) {
    const ProcessResult r = run_driver_in_process({"-g", ini.string(), "-b", "cc", option, "bogus"});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("bogus") != std::string::npos);
    CHECK(r.err.find("zlib") != std::string::npos);
    CHECK(r.err.find("snappy") != std::string::npos);
  }
  const auto json = dir / "stats.json";
  const ProcessResult r = run_driver_in_process({"-g", ini.string(), "-b", "pagerank", "-k", "2", "--work_dir",
                                                 dir.path().string(), "--edges_codec", "zlib:6", "--updates_codec",
                                                 "snappy", "--stats_json", json.string()});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = slurp(json);
  CHECK(text.find("\"edges_codec\":\"zlib:6\"") != std::string::npos);
  CHECK(text.find("\"updates_codec\":\"snappy\"") != std::string::npos);
  CHECK(text.find("\"compression\":{\"edges\":{\"raw_bytes\":") != std::string::npos);
  CHECK(text.find("\"cpu_seconds\":") != std::string::npos);
  CHECK(std::stod(stat_value(r.out, "CORE::COMPRESSION::EDGES::RATIO")) > 1.0);
  CHECK(std::stod(stat_value(r.out, "CORE::COMPRESSION::CPU_SECONDS")) > 0.0);
}

TEST_CASE("codecs: peak RSS stays within --physical_memory with compressed streams", "[codecs]") {
  if (kSanitized) {
    WARN("skipped under a sanitizer: its shadow memory alone exceeds the budgets used here");
    return;
  }
  TempDir dir;
  const auto name = dir / "g";
  const ProcessResult gen = run_tool("rmat", {"--name", name.string(), "--scale", "22", "--edges", "6M", "--seed1", "3"});
  REQUIRE(gen.exit_code == 0);
  for (const auto& [algorithm, codec] : {std::pair{"pagerank", "zlib"}, std::pair{"cc", "snappy"}}) {
    TempDir work;
    const ProcessResult r = run_tool("benchmark_driver", {"-g", name.string(), "-b", algorithm, "--physical_memory", "32M",
                                                          "-p", "2", "--work_dir", work.path().string(),
                                                          "--pagerank::niters", "2", "--edges_codec", codec,
                                                          "--updates_codec", codec});
    INFO(algorithm << " " << codec << "\nstdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(std::stoull(stat_value(r.out, "CORE::UTILS::PEAK_RSS")) <= (32ULL << 20));
    CHECK(std::stoull(stat_value(r.out, "CORE::CONFIG::PARTITIONS")) > 1);
    CHECK(std::stoull(stat_value(r.out, "CORE::CONFIG::CODEC_MEMORY")) > 0);
    CHECK(work.entries().empty());
  }
}

// The delta codec's stored layout (compress/delta_codec.hpp) written bit by bit, as its header
// describes it: the reference the codec's grouped packing must match byte for byte.
// `values` (each below 2^width) packed at `width` bits, least significant bit first: the layout's
// definition, bit by bit.
std::vector<std::byte> pack_bits(std::span<const std::uint32_t> values, unsigned width) {
  std::vector<std::byte> packed((values.size() * width + 7) / 8, std::byte{0});
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (unsigned b = 0; b < width; ++b) {
      if ((values[i] >> b) & 1U) packed[(i * width + b) / 8] |= std::byte{1} << ((i * width + b) % 8);
    }
  }
  return packed;
}

std::vector<std::byte> delta_reference(std::span<const std::byte> raw, std::size_t words) {
  std::vector<std::byte> out{static_cast<std::byte>(words)};
  const std::size_t record = 4 * words;
  const std::size_t records = raw.size() / record;
  std::vector<std::uint32_t> previous(words, 0);
  for (std::size_t first = 0; first < records; first += DeltaCodec::kBlockRecords) {
    const std::size_t count = std::min(DeltaCodec::kBlockRecords, records - first);
    for (std::size_t j = 0; j < words; ++j) {
      std::vector<std::uint32_t> z(count);
      unsigned width = 0;
      for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t v;
        std::memcpy(&v, raw.data() + (first + i) * record + 4 * j, 4);
        const std::uint32_t d = v - previous[j];
        z[i] = (d << 1) ^ (d >> 31 != 0 ? 0xFFFFFFFFU : 0U);
        previous[j] = v;
        while (width < 32 && (z[i] >> width) != 0) ++width;
      }
      out.push_back(static_cast<std::byte>(width));
      const std::vector<std::byte> packed = pack_bits(z, width);
      out.insert(out.end(), packed.begin(), packed.end());
    }
  }
  out.insert(out.end(), raw.begin() + static_cast<std::ptrdiff_t>(records * record), raw.end());
  return out;
}

TEST_CASE("codecs: delta stores exactly the reference layout at every width, record size and block tail", "[codecs]") {
  std::mt19937_64 rng(77);
  for (std::size_t words = 1; words <= 4; ++words) {
    const DeltaCodec codec(4 * words);
    for (unsigned width = 0; width <= 32; ++width) {
      // Records whose words change by zigzag codes of at most `width` bits (some of exactly that
      // many), so that blocks are packed at that width; block tails of 0-7 values and a byte tail.
      for (const std::size_t records : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{128},
                                        std::size_t{131}, std::size_t{256 + 5}}) {
        INFO(words << " words, width " << width << ", " << records << " records");
        std::vector<std::byte> raw(records * 4 * words + (records % 3));
        std::uint32_t value = static_cast<std::uint32_t>(rng());
        for (std::size_t w = 0; w < records * words; ++w) {
          std::uint32_t z = width == 0 ? 0 : static_cast<std::uint32_t>(rng() >> (64 - width));
          if (width > 0 && w % 5 == 0) z |= std::uint32_t{1} << (width - 1);
          value += (z >> 1) ^ (0U - (z & 1U));
          std::memcpy(raw.data() + 4 * w, &value, 4);
        }
        for (std::size_t t = records * 4 * words; t < raw.size(); ++t) raw[t] = static_cast<std::byte>(rng());
        std::vector<std::byte> stored(codec.max_compressed_length(raw.size()));
        const auto length = codec.compress(raw, stored);
        REQUIRE(length);
        stored.resize(*length);
        CHECK(stored == delta_reference(raw, words));
        std::vector<std::byte> back(raw.size());
        REQUIRE(codec.decompress(stored, back).is_ok());
        CHECK(back == raw);
        // The same chunk in an allocation of exactly its size (a copy; `stored` kept its larger
        // capacity): under ASan, a load past the chunk's end is reported. By both decoders (the
        // fastest's full blocks are AVX2's on CPUs that have it).
        const std::vector<std::byte> exact(stored);
        for (const DeltaDecoder decoder : {DeltaDecoder::kFastest, DeltaDecoder::kPortable}) {
          std::fill(back.begin(), back.end(), std::byte{0});
          REQUIRE(DeltaCodec(4 * words, decoder).decompress(exact, back).is_ok());
          CHECK(back == raw);
        }
      }
    }
  }
}

TEST_CASE("codecs: delta round-trips records of 2 and 3 words at every tail, packs sorted ids, rejects damage", "[codecs]") {
  std::mt19937_64 rng(31);
  for (const std::size_t record : {std::size_t{8}, std::size_t{12}}) {
    const DeltaCodec codec(record);
    // Ids sorted in runs (as a keyed stream's keys), a second word near the first, random weights.
    const std::size_t n = 1000;
    std::vector<std::byte> data(n * record);
    std::uint32_t id = 0;
    for (std::size_t i = 0; i < n; ++i) {
      id = i % 300 == 0 ? static_cast<std::uint32_t>(rng() % 1000) : id + static_cast<std::uint32_t>(rng() % 40);
      const auto other = static_cast<std::uint32_t>(rng() % 65536);
      std::memcpy(data.data() + i * record, &id, 4);
      std::memcpy(data.data() + i * record + 4, &other, 4);
      if (record == 12) {
        const auto weight = static_cast<std::uint32_t>(rng());
        std::memcpy(data.data() + i * record + 8, &weight, 4);
      }
    }
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, record - 1, record, 127 * record + 3, 128 * record, 129 * record + 5, data.size()}) {
      INFO("records of " << record << " bytes, " << size << " bytes");
      const std::span<const std::byte> raw(data.data(), size);
      std::vector<std::byte> stored(codec.max_compressed_length(size));
      auto length = codec.compress(raw, stored);
      REQUIRE(length);
      REQUIRE(*length <= stored.size());
      std::vector<std::byte> back(size);
      REQUIRE(codec.decompress(std::span<const std::byte>(stored.data(), *length), back).is_ok());
      CHECK(std::equal(back.begin(), back.end(), raw.begin()));
      // Any codec object decodes it (the chunk names its record size), as the stream readers do.
      std::vector<std::byte> again(size);
      REQUIRE(decoder_for(static_cast<std::uint8_t>(CodecId::kDelta))->decompress(std::span<const std::byte>(stored.data(), *length), again).is_ok());
      CHECK(again == back);
    }
    // Ids: ~6 + 17 bits instead of 64 (8-byte records); the random weights stay 32 bits.
    std::vector<std::byte> stored(codec.max_compressed_length(data.size()));
    const std::size_t length = *codec.compress(data, stored);
    CHECK(length < data.size() * (record == 8 ? 45 : 70) / 100);
    stored.resize(length);
    std::vector<std::byte> out(data.size());
    auto damaged = [&](std::vector<std::byte> bytes, std::size_t raw_size) {
      std::vector<std::byte> to(raw_size);
      const Status status = codec.decompress(bytes, to);
      INFO(status.message());
      return status.code() == StatusCode::kCorruption;
    };
    CHECK(damaged({}, data.size()));
    std::vector<std::byte> bad = stored;
    bad[0] = std::byte{5};  // 5 words
    CHECK(damaged(bad, data.size()));
    bad = stored;
    bad[1] = std::byte{33};  // a width over 32 bits
    CHECK(damaged(bad, data.size()));
    CHECK(damaged(std::vector<std::byte>(stored.begin(), stored.end() - 1), data.size()));  // cut short
    std::vector<std::byte> longer = stored;
    longer.push_back(std::byte{0});
    CHECK(damaged(longer, data.size()));                  // bytes after the records
    CHECK(damaged(stored, data.size() + record));         // fewer records than expected
    CHECK(damaged(stored, data.size() - record));         // more
    REQUIRE(codec.decompress(stored, out).is_ok());       // and the intact chunk still decodes
    CHECK(out == data);
  }
}

TEST_CASE("codecs: delta's AVX2 decoder unpacks every width and interleaves every record size as the definition says",
          "[codecs]") {
  if (!delta_decode_avx2_supported()) {
    WARN("this CPU has no AVX2: DeltaCodec::decompress runs the portable decoder only; nothing to compare here");
    return;
  }
  std::mt19937_64 rng(2026);
  constexpr std::size_t kGroups = 16;  // a block of 128 values
  for (unsigned width = 0; width <= 32; ++width) {
    for (int trial = 0; trial < 20; ++trial) {
      INFO("width " << width << ", trial " << trial);
      // Codes of at most `width` bits (the widest in half the trials), packed from the lowest bit,
      // then 32 bytes of noise the decoder may load but must not use.
      std::vector<std::uint32_t> codes(8 * kGroups);
      for (std::uint32_t& z : codes) {
        z = width == 0 ? 0 : static_cast<std::uint32_t>(rng() >> (64 - width));
        if (width > 0 && trial % 2 == 0) z |= std::uint32_t{1} << (width - 1);
      }
      std::vector<std::byte> packed = pack_bits(codes, width);
      for (int b = 0; b < 32; ++b) packed.push_back(static_cast<std::byte>(rng()));
      const auto previous = static_cast<std::uint32_t>(rng());
      std::vector<std::uint32_t> expected(codes.size());
      std::uint32_t running = previous;
      for (std::size_t i = 0; i < codes.size(); ++i) {
        running += (codes[i] >> 1) ^ (0U - (codes[i] & 1U));
        expected[i] = running;
      }
      std::vector<std::byte> out(4 * codes.size() + 1);
      const std::uint32_t last = delta_unpack_avx2(packed.data(), kGroups, width, previous, out.data() + 1);  // unaligned
      std::vector<std::uint32_t> got(codes.size());
      std::memcpy(got.data(), out.data() + 1, 4 * got.size());
      CHECK(got == expected);
      CHECK(last == expected.back());
    }
  }
  for (std::size_t words = 2; words <= 4; ++words) {
    INFO(words << " words");
    constexpr std::size_t kCount = 128;
    std::vector<std::uint32_t> columns(words * (kCount + 8));  // a column stride of kCount + 8
    for (auto& v : columns) v = static_cast<std::uint32_t>(rng());
    std::vector<std::byte> out(4 * words * kCount + 1);
    delta_interleave_avx2(columns.data(), kCount + 8, words, kCount, out.data() + 1);
    bool same = true;
    for (std::size_t i = 0; i < kCount; ++i) {
      for (std::size_t j = 0; j < words; ++j) {
        std::uint32_t v = 0;
        std::memcpy(&v, out.data() + 1 + 4 * (i * words + j), 4);
        same = same && v == columns[j * (kCount + 8) + i];
      }
    }
    CHECK(same);
  }
}
