// Tests of the ingest path [ingest]: the SNAP and Matrix Market line parsers (every syntax and
// adversarial lines, line numbers), plain/.gz/truncated .gz input, --strict, compaction mapping,
// symmetric Matrix Market expansion, self-loop/duplicate removal against an in-memory reference,
// the external sort forced with a tiny memory budget (same bytes, no temp files left), cancellation
// cleanup, the text round trip, the real graphs' stated counts, and the engine accepting the output.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/cancellation.hpp"
#include "io/matrix_market.hpp"
#include "io/text_edge_list.hpp"
#include "tests/test_support.hpp"
#include "utils/export_text.hpp"
#include "utils/ingest.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

void write_gz(const std::filesystem::path& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz != nullptr);
  REQUIRE(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  REQUIRE(gzclose(gz) == Z_OK);
}

std::vector<Edge> read_edges(const std::filesystem::path& ini) {
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  const std::string bytes = slurp(info->edge_path);
  std::vector<Edge> edges;
  for (std::size_t i = 0; i + info->record_size() <= bytes.size(); i += info->record_size()) {
    edges.push_back(decode_edge(reinterpret_cast<const std::byte*>(bytes.data() + i), info->type));
  }
  return edges;
}

bool same(const Edge& a, const Edge& b) {
  return a.src == b.src && a.dst == b.dst && std::bit_cast<std::uint32_t>(a.weight) == std::bit_cast<std::uint32_t>(b.weight);
}

bool same_edges(const std::vector<Edge>& a, const std::vector<Edge>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same);
}

IngestOptions options_for(const std::filesystem::path& input, const std::filesystem::path& output) {
  IngestOptions o;
  o.input = input.string();
  o.output = output;
  return o;
}

IngestSummary ingest_ok(const IngestOptions& o) {
  auto s = ingest_graph(o);
  INFO(s.status().to_string());
  REQUIRE(s.has_value());
  return *s;
}

// ---------------------------------------------------------------------------------------------
// Parsers

TEST_CASE("text edge list parser: every accepted syntax", "[ingest]") {
  const std::string text =
      "# SNAP comment\n"
      "% another comment\n"
      "\n"
      "0 1\n"
      "1\t2\n"
      "  2 \t 3  \n"
      "3 4\r\n"
      "   \t\n"
      "4294967295 0\n"
      "+5 6\n";
  const auto p = parse_text_edge_list(text);
  CHECK(p.malformed.empty());
  CHECK(p.lines == 10);
  REQUIRE(p.edges.size() == 6);
  CHECK(p.edges[0].src == 0);
  CHECK(p.edges[0].dst == 1);
  CHECK(p.edges[2].src == 2);
  CHECK(p.edges[2].dst == 3);
  CHECK(p.edges[3].dst == 4);
  CHECK(p.edges[4].src == 4294967295U);
  CHECK(p.edges[5].src == 5);
  CHECK_FALSE(p.edges[0].has_weight);

  const auto w = parse_text_edge_list("0 1 0.5\r\n1 2 -3e2\n2 0 7\n");
  CHECK(w.malformed.empty());
  REQUIRE(w.edges.size() == 3);
  CHECK(w.edges[0].has_weight);
  CHECK(w.edges[0].weight == 0.5F);
  CHECK(w.edges[1].weight == -300.0F);
  CHECK(w.edges[2].weight == 7.0F);
  CHECK(parse_text_edge_list("").lines == 0);
  CHECK(parse_text_edge_list("0 1").edges.size() == 1);  // no final newline
}

