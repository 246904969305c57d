// [compressed_input]: an input graph stored compressed (`ingest --codec`, the .ini's codec= and
// frame_bytes= keys; compress/graph_input.hpp). Every path that reads the input decodes it: the
// engine at K = 1 (edge cache and streamed) and K > 1 (split pass), --verify's reference load, the
// algorithms that read the input themselves, and the tools (ingest --to-text, hilbert_order,
// cost_baseline). Every algorithm gives the same results on raw, snappy and zlib input; a flipped
// byte is reported naming the file and the offset; .ini files this build cannot read are refused.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/test_support.hpp"
#include "utils/export_text.hpp"
#include "utils/ingest.hpp"

namespace edgestream::test {
namespace {

namespace fs = std::filesystem;

// A compressible graph (runs of equal sources, few distinct weights), so that snappy and zlib
// frames really are compressed and not stored raw.
std::vector<Edge> structured_edges(std::uint32_t vertices, std::uint64_t edges) {
  std::vector<Edge> out;
  for (std::uint64_t i = 0; i < edges; ++i) {
    const auto src = static_cast<VertexId>((i / 6) % vertices);
    const auto dst = static_cast<VertexId>((src + 1 + (i % 6) * 37 + (i / 600)) % vertices);
    out.push_back(Edge{src, dst, static_cast<float>(1 + i % 4)});
  }
  return out;
}

// Ingests the text edge list `text` into dir/name with `codec` (4 KiB frames: many per graph).
fs::path ingest_as(const fs::path& text, const fs::path& dir, const std::string& name, const std::string& codec) {
  IngestOptions o;
  o.input = text.string();
  o.output = dir / name;
  o.type = EdgeFileType::kWeighted;
  auto spec = parse_codec("codec", codec);
  REQUIRE(spec);
  o.codec = *spec;
  o.frame_bytes = 4096;
  auto summary = ingest_graph(o);
  REQUIRE(summary);
  return dir / (name + ".ini");
}

// The same graph raw (written directly) and ingested as none, snappy and zlib.
struct Inputs {
  TempDir dir;
  fs::path original;
  std::map<std::string, fs::path> ini;  // storage -> .ini
  explicit Inputs(const std::vector<Edge>& edges, std::uint64_t vertices) {
    original = write_graph(dir.path(), "orig", edges, vertices);
    auto text = export_text(original, (dir / "orig.txt").string());
    REQUIRE(text);
    for (const std::string codec : {"none", "snappy", "zlib"}) ini[codec] = ingest_as(dir / "orig.txt", dir.path(), "g_" + codec, codec);
  }
};

std::string ini_text(const fs::path& ini) { return slurp(ini); }


}  // namespace

TEST_CASE("compressed_input: ingest --codec writes framed chunks the .ini announces; tools read them back", "[compressed_input]") {
  Inputs in(structured_edges(1500, 30000), 1500);
  const std::uint64_t raw = 30000 * 12;
  CHECK(fs::file_size(in.dir / "g_none") == raw);
  CHECK(slurp(in.dir / "g_none") == slurp(in.dir / "orig"));  // the same records
  CHECK(ini_text(in.ini["none"]).find("codec=") == std::string::npos);  // raw: X-Stream's .ini
  for (const std::string codec : {"snappy", "zlib"}) {
    INFO(codec);
    const std::string text = ini_text(in.ini[codec]);
    CHECK_THAT(text, Catch::Contains("codec=" + std::string(codec == "zlib" ? "zlib:1" : "snappy")) &&
                         Catch::Contains("frame_bytes=4096"));
    auto info = read_graph_ini(in.ini[codec]);
    REQUIRE(info);
    CHECK(info->framed());
    CHECK(info->edges == 30000);
    CHECK(info->stored_bytes == fs::file_size(in.dir / ("g_" + codec)));
    CHECK(info->stored_bytes < raw * 3 / 4);  // really compressed (frames not stored raw)
    // ingest --to-text, hilbert_order and cost_baseline read the compressed graph as the raw one.
    const auto to_text = [&](const fs::path& ini, const std::string& out) {
      ProcessResult r = run_tool("ingest", {"--to-text", ini.string(), (in.dir / out).string()});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      std::string t = slurp(in.dir / out);
      return t.substr(t.find('\n') + 1);  // the first line names the source graph
    };
    CHECK(to_text(in.ini[codec], codec + ".txt") == to_text(in.original, "orig2.txt"));
    const auto hilbert = [&](const fs::path& ini, const std::string& out) {
      ProcessResult r = run_tool("hilbert_order", {"-g", ini.string(), "--output", (in.dir / out).string()});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      return slurp(in.dir / out);
    };
    CHECK(hilbert(in.ini[codec], "h_" + codec) == hilbert(in.original, "h_orig"));
    const auto cost = [&](const fs::path& ini, const std::string& out) {
      ProcessResult r = run_tool("cost_baseline", {"-g", ini.string(), "-a", "pagerank", "--output", (in.dir / out).string()});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      return slurp(in.dir / out);
    };
    CHECK(cost(in.ini[codec], "c_" + codec) == cost(in.original, "c_orig"));
  }
  // The command-line tool: --codec and the summary line.
  ProcessResult r = run_tool("ingest", {"--codec", "zlib:6", "--frame_bytes", "8K", (in.dir / "orig.txt").string(),
                                        (in.dir / "cli").string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("stored with zlib:6 in 8192-byte frames"));
  CHECK_THAT(ini_text(in.dir / "cli.ini"), Catch::Contains("codec=zlib:6") && Catch::Contains("frame_bytes=8192"));
  r = run_tool("ingest", {"--codec", "lzma", (in.dir / "orig.txt").string(), (in.dir / "bad").string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--codec") && Catch::Contains("snappy"));
}

TEST_CASE("compressed_input: every algorithm gives identical results on raw, snappy and zlib input at K = 1 and K = 4", "[compressed_input]") {
  Inputs in(structured_edges(2000, 24000), 2000);
  const std::vector<std::string> algorithms = {"pagerank", "bfs", "cc", "sssp", "degree_cnt", "range_check", "pagerank_ddf",
                                               "bfs_forest", "sssp_forest", "scc", "mis", "mcst", "spmv", "conductance",
                                               "reverse", "triangle_counting", "hyperanf", "belief_propagation", "bc",
                                               "checkbip", "als"};
  for (const std::string& algorithm : algorithms) {
    for (const std::string k : {"1", "4"}) {
      std::string expected_out;
      int expected_exit = -1;
      std::string expected_verify;
      for (const std::string storage : {"original", "none", "snappy", "zlib"}) {
        const fs::path ini = storage == "original" ? in.original : in.ini[storage];
        TempDir work;
        TempDir scratch;
        const auto out = work / "out";
        std::vector<std::string> args = {"-g", ini.string(), "-b", algorithm, "-k", k, "-p", "2", "--work_dir",
                                         scratch.path().string(), "--output", out.string(), "--verify"};
        const ProcessResult r = run_driver_in_process(args);
        INFO(algorithm << " -k " << k << " on " << storage << ": exit " << r.exit_code << "\n" << r.err);
        const auto verify_at = r.out.find("Verification: ");
        const std::string verify = verify_at == std::string::npos ? "" : r.out.substr(verify_at, r.out.find('\n', verify_at) - verify_at);
        const std::string result = slurp(out);
        if (storage == "original") {
          expected_out = result;
          expected_exit = r.exit_code;
          expected_verify = verify;
          CHECK(r.exit_code == 0);
          CHECK(verify != "Verification: FAIL");
          continue;
        }
        CHECK(r.exit_code == expected_exit);
        CHECK(verify == expected_verify);
        CHECK(result == expected_out);
        CHECK(scratch.entries().empty());
        if (storage != "none" && algorithm == "pagerank") {
          CHECK(stat_value(r.out, "CORE::COMPRESSION::INPUT::CODEC") == (storage == "zlib" ? "zlib:1" : "snappy"));
          CHECK(std::stoull(stat_value(r.out, "CORE::COMPRESSION::INPUT::STORED_BYTES")) == fs::file_size(in.dir / ("g_" + storage)));
          CHECK(stat_value(r.out, "CORE::COMPRESSION::INPUT::RAW_BYTES") == std::to_string(24000 * 12));
          CHECK(std::stoull(stat_value(r.out, "CORE::COMPRESSION::INPUT::DECODED_BYTES")) >= 24000 * 12);
        }
      }
    }
  }
}

TEST_CASE("compressed_input: a flipped byte in the compressed input is reported naming the file and the offset", "[compressed_input]") {
  Inputs in(structured_edges(2000, 24000), 2000);
  for (const std::string codec : {"snappy", "zlib"}) {
    const fs::path edge_file = in.dir / ("g_" + codec);
    const std::string pristine = slurp(edge_file);
    // A payload byte in the middle of the file and a header byte (the codec id) of the first frame.
    for (const std::uint64_t offset : {std::uint64_t{pristine.size() / 2}, std::uint64_t{5}}) {
      std::ofstream(edge_file, std::ios::binary | std::ios::trunc) << pristine;
      REQUIRE(flip_byte(edge_file, offset, 0x20));
      const std::string damaged = slurp(edge_file);
      struct Case {
        const char* algorithm;
        std::vector<std::string> extra;
      };
      for (const Case& c : {Case{"pagerank", {"-k", "1"}}, Case{"pagerank", {"-k", "1", "--no_edge_cache"}},
                            Case{"pagerank", {"-k", "4"}}, Case{"triangle_counting", {}}, Case{"cc", {"-k", "4", "--verify"}}}) {
        TempDir scratch;
        std::vector<std::string> args = {"-g", in.ini[codec].string(), "-b", c.algorithm, "-p", "2", "--work_dir",
                                         scratch.path().string()};
        args.insert(args.end(), c.extra.begin(), c.extra.end());
        const ProcessResult r = run_driver_in_process(args);
        INFO(codec << " flipped at " << offset << ", " << c.algorithm << " " << c.extra.size() << " extra: exit "
                   << r.exit_code << "\n" << r.err);
        CHECK(r.exit_code == 1);
        const auto lines = message_lines(r.err);
        REQUIRE(lines.size() == 1);
        CHECK_THAT(lines[0], Catch::Contains("corrupt stored chunk in " + edge_file.string() + " at byte offset"));
        CHECK(scratch.entries().empty());
        CHECK(slurp(edge_file) == damaged);  // the input is never modified
      }
      // The tools refuse it the same way.
      ProcessResult r = run_tool("ingest", {"--to-text", in.ini[codec].string(), (in.dir / "t.txt").string()});
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.err, Catch::Contains(edge_file.string() + " at byte offset"));
      CHECK_FALSE(fs::exists(in.dir / "t.txt"));
    }
    std::ofstream(edge_file, std::ios::binary | std::ios::trunc) << pristine;
  }
}

TEST_CASE("compressed_input: .ini files this build cannot read are refused, old ones read as raw", "[compressed_input]") {
  Inputs in(structured_edges(500, 3000), 500);
  const std::string good = ini_text(in.ini["snappy"]);
  auto rewrite = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    std::ofstream(in.ini["snappy"], std::ios::trunc) << t;
  };
  auto refused = [&](const std::string& needle) {
    const ProcessResult r = run_driver_in_process({"-g", in.ini["snappy"].string(), "-b", "pagerank"});
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(needle));
    const ProcessResult t = run_tool("ingest", {"--to-text", in.ini["snappy"].string(), "-"});
    CHECK(t.exit_code != 0);
    CHECK_THAT(t.err, Catch::Contains(needle));
  };
  SECTION("an unknown codec") {
    rewrite("codec=snappy", "codec=lz77");
    refused("codec 'lz77' is not one this build reads");
  }
  SECTION("framed without frame_bytes") {
    rewrite("frame_bytes=4096", "");
    refused("missing required key 'graph.frame_bytes'");
  }
  SECTION("a frame size out of range") {
    rewrite("frame_bytes=4096", "frame_bytes=100");
    refused("'frame_bytes' must be between 4096 and 1073741824");
  }
  SECTION("more records than the frames of this file can hold") {
    rewrite("edges=3000", "edges=300000");
    refused("need an edge file of");
  }
  SECTION("the codec key removed: the frames are not taken for records") {
    rewrite("codec=snappy", "");
    const ProcessResult r = run_driver_in_process({"-g", in.ini["snappy"].string(), "-b", "pagerank"});
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("edges=3000 but edge file") || Catch::Contains("not a multiple of the 12-byte"));
  }
  SECTION("codec=none is raw, like no key") {
    std::ofstream(in.ini["none"], std::ios::app) << "codec=none\n";
    const ProcessResult r = run_driver_in_process({"-g", in.ini["none"].string(), "-b", "cc", "--verify"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Verification: PASS"));
  }
}

}  // namespace edgestream::test
