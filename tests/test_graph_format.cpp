// Tests of user-facing input parsing: the G.ini property file and its edge file (io/graph_format:
// read_graph_ini, parse_graph_ini, write_graph_ini, graph_ini_path, with every error message checked
// for what it names) and size/count option literals (core/size_literal: parse_size, parse_count).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "core/size_literal.hpp"
#include "io/graph_format.hpp"
#include "tests/test_support.hpp"

using namespace edgestream;  // NOLINT(google-build-using-namespace)
using edgestream::test::TempDir;

namespace {

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

void write_zero_bytes(const std::filesystem::path& p, std::size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  const std::string zeros(n, '\0');
  out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  REQUIRE(out.good());
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string ini(const std::string& name, const std::string& type, const std::string& vertices, const std::string& edges) {
  return "[graph]\nname=" + name + "\ntype=" + type + "\nvertices=" + vertices + "\nedges=" + edges + "\n";
}

// Expects read_graph_ini to fail with `code` and a message containing every one of `parts`.
void expect_error(const std::filesystem::path& ini_path, StatusCode code, const std::vector<std::string>& parts) {
  auto info = read_graph_ini(ini_path);
  REQUIRE_FALSE(info.has_value());
  const Status st = info.status();
  INFO(st.to_string());
  REQUIRE(st.code() == code);
  for (const auto& part : parts) {
    CAPTURE(part);
    REQUIRE(contains(st.message(), part));
  }
}

}  // namespace

TEST_CASE("read_graph_ini: type 1, name relative to the .ini's directory", "[graph_format]") {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  write_zero_bytes(dir / "data" / "g.bin", 10 * 12);
  write_text(dir / "g.ini",
             "; a comment line\n"
             "[graph]\n"
             "  name = data/g.bin   # trailing comment\n"
             "type=1\n"
             "vertices=7\n"
             "edges=10\n");
  // The working directory is not dir: the edge file must be found relative to the .ini.
  REQUIRE(std::filesystem::current_path() != dir.path());
  auto info = read_graph_ini(dir / "g.ini");
  INFO(info.status().to_string());
  REQUIRE(info.has_value());
  REQUIRE(info->ini_path == dir / "g.ini");
  REQUIRE(info->name == "data/g.bin");
  REQUIRE(info->edge_path == dir / "data" / "g.bin");
  REQUIRE(info->type == EdgeFileType::kWeighted);
  REQUIRE(info->record_size() == 12);
  REQUIRE(info->vertices == 7);
  REQUIRE(info->edges == 10);
  REQUIRE(info->volumes.empty());
}

TEST_CASE("read_graph_ini: type 2, absolute name, [disk] volumes", "[graph_format]") {
  TempDir dir;
  TempDir elsewhere;
  const auto edge_file = elsewhere / "edges.bin";
  write_zero_bytes(edge_file, 25 * 8);
  write_text(dir / "g.ini", ini(edge_file.string(), "2", "4294967296", "25") +
                                "[disk]\ncount=2\nmnt0=/mnt/ssd0\nmnt1 = /mnt/nfs0\n");
  auto info = read_graph_ini(dir / "g.ini");
  INFO(info.status().to_string());
  REQUIRE(info.has_value());
  REQUIRE(info->edge_path == edge_file);
  REQUIRE(info->type == EdgeFileType::kUnweighted);
  REQUIRE(info->record_size() == 8);
  REQUIRE(info->vertices == (std::uint64_t{1} << 32));  // exactly 2^32 is allowed
  REQUIRE(info->edges == 25);
  REQUIRE(info->volumes == std::vector<std::filesystem::path>{"/mnt/ssd0", "/mnt/nfs0"});

  // An empty edge file with edges=0 is a valid (empty) graph.
  write_zero_bytes(dir / "empty", 0);
  write_text(dir / "empty.ini", ini("empty", "2", "0", "0"));
  auto empty = read_graph_ini(dir / "empty.ini");
  INFO(empty.status().to_string());
  REQUIRE(empty.has_value());
  REQUIRE(empty->edges == 0);
}

TEST_CASE("read_graph_ini errors name the file and the problem", "[graph_format]") {
  TempDir dir;
  const auto g = dir / "g.ini";

  SECTION("missing .ini") {
    expect_error(dir / "nothing.ini", StatusCode::kNotFound, {(dir / "nothing.ini").string()});
  }
  SECTION("missing edge file") {
    write_text(g, ini("missing.bin", "1", "5", "3"));
    expect_error(g, StatusCode::kNotFound, {(dir / "missing.bin").string()});
  }
  SECTION("edge file is a directory") {
    std::filesystem::create_directories(dir / "adir");
    write_text(g, ini("adir", "1", "5", "0"));
    expect_error(g, StatusCode::kBadInput, {(dir / "adir").string(), "not a regular file"});
  }
  SECTION("file size not a multiple of the record") {
    write_zero_bytes(dir / "e", 10 * 12 + 5);
    write_text(g, ini("e", "1", "5", "10"));
    expect_error(g, StatusCode::kBadInput, {(dir / "e").string(), "125", "12-byte", "5 trailing bytes"});
  }
  SECTION("edges= does not match the file size") {
    write_zero_bytes(dir / "e", 10 * 12);
    write_text(g, ini("e", "1", "5", "11"));
    expect_error(g, StatusCode::kBadInput, {g.string(), "edges=11", (dir / "e").string(), "10 records", "120 bytes"});
  }
  SECTION("edges= written for the other record type") {
    write_zero_bytes(dir / "e", 10 * 12);  // 10 type-1 records read as type 2: 15 records
    write_text(g, ini("e", "2", "5", "10"));
    expect_error(g, StatusCode::kBadInput, {"edges=10", "15 records"});
  }
  SECTION("non-numeric vertices names the line") {
    write_zero_bytes(dir / "e", 0);
    write_text(g, "[graph]\nname=e\ntype=1\n\nvertices=12abc\nedges=0\n");
    expect_error(g, StatusCode::kBadInput, {g.string() + ":5", "vertices", "12abc"});
  }
  SECTION("negative or empty numbers") {
    write_zero_bytes(dir / "e", 0);
    write_text(g, ini("e", "1", "-5", "0"));
    expect_error(g, StatusCode::kBadInput, {g.string() + ":4", "vertices", "-5"});
    write_text(g, ini("e", "1", "5", ""));
    expect_error(g, StatusCode::kBadInput, {g.string() + ":5", "edges"});
  }
  SECTION("type=3") {
    write_zero_bytes(dir / "e", 0);
    write_text(g, ini("e", "3", "5", "0"));
    expect_error(g, StatusCode::kBadInput, {g.string() + ":3", "type", "got 3"});
  }
  SECTION("missing keys") {
    write_zero_bytes(dir / "e", 0);
    write_text(g, "[graph]\ntype=1\nvertices=5\nedges=0\n");
    expect_error(g, StatusCode::kBadInput, {g.string(), "name"});
    write_text(g, "[graph]\nname=e\nvertices=5\nedges=0\n");
    expect_error(g, StatusCode::kBadInput, {g.string(), "type"});
    write_text(g, "[graph]\nname=e\ntype=1\nedges=0\n");
    expect_error(g, StatusCode::kBadInput, {g.string(), "vertices"});
    write_text(g, "[graph]\nname=e\ntype=1\nvertices=5\n");
    expect_error(g, StatusCode::kBadInput, {g.string(), "edges"});
    // Keys outside [graph] do not count.
    write_text(g, "name=e\ntype=1\nvertices=5\nedges=0\n");
    expect_error(g, StatusCode::kBadInput, {g.string(), "name"});
  }
  SECTION("vertices > 2^32") {
    write_zero_bytes(dir / "e", 0);
    write_text(g, ini("e", "2", "4294967297", "0"));
    expect_error(g, StatusCode::kBadInput, {g.string(), "4294967297", "32-bit"});
  }
  SECTION("[disk] count larger than the mnt keys") {
    write_zero_bytes(dir / "e", 0);
    write_text(g, ini("e", "2", "5", "0") + "[disk]\ncount=2\nmnt0=/a\n");
    expect_error(g, StatusCode::kBadInput, {g.string(), "mnt1"});
  }
  SECTION("a line that is neither [section] nor key=value") {
    write_zero_bytes(dir / "e", 0);
    write_text(g, "[graph]\nname=e\nthis is not a key\n");
    expect_error(g, StatusCode::kBadInput, {g.string() + ":3", "this is not a key"});
    write_text(g, "[graph\nname=e\n");
    expect_error(g, StatusCode::kBadInput, {g.string() + ":1"});
  }
}

TEST_CASE("parse_graph_ini does not need the edge file", "[graph_format]") {
  TempDir dir;
  write_text(dir / "g.ini", ini("not-yet-written", "1", "5", "3"));
  auto info = parse_graph_ini(dir / "g.ini");
  INFO(info.status().to_string());
  REQUIRE(info.has_value());
  REQUIRE(info->edge_path == dir / "not-yet-written");
  REQUIRE(info->edges == 3);
  REQUIRE_FALSE(read_graph_ini(dir / "g.ini").has_value());
}

TEST_CASE("write_graph_ini then read_graph_ini gives back the same GraphInfo", "[graph_format]") {
  TempDir dir;
  for (const EdgeFileType type : {EdgeFileType::kWeighted, EdgeFileType::kUnweighted}) {
    GraphInfo info;
    info.ini_path = dir / "w.ini";
    info.name = "w.edges";
    info.type = type;
    info.vertices = 123456789012ULL % (std::uint64_t{1} << 32);
    info.edges = 17;
    if (type == EdgeFileType::kUnweighted) info.volumes = {"/mnt/a", "/mnt/b b", "relative/c"};
    write_zero_bytes(dir / "w.edges", info.edges * edge_record_size(type));
    const Status st = write_graph_ini(info);
    INFO(st.to_string());
    REQUIRE(st.is_ok());
    auto back = read_graph_ini(info.ini_path);
    INFO(back.status().to_string());
    REQUIRE(back.has_value());
    REQUIRE(back->ini_path == info.ini_path);
    REQUIRE(back->name == info.name);
    REQUIRE(back->edge_path == dir / "w.edges");
    REQUIRE(back->type == type);
    REQUIRE(back->vertices == info.vertices);
    REQUIRE(back->edges == info.edges);
    REQUIRE(back->volumes == info.volumes);
    // Written through a temporary name: nothing else is left in the directory.
    auto entries = dir.entries();
    std::sort(entries.begin(), entries.end());
    REQUIRE(entries == std::vector<std::string>{"w.edges", "w.ini"});
  }
  // Overwriting an existing .ini replaces it.
  GraphInfo info;
  info.ini_path = dir / "w.ini";
  info.name = "w.edges";
  info.type = EdgeFileType::kWeighted;
  info.vertices = 3;
  info.edges = 0;
  write_zero_bytes(dir / "w.edges", 0);
  REQUIRE(write_graph_ini(info).is_ok());
  auto back = read_graph_ini(info.ini_path);
  REQUIRE(back.has_value());
  REQUIRE(back->vertices == 3);
  REQUIRE(back->volumes.empty());
  // A directory that does not exist is an error naming the path.
  info.ini_path = dir / "no-dir" / "x.ini";
  const Status st = write_graph_ini(info);
  REQUIRE_FALSE(st.is_ok());
  REQUIRE(contains(st.message(), (dir / "no-dir").string()));
}

TEST_CASE("graph_ini_path adds .ini unless present", "[graph_format]") {
  REQUIRE(graph_ini_path("G") == std::filesystem::path("G.ini"));
  REQUIRE(graph_ini_path("G.ini") == std::filesystem::path("G.ini"));
  REQUIRE(graph_ini_path("/data/graphs/rmat22") == std::filesystem::path("/data/graphs/rmat22.ini"));
  REQUIRE(graph_ini_path("/data/graphs/rmat22.ini") == std::filesystem::path("/data/graphs/rmat22.ini"));
  REQUIRE(graph_ini_path("dir.v2/G") == std::filesystem::path("dir.v2/G.ini"));
  REQUIRE(graph_ini_path("twitter.bin") == std::filesystem::path("twitter.bin.ini"));
}

TEST_CASE("parse_size accepts plain numbers and K/M/G/T suffixes (powers of 1024)", "[graph_format][size_literal]") {
  const std::vector<std::pair<std::string, std::uint64_t>> cases = {
      {"0", 0},
      {"268435456", 268435456},
      {"256M", 256ULL << 20},
      {"8G", 8ULL << 30},
      {"64K", 64ULL << 10},
      {"1T", 1ULL << 40},
      {"256MiB", 256ULL << 20},
      {"4kb", 4ULL << 10},
      {"4KB", 4ULL << 10},
      {"2g", 2ULL << 30},
      {"7B", 7},
      {"16777215T", 16777215ULL << 40},
      {"18446744073709551615", 18446744073709551615ULL},
  };
  for (const auto& [text, want] : cases) {
    CAPTURE(text);
    auto got = parse_size("physical_memory", text);
    INFO(got.status().to_string());
    REQUIRE(got.has_value());
    REQUIRE(*got == want);
  }
}

TEST_CASE("parse_size rejects empty, negative, fractional, unknown-suffix and overflowing sizes",
          "[graph_format][size_literal]") {
  for (const std::string text :
       {"", "-1", "1.5G", "12Q", "99999999999T", "16777216T", "18446744073709551616", "G", " 5", "5 G", "5GG", "5iB",
        "5BB", "+5"}) {
    CAPTURE(text);
    auto got = parse_size("physical_memory", text);
    REQUIRE_FALSE(got.has_value());
    REQUIRE(got.status().code() == StatusCode::kInvalidArgument);
    REQUIRE(contains(got.status().message(), "--physical_memory"));
    REQUIRE(contains(got.status().message(), "'" + text + "'"));
  }
}

TEST_CASE("parse_count accepts plain non-negative integers only", "[graph_format][size_literal]") {
  REQUIRE(*parse_count("threads", "0") == 0);
  REQUIRE(*parse_count("threads", "42") == 42);
  REQUIRE(*parse_count("threads", "18446744073709551615") == 18446744073709551615ULL);
  for (const std::string text : {"-3", "3x", "", "3K", " 3", "3.0", "18446744073709551616"}) {
    CAPTURE(text);
    auto got = parse_count("threads", text);
    REQUIRE_FALSE(got.has_value());
    REQUIRE(got.status().code() == StatusCode::kInvalidArgument);
    REQUIRE(contains(got.status().message(), "--threads"));
    REQUIRE(contains(got.status().message(), "'" + text + "'"));
  }
}