TEST_CASE("text edge list parser: adversarial lines are reported with line number and content", "[ingest]") {
  const std::string huge(3 << 20, '7');
  const std::string text = "0 1\n"           // 1 ok
                           "5\n"             // 2 missing column
                           "a b\n"           // 3 non-numeric
                           "-1 2\n"          // 4 negative
                           "4294967296 1\n"  // 5 >= 2^32
                           "1 99999999999999999999999\n"  // 6 overflow
                           "1 2 3 4\n"       // 7 trailing garbage
                           "1 2x\n"          // 8 trailing garbage in a token
                           "1 2 nan\n"       // 9 non-finite weight
                           "1 2 1e39\n"      // 10 weight beyond float
                           "\n"              // 11 blank
                           + huge + "\n"     // 12 huge
                           + "3 4\n";        // 13 ok
  const auto p = parse_text_edge_list(text);
  REQUIRE(p.edges.size() == 2);
  CHECK(p.lines == 13);
  std::vector<std::uint64_t> lines;
  for (const auto& m : p.malformed) lines.push_back(m.line);
  CHECK(lines == std::vector<std::uint64_t>{2, 3, 4, 5, 6, 7, 8, 9, 10, 12});
  CHECK(std::string(p.malformed[0].reason).find("missing destination") != std::string::npos);
  CHECK(p.malformed[0].content == "5");
  CHECK(std::string(p.malformed[2].reason).find("negative") != std::string::npos);
  CHECK(std::string(p.malformed[3].reason).find("32 bits") != std::string::npos);
  CHECK(std::string(p.malformed[5].reason).find("trailing") != std::string::npos);
  CHECK(p.malformed[9].content.size() == kMaxReportedLineBytes + 3);  // cut, "..." appended
  CHECK(describe(p.malformed[1]) == "line 3: vertex id is not a non-negative integer: 'a b'");

  // The first edge line fixes the column count.
  const auto mixed = parse_text_edge_list("0 1 0.5\n1 2\n2 3 1\n");
  REQUIRE(mixed.malformed.size() == 1);
  CHECK(mixed.malformed[0].line == 2);
  CHECK(mixed.edges.size() == 2);
}

TEST_CASE("matrix market parser: header validation, 1-based ids, entry count, symmetric", "[ingest]") {
  SECTION("real general") {
    const auto p = parse_matrix_market("%%MatrixMarket matrix coordinate real general\n% comment\n\n3 4 3\n1 2 0.5\n3 4 2\n2 1 -1\n");
    INFO(p.status.to_string());
    REQUIRE(p.status.is_ok());
    CHECK(p.header.weighted);
    CHECK_FALSE(p.header.symmetric);
    REQUIRE(p.edges.size() == 3);
    CHECK((p.edges[0].src == 0 && p.edges[0].dst == 1 && p.edges[0].weight == 0.5F));
    CHECK((p.edges[1].src == 2 && p.edges[1].dst == 3));
  }
  SECTION("pattern symmetric expands to both directions, diagonal once") {
    const auto p = parse_matrix_market("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n4 3\n4 4\n");
    REQUIRE(p.status.is_ok());
    CHECK(p.header.symmetric);
    CHECK_FALSE(p.header.weighted);
    const auto all = expand_symmetric(p.edges);
    REQUIRE(all.size() == 5);
    std::set<std::pair<std::uint32_t, std::uint32_t>> got;
    for (const auto& e : all) got.insert({e.src, e.dst});
    CHECK(got == std::set<std::pair<std::uint32_t, std::uint32_t>>{{1, 0}, {0, 1}, {3, 2}, {2, 3}, {3, 3}});
  }
  SECTION("integer values and case-insensitive banner") {
    const auto p = parse_matrix_market("%%matrixmarket MATRIX Coordinate INTEGER General\n2 2 1\n2 2 7\n");
    REQUIRE(p.status.is_ok());
    REQUIRE(p.edges.size() == 1);
    CHECK(p.edges[0].weight == 7.0F);
  }
  SECTION("fatal header and size errors name the line") {
    for (const std::string bad : {"0 1\n", "%%MatrixMarket matrix array real general\n2 2\n",
                                  "%%MatrixMarket matrix coordinate complex general\n",
                                  "%%MatrixMarket matrix coordinate real skew-symmetric\n",
                                  "%%MatrixMarket vector coordinate real general\n"}) {
      const auto p = parse_matrix_market(bad);
      INFO(bad);
      CHECK_FALSE(p.status.is_ok());
      CHECK(p.status.message().find("line 1") != std::string::npos);
    }
    const auto size = parse_matrix_market("%%MatrixMarket matrix coordinate real general\n% c\n3 x 2\n");
    CHECK(size.status.message().find("line 3") != std::string::npos);
    CHECK_FALSE(parse_matrix_market("%%MatrixMarket matrix coordinate real general\n").status.is_ok());
  }
  SECTION("entry count checked against the size line") {
    const auto short_file = parse_matrix_market("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n");
    CHECK_FALSE(short_file.status.is_ok());
    CHECK(short_file.status.message().find("states 3 entries") != std::string::npos);
    const auto long_file = parse_matrix_market("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n");
    CHECK_FALSE(long_file.status.is_ok());
    CHECK(long_file.status.message().find("line 4") != std::string::npos);
  }
  SECTION("malformed entries are reported and still count") {
    const auto p = parse_matrix_market(
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 7\n1 1 1\n0 1 1\n4 1 1\n1 2 1\n2 1\n2 1 x\n3 -1 2\n");
    REQUIRE(p.status.is_ok());
    CHECK(p.edges.size() == 1);
    std::vector<std::uint64_t> lines;
    for (const auto& m : p.malformed) lines.push_back(m.line);
    CHECK(lines == std::vector<std::uint64_t>{4, 5, 6, 7, 8, 9});
    CHECK(std::string(p.malformed[0].reason).find("1-based") != std::string::npos);
    CHECK(std::string(p.malformed[2].reason).find("above the diagonal") != std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------------
// The pipeline

TEST_CASE("ingest: ids kept, vertices = max id + 1, weights, types", "[ingest]") {
  TempDir dir;
  write_text(dir / "g.txt", "# c\n0 5\n5 2\n2 0\n");
  auto s = ingest_ok(options_for(dir / "g.txt", dir / "g"));
  CHECK(s.vertices == 6);  // never an off-by-one (X-Stream #11)
  CHECK(s.edges == 3);
  CHECK(s.type == EdgeFileType::kUnweighted);
  auto info = read_graph_ini(dir / "g.ini");
  REQUIRE(info.has_value());
  CHECK(info->vertices == 6);
  CHECK(same_edges(read_edges(dir / "g.ini"), {{0, 5, 1}, {5, 2, 1}, {2, 0, 1}}));

  write_text(dir / "w.txt", "0 1 0.25\n1 2 4\n");
  s = ingest_ok(options_for(dir / "w.txt", dir / "w"));
  CHECK(s.type == EdgeFileType::kWeighted);
  CHECK(same_edges(read_edges(dir / "w.ini"), {{0, 1, 0.25F}, {1, 2, 4.0F}}));

  auto o = options_for(dir / "w.txt", dir / "w2");
  o.weights = WeightMode::kUnit;
  ingest_ok(o);
  CHECK(same_edges(read_edges(dir / "w2.ini"), {{0, 1, 1}, {1, 2, 1}}));

  o = options_for(dir / "g.txt", dir / "r1");
  o.weights = WeightMode::kRandom;
  o.seed = 7;
  ingest_ok(o);
  const auto r1 = read_edges(dir / "r1.ini");
  o.output = dir / "r2";
  ingest_ok(o);
  CHECK(same_edges(r1, read_edges(dir / "r2.ini")));  // deterministic in the seed
  for (const auto& e : r1) CHECK((e.weight >= 0.0F && e.weight < 1.0F));
  CHECK(r1[0].weight != r1[1].weight);
}

TEST_CASE("ingest: .gz input, truncated .gz is an error, nothing written", "[ingest]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + "\t" + std::to_string((i * 7919) % 200000) + "\n";
  write_gz(dir / "g.txt.gz", text);
  const auto s = ingest_ok(options_for(dir / "g.txt.gz", dir / "g"));
  CHECK(s.edges == 200000);
  CHECK(s.vertices == 200000);

  const std::string gz = slurp(dir / "g.txt.gz");
  TempDir cut_dir;
  write_text(cut_dir / "cut.txt.gz", gz.substr(0, gz.size() / 2));
  auto o = options_for(cut_dir / "cut.txt.gz", cut_dir / "out");
  o.remove_duplicates = true;  // scratch in use too
  const auto r = ingest_graph(o);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kBadInput);
  CHECK(r.status().message().find("truncated") != std::string::npos);
  CHECK(cut_dir.entries() == std::vector<std::string>{"cut.txt.gz"});

  // Also through the tool: exit 1 and one message.
  const auto p = run_tool("ingest", {(cut_dir / "cut.txt.gz").string(), (cut_dir / "out").string()});
  CHECK(p.exit_code == 1);
  CHECK(p.err.find("truncated") != std::string::npos);
  CHECK(cut_dir.entries() == std::vector<std::string>{"cut.txt.gz"});
}

TEST_CASE("ingest: '-' reads standard input (gzip detected from the bytes)", "[ingest]") {
  TempDir dir;
  write_gz(dir / "in.gz", "# c\n0 3\n3 1\n");
  const int saved = ::dup(STDIN_FILENO);
  REQUIRE(saved >= 0);
  const int fd = ::open((dir / "in.gz").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::dup2(fd, STDIN_FILENO) == STDIN_FILENO);
  ::close(fd);
  auto o = options_for("-", dir / "g");
  const auto s = ingest_graph(o);
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  REQUIRE(s.has_value());
  CHECK(s->vertices == 4);
  CHECK(same_edges(read_edges(dir / "g.ini"), {{0, 3, 1}, {3, 1, 1}}));
}

TEST_CASE("ingest: malformed lines reported and counted, --strict stops at the first", "[ingest]") {
  TempDir dir;
  std::string text = "0 1\n";
  for (int i = 0; i < 30; ++i) text += "bad line " + std::to_string(i) + "\n";
  text += "1 2\n-3 4\n2 3\n";
  write_text(dir / "g.txt", text);
  auto o = options_for(dir / "g.txt", dir / "g");
  std::vector<std::uint64_t> seen;
  o.on_malformed = [&](const MalformedLine& m) { seen.push_back(m.line); };
  const auto s = ingest_ok(o);
  CHECK(s.malformed_lines == 31);
  CHECK(s.reported.size() == 20);  // capped, all counted
  CHECK(seen.size() == 20);
  CHECK(seen.front() == 2);
  CHECK(s.edges == 3);
  CHECK(s.lines == 34);

  const auto tool = run_tool("ingest", {(dir / "g.txt").string(), (dir / "t").string(), "--max_errors", "3"});
  CHECK(tool.exit_code == 0);
  CHECK(tool.err.find("g.txt:2: vertex id is not a non-negative integer: 'bad line 0'") != std::string::npos);
  CHECK(tool.err.find("28 more malformed lines") != std::string::npos);
  CHECK(tool.out.find("31 malformed lines skipped") != std::string::npos);

  o.strict = true;
  o.output = dir / "s";
  const auto strict = ingest_graph(o);
  REQUIRE_FALSE(strict.has_value());
  CHECK(strict.status().message().find("g.txt:2:") != std::string::npos);
  const auto strict_tool = run_tool("ingest", {"--strict", (dir / "g.txt").string(), (dir / "s").string()});
  CHECK(strict_tool.exit_code == 1);
  CHECK(strict_tool.err.find(":2: ") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "s"));
  CHECK_FALSE(std::filesystem::exists(dir / "s.ini"));
}

TEST_CASE("ingest: compaction mapping is correct (sorted order of original ids)", "[ingest]") {
  TempDir dir;
  std::mt19937_64 rng(3);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> original;
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    const std::uint32_t u = static_cast<std::uint32_t>(rng() % 3000) * 1000003U;
    const std::uint32_t v = static_cast<std::uint32_t>(rng() % 3000) * 1000003U;
    original.emplace_back(u, v);
    text += std::to_string(u) + " " + std::to_string(v) + "\n";
  }
  write_text(dir / "g.txt", text);
  for (const std::uint64_t memory : {std::uint64_t{1} << 30, std::uint64_t{64} << 10}) {
    auto o = options_for(dir / "g.txt", dir / ("g" + std::to_string(memory)));
    o.compact = true;
    o.memory_bytes = memory;
    o.tmp_dir = dir.path();
    const auto s = ingest_ok(o);
    std::set<std::uint32_t> distinct;
    for (const auto& [u, v] : original) distinct.insert(u), distinct.insert(v);
    CHECK(s.vertices == distinct.size());
    std::vector<std::uint32_t> mapping;
    std::istringstream ids(slurp(s.ids_path));
    std::string line;
    while (std::getline(ids, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      std::uint64_t n = 0;
      std::uint64_t id = 0;
      fields >> n >> id;
      REQUIRE(n == mapping.size());
      mapping.push_back(static_cast<std::uint32_t>(id));
    }
    CHECK(mapping == std::vector<std::uint32_t>(distinct.begin(), distinct.end()));
    const auto edges = read_edges(s.ini_path);
    REQUIRE(edges.size() == original.size());
    bool all_map_back = true;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      all_map_back = all_map_back && edges[i].src < mapping.size() && edges[i].dst < mapping.size() &&
                     mapping[edges[i].src] == original[i].first && mapping[edges[i].dst] == original[i].second;
    }
    CHECK(all_map_back);

    // With duplicate removal (the external sort at the small budget) the edges map back to the
    // distinct original pairs, in sorted order.
    o.output = dir / ("d" + std::to_string(memory));
    o.remove_duplicates = true;
    const auto d = ingest_ok(o);
    CHECK(d.vertices == distinct.size());
    if (memory < (1 << 20)) CHECK(d.sort_runs > 1);
    std::set<std::pair<std::uint32_t, std::uint32_t>> expected_pairs(original.begin(), original.end());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
    bool in_range = true;
    for (const Edge& e : read_edges(d.ini_path)) {
      in_range = in_range && e.src < mapping.size() && e.dst < mapping.size();
      if (in_range) got.emplace_back(mapping[e.src], mapping[e.dst]);
    }
    CHECK(in_range);
    CHECK(got == std::vector<std::pair<std::uint32_t, std::uint32_t>>(expected_pairs.begin(), expected_pairs.end()));
  }
}

TEST_CASE("ingest: symmetric Matrix Market expands, vertices from the size line", "[ingest]") {
  TempDir dir;
  write_text(dir / "m.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% c\n6 6 4\n2 1 0.5\n3 3 2\n5 2 1.5\n4 1 3\n");
  const auto s = ingest_ok(options_for(dir / "m.mtx", dir / "m"));
  CHECK(s.format == "matrix-market");
  CHECK(s.vertices == 6);  // from the size line, although vertex 5 (id 6) has no entry
  CHECK(s.type == EdgeFileType::kWeighted);
  CHECK(same_edges(read_edges(s.ini_path), {{1, 0, 0.5F}, {0, 1, 0.5F}, {2, 2, 2}, {4, 1, 1.5F}, {1, 4, 1.5F}, {3, 0, 3}, {0, 3, 3}}));
  // Detection from the banner whatever the name.
  write_text(dir / "m.txt", slurp(dir / "m.mtx"));
  CHECK(ingest_ok(options_for(dir / "m.txt", dir / "m2")).format == "matrix-market");
  // A short file is an error.
  write_text(dir / "short.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n");
  const auto r = ingest_graph(options_for(dir / "short.mtx", dir / "short"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().message().find("states 3 entries") != std::string::npos);
}

// In-memory reference of the options under test.
std::vector<Edge> reference(const std::vector<Edge>& input, bool symmetric, bool no_loops, bool dedupe) {
  std::vector<Edge> out;
  for (const Edge& e : input) {
    if (no_loops && e.src == e.dst) continue;
    out.push_back(e);
    if (symmetric && e.src != e.dst) out.push_back(Edge{e.dst, e.src, e.weight});
  }
  if (dedupe) {
    std::sort(out.begin(), out.end(), [](const Edge& a, const Edge& b) {
      return std::tie(a.src, a.dst, a.weight) < std::tie(b.src, b.dst, b.weight);
    });
    out.erase(std::unique(out.begin(), out.end(), [](const Edge& a, const Edge& b) { return a.src == b.src && a.dst == b.dst; }),
              out.end());
  }
  return out;
}

TEST_CASE("ingest: self-loops and duplicates removed as the in-memory reference; external sort identical", "[ingest]") {
  TempDir dir;
  TempDir scratch;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Edge> input;
    std::string text;
    const std::uint32_t n = seed % 2 == 0 ? 50 : 2000;  // dense (many duplicates) and sparse
    for (int i = 0; i < 20000; ++i) {
      Edge e{static_cast<std::uint32_t>(rng() % n), static_cast<std::uint32_t>(rng() % n), static_cast<float>(rng() % 8) / 4};
      input.push_back(e);
      char line[64];
      std::snprintf(line, sizeof line, "%u %u %.9g\n", e.src, e.dst, static_cast<double>(e.weight));
      text += line;
    }
    write_text(dir / "g.txt", text);
    for (const bool symmetric : {false, true}) {
      for (const bool no_loops : {false, true}) {
        for (const bool dedupe : {false, true}) {
          INFO("seed " << seed << " symmetric " << symmetric << " no_loops " << no_loops << " dedupe " << dedupe);
          auto o = options_for(dir / "g.txt", dir / "mem");
          o.symmetric = symmetric;
          o.remove_self_loops = no_loops;
          o.remove_duplicates = dedupe;
          const auto in_memory = ingest_ok(o);
          CHECK(in_memory.sort_runs == 0);
          const auto expected = reference(input, symmetric, no_loops, dedupe);
          CHECK(same_edges(read_edges(dir / "mem.ini"), expected));
          o.output = dir / "ext";
          o.memory_bytes = 4096;  // forces many runs and several merge passes
          o.tmp_dir = scratch.path();
          const auto external = ingest_ok(o);
          if (dedupe) {
            CHECK(external.sort_runs > 10);
            CHECK(external.merge_passes > 1);
          }
          CHECK(slurp(dir / "ext") == slurp(dir / "mem"));
          CHECK(external.vertices == in_memory.vertices);
          CHECK(external.duplicates_removed == in_memory.duplicates_removed);
          CHECK(scratch.entries().empty());  // temp files gone
        }
      }
    }
  }
}

TEST_CASE("ingest: cancellation removes every partial and scratch file", "[ingest]") {
  TempDir dir;
  TempDir scratch;
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i % 977) + " " + std::to_string(i % 311) + "\n";
  write_text(dir / "g.txt", text);
  auto o = options_for(dir / "g.txt", dir / "g");
  o.remove_duplicates = true;
  o.compact = true;
  o.memory_bytes = 8192;
  o.tmp_dir = scratch.path();
  set_cancel_signal_for_testing(SIGINT);
  const auto r = ingest_graph(o);
  set_cancel_signal_for_testing(0);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kCancelled);
  CHECK(dir.entries() == std::vector<std::string>{"g.txt"});
  CHECK(scratch.entries().empty());
}

TEST_CASE("ingest: round trip text -> graph -> text -> graph is identical", "[ingest]") {
  TempDir dir;
  for (const bool weighted : {true, false}) {
    std::mt19937_64 rng(11);
    std::string text = "% from somewhere\n";
    for (int i = 0; i < 3000; ++i) {
      text += std::to_string(rng() % 500) + "\t" + std::to_string(rng() % 500);
      if (weighted) text += " " + std::to_string(static_cast<double>(rng() % 100000) / 7.0);
      text += "\n";
    }
    write_text(dir / "a.txt", text);
    auto o = options_for(dir / "a.txt", dir / "a");
    const auto first = ingest_ok(o);
    // Declared vertices survive (an isolated top vertex is not in any edge).
    GraphInfo info = *read_graph_ini(first.ini_path);
    info.vertices += 5;
    REQUIRE(write_graph_ini(info).is_ok());
    const std::string out_text = (dir / (weighted ? "b.txt.gz" : "b.txt")).string();
    const auto exported = export_text(first.ini_path, out_text);
    REQUIRE(exported.has_value());
    CHECK(exported->edges == first.edges);
    o = options_for(out_text, dir / "c");
    const auto second = ingest_ok(o);
    CHECK(second.vertices == info.vertices);
    CHECK(second.type == first.type);
    CHECK(slurp(dir / "c") == slurp(dir / "a"));
    // And the tool spelling.
    const auto tool = run_tool("ingest", {"--to-text", (dir / "c").string(), (dir / "d.txt").string()});
    CHECK(tool.exit_code == 0);
    const auto third = ingest_ok(options_for(dir / "d.txt", dir / "e"));
    CHECK(slurp(dir / "e") == slurp(dir / "a"));
    CHECK(third.vertices == info.vertices);
  }
}

TEST_CASE("ingest: tool command line", "[ingest]") {
  TempDir dir;
  write_text(dir / "g.txt", "0 1\n1 1\n1 0\n0 1\n");
  auto p = run_tool("ingest", {(dir / "g.txt").string(), "--name", (dir / "g").string(), "--remove_self_loops",
                               "--remove_duplicates", "--type", "1", "--weights", "random", "--seed", "5"});
  INFO(p.err);
  CHECK(p.exit_code == 0);
  CHECK(p.out.find("2 vertices, 2 edges (type 1)") != std::string::npos);
  CHECK(run_tool("ingest", {(dir / "g.txt").string()}).exit_code == 2);
  CHECK(run_tool("ingest", {(dir / "g.txt").string(), (dir / "x").string(), "--format", "csv"}).exit_code == 2);
  CHECK(run_tool("ingest", {(dir / "nope.txt").string(), (dir / "x").string()}).exit_code == 1);
  CHECK(run_tool("ingest", {(dir / "g.txt").string(), (dir / "g.txt").string()}).exit_code == 2);  // input == output
  CHECK(slurp(dir / "g.txt") == "0 1\n1 1\n1 0\n0 1\n");  // input untouched
}

struct RealGraphFacts {
  const char* file;
  std::uint64_t vertices;
  std::uint64_t edge_lines;
};

TEST_CASE("ingest: the real graphs ingest to their stated vertex and edge counts", "[ingest]") {
  const RealGraphFacts graphs[] = {{"cnr-2000.txt.gz", 325557, 3216152},
                                   {"soc-slashdot0902-directed.txt.gz", 82168, 948464},
                                   {"ego-twitter-undirected.txt.gz", 81306, 1342310},
                                   {"email-enron-undirected.txt.gz", 36692, 183831},
                                   {"facebook-combined-undirected.txt.gz", 4039, 88234}};
  TempDir dir;
  for (const auto& g : graphs) {
    INFO(g.file);
    const auto source = real_data_dir() / g.file;
    if (!std::filesystem::exists(source)) {
      WARN("SKIP: " << source << " is missing");
      continue;
    }
    auto o = options_for(source, dir / "g");
    o.strict = true;
    const auto s = ingest_ok(o);
    CHECK(s.vertices == g.vertices);
    CHECK(s.edges == g.edge_lines);
    CHECK(s.malformed_lines == 0);
    CHECK(s.type == EdgeFileType::kUnweighted);
  }
}

TEST_CASE("ingest: benchmark_driver accepts an ingested graph (cc --verify)", "[ingest]") {
  TempDir dir;
  const auto source = real_data_dir() / "email-enron-undirected.txt.gz";
  if (!std::filesystem::exists(source)) {
    WARN("SKIP: " << source << " is missing");
    return;
  }
  const auto p = run_tool("ingest", {source.string(), (dir / "enron").string(), "--symmetric", "--remove_duplicates",
                                     "--remove_self_loops", "--type", "1", "--weights", "random"});
  INFO(p.out << p.err);
  REQUIRE(p.exit_code == 0);
  TempDir work;
  const auto r = run_tool("benchmark_driver", {"-g", (dir / "enron").string(), "-b", "cc", "--verify", "-p", "2",
                                               "--work_dir", work.path().string()});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("Verification: PASS") != std::string::npos);
  CHECK(stat_value(r.out, "ALGORITHM::CC::COMPONENTS") == "1065");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// --compact beyond --memory: the on-disk relabelling, merge progress, commit order.

// Random SNAP text over a pool of sparse ids in [0, 2^32) (0 and 2^32-1 included), with self-loops
// and duplicates, weighted.
std::string sparse_id_text(std::uint64_t seed, int edges, int pool_size) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> pool{0, 4294967295U};
  while (static_cast<int>(pool.size()) < pool_size) pool.push_back(static_cast<std::uint32_t>(rng()));
  std::string text = "# sparse ids\n";
  for (int i = 0; i < edges; ++i) {
    const std::uint32_t u = pool[rng() % pool.size()];
    const std::uint32_t v = rng() % 10 == 0 ? u : pool[rng() % pool.size()];
    char line[64];
    std::snprintf(line, sizeof line, "%u\t%u\t%.9g\n", u, v, static_cast<double>(rng() % 8) / 4);
    text += line;
    if (rng() % 7 == 0) text += line;  // a duplicate
  }
  return text;
}

std::vector<std::string> sorted_entries(const TempDir& dir) {
  auto e = dir.entries();
  std::sort(e.begin(), e.end());
  return e;
}

TEST_CASE("ingest: --compact beyond --memory relabels on disk, byte-identical to the in-memory path", "[ingest]") {
  TempDir in;
  TempDir mem;
  TempDir ext;
  TempDir scratch;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    write_text(in / "g.txt", sparse_id_text(seed, 2500 + 500 * static_cast<int>(seed), seed == 2 ? 300 : 3000));
    for (int combo = 0; combo < 8; ++combo) {
      const bool symmetric = (combo & 1) != 0;
      const bool no_loops = (combo & 2) != 0;
      const bool dedupe = (combo & 4) != 0;
      INFO("seed " << seed << " symmetric " << symmetric << " no_loops " << no_loops << " dedupe " << dedupe);
      auto o = options_for(in / "g.txt", mem / "g");
      o.compact = true;
      o.symmetric = symmetric;
      o.remove_self_loops = no_loops;
      o.remove_duplicates = dedupe;
      const auto m = ingest_ok(o);
      CHECK_FALSE(m.external_relabel);
      o.output = ext / "g";
      o.memory_bytes = 4096;  // 1024 ids at most in memory: the id table spills
      o.tmp_dir = scratch.path();
      const auto x = ingest_ok(o);
      // Seed 2 has only 300 distinct ids: they fit even at 4 KiB and the in-memory path is kept.
      CHECK(x.external_relabel == (seed != 2));
      if (seed != 2) CHECK(x.id_runs > 1);
      CHECK(x.vertices == m.vertices);
      CHECK(x.edges == m.edges);
      CHECK(slurp(ext / "g") == slurp(mem / "g"));
      CHECK(slurp(ext / "g.ini") == slurp(mem / "g.ini"));
      CHECK(slurp(ext / "g.ids") == slurp(mem / "g.ids"));
      CHECK(scratch.entries().empty());
      CHECK(sorted_entries(ext) == std::vector<std::string>{"g", "g.ids", "g.ini"});
    }
  }
  // The largest id maps to the last new id.
  const std::string ids = slurp(mem / "g.ids");
  CHECK(ids.find("\t4294967295\n") != std::string::npos);
  CHECK(ids.find("\t0\n") != std::string::npos);
}

TEST_CASE("ingest: on-disk relabelling cleans up on SIGINT and on error; merge phases show progress", "[ingest]") {
  TempDir dir;
  TempDir scratch;
  write_text(dir / "g.txt", sparse_id_text(7, 4000, 3000));
  auto o = options_for(dir / "g.txt", dir / "g");
  o.compact = true;
  o.remove_duplicates = true;
  o.memory_bytes = 4096;
  o.tmp_dir = scratch.path();
  o.progress_interval = std::chrono::steady_clock::duration::zero();
  std::vector<std::string> lines;
  o.on_progress = [&](const std::string& text) { lines.push_back(text); };
  SECTION("progress of every merge phase") {
    const auto s = ingest_ok(o);
    CHECK(s.external_relabel);
    for (const char* phase : {"merging vertex ids", "merging edges (duplicates)", "merging relabel by source",
                              "merging relabel by destination", "merging restore order"}) {
      INFO(phase);
      CHECK(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(phase) != std::string::npos; }));
    }
    CHECK(std::any_of(lines.begin(), lines.end(), [](const std::string& l) { return l.find("(100%)") != std::string::npos; }));
  }
  SECTION("SIGINT in the middle of the relabelling") {
    o.on_progress = [&](const std::string& text) {
      if (text.find("relabel by destination") != std::string::npos) set_cancel_signal_for_testing(SIGINT);
    };
    const auto r = ingest_graph(o);
    set_cancel_signal_for_testing(0);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.status().code() == StatusCode::kCancelled);
    CHECK(dir.entries() == std::vector<std::string>{"g.txt"});
    CHECK(scratch.entries().empty());
  }
  SECTION("an error in the middle of the relabelling") {
    bool removed = false;
    o.on_progress = [&](const std::string& text) {
      if (removed || text.find("relabel by source") == std::string::npos) return;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(scratch.path())) {
        if (entry.path().filename() == "ids-sorted") removed = std::filesystem::remove(entry.path());
      }
    };
    const auto r = ingest_graph(o);
    CHECK(removed);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.status().message().find("ids-sorted") != std::string::npos);
    CHECK(dir.entries() == std::vector<std::string>{"g.txt"});
    CHECK(scratch.entries().empty());
  }
}

TEST_CASE("ingest: a failed .ini write leaves the old graph intact; a stale .ids is removed", "[ingest]") {
  TempDir dir;
  write_text(dir / "a.txt", "5 7\n7 9\n9 5\n");
  write_text(dir / "b.txt", "1 2\n2 3\n3 4\n4 1\n1 3\n");
  auto o = options_for(dir / "a.txt", dir / "g");
  o.compact = true;
  ingest_ok(o);
  const std::string old_edges = slurp(dir / "g");
  const std::string old_ini = slurp(dir / "g.ini");
  const std::string old_ids = slurp(dir / "g.ids");
  const auto before = sorted_entries(dir);
  o.input = (dir / "b.txt").string();
  for (const bool compact : {true, false}) {
    INFO("compact " << compact);
    o.compact = compact;
    {
      FaultGuard faults({fault_injection::Rule{fault_injection::Op::kWrite, ".ini", 0, EIO}});
      const auto r = ingest_graph(o);
      REQUIRE_FALSE(r.has_value());
      CHECK(fault_injection::injected_count() == 1);
      CHECK(r.status().message().find(".ini") != std::string::npos);
    }
    CHECK(slurp(dir / "g") == old_edges);
    CHECK(slurp(dir / "g.ini") == old_ini);
    CHECK(slurp(dir / "g.ids") == old_ids);
    CHECK(sorted_entries(dir) == before);  // no temporary file left
    auto info = read_graph_ini(dir / "g.ini");
    REQUIRE(info.has_value());
    CHECK(info->vertices == 3);
    CHECK(info->edges == 3);
  }
  // Without --compact a new graph must not keep the old mapping beside it.
  const auto s = ingest_ok(o);
  CHECK(s.vertices == 5);
  CHECK(sorted_entries(dir) == std::vector<std::string>{"a.txt", "b.txt", "g", "g.ini"});
}
