// Tests of the graph generators (utils/graph_generator.hpp) and of the `rmat` / `erdos-renyi` tools:
// file contents vs the in-memory edges, determinism across thread counts, seeds, id ranges, counts,
// symmetric pairs, the .ini, record sizes, RMAT skew, Erdős–Rényi self-loops, cleanup, and CLI errors.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/graph_format.hpp"
#include "io/size_literal.hpp"
#include "utils/graph_generator.hpp"

namespace fs = std::filesystem;
using namespace edgestream;

namespace {

// A fresh directory under the system temp directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() /
            ("edgestream-gen-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::vector<char> bytes(static_cast<std::size_t>(fs::file_size(path)));
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(in.gcount() == static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

std::vector<Edge> read_edges(const std::string& path, EdgeFileType type) {
  const std::vector<char> bytes = read_bytes(path);
  const std::size_t record = edge_record_size(type);
  REQUIRE(bytes.size() % record == 0);
  std::vector<Edge> edges(bytes.size() / record);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    edges[i] = decode_edge(reinterpret_cast<const std::byte*>(bytes.data()) + i * record, type);
  }
  return edges;
}

bool same_edges(const std::vector<Edge>& x, const std::vector<Edge>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i].src != y[i].src || x[i].dst != y[i].dst || std::memcmp(&x[i].weight, &y[i].weight, 4) != 0) return false;
  }
  return true;
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CommandResult run(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) result.output.append(buf, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string tool(const std::string& name) { return "'" + std::string(EDGESTREAM_BIN_DIR) + "/" + name + "'"; }

RmatOptions small_rmat(const std::string& name = "") {
  RmatOptions o;
  o.name = name;
  o.scale = 10;
  o.edges = 5000;
  o.threads = 2;
  return o;
}

ErdosRenyiOptions small_er(const std::string& name = "") {
  ErdosRenyiOptions o;
  o.name = name;
  o.vertices = 1000;
  o.edges = 5000;
  o.threads = 2;
  return o;
}

}  // namespace

TEST_CASE("rmat file equals rmat_edges in memory", "[generators]") {
  TempDir dir;
  for (const EdgeFileType type : {EdgeFileType::kWeighted, EdgeFileType::kUnweighted}) {
    for (const bool symmetric : {false, true}) {
      for (const bool direct : {true, false}) {
        RmatOptions o = small_rmat(dir.file("g"));
        o.edges = kGeneratorBlockEdges + 1001;  // two blocks, unaligned tail
        o.type = type;
        o.symmetric = symmetric;
        o.direct_io = direct;
        REQUIRE(generate_rmat(o).is_ok());
        CHECK(same_edges(read_edges(o.name, type), rmat_edges(o)));
      }
    }
  }
}

TEST_CASE("erdos-renyi file equals erdos_renyi_edges in memory", "[generators]") {
  TempDir dir;
  for (const EdgeFileType type : {EdgeFileType::kWeighted, EdgeFileType::kUnweighted}) {
    for (const bool symmetric : {false, true}) {
      ErdosRenyiOptions o = small_er(dir.file("g"));
      o.edges = kGeneratorBlockEdges + 77;
      o.type = type;
      o.symmetric = symmetric;
      REQUIRE(generate_erdos_renyi(o).is_ok());
      CHECK(same_edges(read_edges(o.name, type), erdos_renyi_edges(o)));
    }
  }
}

TEST_CASE("generator output does not depend on the thread count", "[generators]") {
  TempDir dir;
  std::vector<std::vector<char>> rmat_files;
  std::vector<std::vector<char>> er_files;
  for (const unsigned threads : {1U, 2U, 3U}) {
    std::string suffix = "-";  // (GCC 12 warns falsely about "literal" + std::to_string(...))
    suffix += std::to_string(threads);
    RmatOptions r = small_rmat(dir.file("r" + suffix));
    r.scale = 14;
    r.edges = 3 * kGeneratorBlockEdges + 12345;  // 4 blocks: every thread count splits them differently
    r.type = EdgeFileType::kUnweighted;
    r.threads = threads;
    REQUIRE(generate_rmat(r).is_ok());
    rmat_files.push_back(read_bytes(r.name));

    ErdosRenyiOptions e = small_er(dir.file("e" + suffix));
    e.edges = 2 * kGeneratorBlockEdges + 5;
    e.symmetric = true;
    e.threads = threads;
    REQUIRE(generate_erdos_renyi(e).is_ok());
    er_files.push_back(read_bytes(e.name));
  }
  REQUIRE(rmat_files[0].size() == (3 * kGeneratorBlockEdges + 12345) * 8);
  CHECK(rmat_files[0] == rmat_files[1]);
  CHECK(rmat_files[0] == rmat_files[2]);
  CHECK(er_files[0] == er_files[1]);
  CHECK(er_files[0] == er_files[2]);

  RmatOptions o = small_rmat();
  o.edges = 2 * kGeneratorBlockEdges + 3;
  o.threads = 1;
  const auto one = rmat_edges(o);
  o.threads = 3;
  CHECK(same_edges(one, rmat_edges(o)));
}

TEST_CASE("the SIMD and portable RMAT paths agree bit for bit", "[generators]") {
  struct Probabilities {
    double a, b, c;
  };
  const Probabilities cases[] = {{0.57, 0.19, 0.19}, {0.25, 0.25, 0.25}, {1, 0, 0}, {0, 1, 0},
                                 {0, 0, 1},          {0, 0, 0},          {0.5, 0.5, 0}, {0.45, 0.15, 0.4}};
  for (const int scale : {1, 2, 3, 4, 5, 7, 13, 32}) {
    for (const auto& p : cases) {
      RmatOptions o = small_rmat();
      o.scale = scale;
      o.edges = 3000;
      o.a = p.a;
      o.b = p.b;
      o.c = p.c;
      INFO("scale " << scale << " a " << p.a << " b " << p.b << " c " << p.c);
      CHECK(same_edges(rmat_edges(o), detail::rmat_edges_portable(o)));
    }
  }
}

TEST_CASE("degenerate RMAT probabilities pick one quadrant", "[generators]") {
  RmatOptions o = small_rmat();
  o.scale = 7;
  o.edges = 2000;
  const VertexId last = (1U << 7) - 1;
  auto all = [&](VertexId src, VertexId dst) {
    const auto edges = rmat_edges(o);
    return std::all_of(edges.begin(), edges.end(), [&](const Edge& e) { return e.src == src && e.dst == dst; });
  };
  o.a = 1, o.b = 0, o.c = 0;
  CHECK(all(0, 0));
  o.a = 0, o.b = 1, o.c = 0;
  CHECK(all(0, last));
  o.a = 0, o.b = 0, o.c = 1;
  CHECK(all(last, 0));
  o.a = 0, o.b = 0, o.c = 0;  // d = 1
  CHECK(all(last, last));
  o.scale = 32;  // the top id 2^32 - 1 is reachable
  CHECK(all(0xFFFFFFFFU, 0xFFFFFFFFU));
}

TEST_CASE("different seeds give different graphs", "[generators]") {
  RmatOptions o = small_rmat();
  const auto base = rmat_edges(o);
  RmatOptions other = o;
  other.seed1 += 1;
  CHECK_FALSE(same_edges(base, rmat_edges(other)));
  other = o;
  other.seed2 += 1;
  CHECK_FALSE(same_edges(base, rmat_edges(other)));
  other = o;
  std::swap(other.seed1, other.seed2);
  CHECK_FALSE(same_edges(base, rmat_edges(other)));
  CHECK(same_edges(base, rmat_edges(o)));  // and the same seeds give the same graph

  ErdosRenyiOptions e = small_er();
  const auto er = erdos_renyi_edges(e);
  e.seed1 = 12345;
  CHECK_FALSE(same_edges(er, erdos_renyi_edges(e)));
}

TEST_CASE("all ids are below the vertex count", "[generators]") {
  RmatOptions r = small_rmat();
  r.scale = 5;
  r.edges = 20000;
  for (const Edge& e : rmat_edges(r)) {
    REQUIRE(e.src < 32);
    REQUIRE(e.dst < 32);
  }
  ErdosRenyiOptions e = small_er();
  e.vertices = 1000;  // not a power of two
  e.edges = 100000;
  VertexId max_id = 0;
  for (const Edge& edge : erdos_renyi_edges(e)) {
    REQUIRE(edge.src < 1000);
    REQUIRE(edge.dst < 1000);
    max_id = std::max({max_id, edge.src, edge.dst});
  }
  CHECK(max_id == 999);
  e.vertices = std::uint64_t{1} << 32;
  e.edges = 1000;
  bool high = false;
  for (const Edge& edge : erdos_renyi_edges(e)) high = high || edge.src >= (1U << 31);
  CHECK(high);
}

TEST_CASE("edge counts, symmetric pairs and the .ini", "[generators]") {
  TempDir dir;
  RmatOptions o = small_rmat(dir.file("g"));
  o.scale = 8;
  o.edges = 1000;
  REQUIRE(generate_rmat(o).is_ok());
  CHECK(fs::file_size(o.name) == 1000 * 12);
  const auto plain = read_edges(o.name, EdgeFileType::kWeighted);

  o.symmetric = true;
  REQUIRE(generate_rmat(o).is_ok());  // replaces the previous graph
  CHECK(fs::file_size(o.name) == 2000 * 12);
  const auto sym = read_edges(o.name, EdgeFileType::kWeighted);
  REQUIRE(sym.size() == 2000);
  for (std::size_t i = 0; i < 1000; ++i) {
    INFO("edge " << i);
    REQUIRE(sym[2 * i].src == plain[i].src);  // the forward edges are the non-symmetric graph
    REQUIRE(sym[2 * i].dst == plain[i].dst);
    REQUIRE(sym[2 * i + 1].src == sym[2 * i].dst);
    REQUIRE(sym[2 * i + 1].dst == sym[2 * i].src);
    REQUIRE(sym[2 * i + 1].weight == sym[2 * i].weight);
  }

  auto info = read_graph_ini(o.name + ".ini");
  REQUIRE(info.has_value());
  CHECK(info->type == EdgeFileType::kWeighted);
  CHECK(info->vertices == 256);
  CHECK(info->edges == 2000);
  CHECK(info->name == "g");  // bare file name: the pair can be moved together
  CHECK(fs::equivalent(info->edge_path, o.name));
  CHECK(files_in(dir.path()) == std::vector<std::string>{"g", "g.ini"});  // no temporaries left

  fs::create_directories(dir.path() / "moved");
  fs::rename(o.name, dir.path() / "moved" / "g");
  fs::rename(o.name + ".ini", dir.path() / "moved" / "g.ini");
  auto moved = read_graph_ini(dir.path() / "moved" / "g.ini");
  REQUIRE(moved.has_value());
  CHECK(moved->edges == 2000);

  ErdosRenyiOptions e = small_er(dir.file("sub/dir/e"));  // missing directories are created
  e.vertices = 77;
  e.edges = 300;
  e.symmetric = true;
  e.type = EdgeFileType::kUnweighted;
  REQUIRE(generate_erdos_renyi(e).is_ok());
  auto er_info = read_graph_ini(e.name + ".ini");
  REQUIRE(er_info.has_value());
  CHECK(er_info->type == EdgeFileType::kUnweighted);
  CHECK(er_info->vertices == 77);
  CHECK(er_info->edges == 600);
  CHECK(erdos_renyi_record_count(e) == 600);

  e.edges = 0;  // an empty graph is still a graph
  REQUIRE(generate_erdos_renyi(e).is_ok());
  CHECK(fs::file_size(e.name) == 0);
  auto empty = read_graph_ini(e.name + ".ini");
  REQUIRE(empty.has_value());
  CHECK(empty->edges == 0);
}

TEST_CASE("type 2 files hold 8-byte records with the type 1 topology", "[generators]") {
  TempDir dir;
  RmatOptions o = small_rmat(dir.file("w"));
  o.edges = 4321;
  REQUIRE(generate_rmat(o).is_ok());
  RmatOptions u = o;
  u.name = dir.file("u");
  u.type = EdgeFileType::kUnweighted;
  REQUIRE(generate_rmat(u).is_ok());
  CHECK(fs::file_size(u.name) == 4321 * 8);
  const auto weighted = read_edges(o.name, EdgeFileType::kWeighted);
  const auto unweighted = read_edges(u.name, EdgeFileType::kUnweighted);
  REQUIRE(weighted.size() == unweighted.size());
  for (std::size_t i = 0; i < weighted.size(); ++i) {
    REQUIRE(weighted[i].src == unweighted[i].src);
    REQUIRE(weighted[i].dst == unweighted[i].dst);
    REQUIRE(unweighted[i].weight == 1.0F);
  }
  for (const Edge& e : rmat_edges(u)) REQUIRE(e.weight == 1.0F);
}

TEST_CASE("weights are uniform in [0, 1)", "[generators]") {
  RmatOptions o = small_rmat();
  o.edges = 20000;
  double sum = 0;
  float lo = 1;
  float hi = 0;
  for (const Edge& e : rmat_edges(o)) {
    REQUIRE(e.weight >= 0.0F);
    REQUIRE(e.weight < 1.0F);
    sum += e.weight;
    lo = std::min(lo, e.weight);
    hi = std::max(hi, e.weight);
  }
  CHECK(std::abs(sum / 20000 - 0.5) < 0.02);
  CHECK(lo < 0.01F);
  CHECK(hi > 0.99F);
}

TEST_CASE("RMAT is skewed towards vertex 0", "[generators]") {
  RmatOptions o = small_rmat();
  o.scale = 12;
  o.edges = 0;  // 16 << 12
  const auto edges = rmat_edges(o);
  REQUIRE(edges.size() == 65536);
  std::vector<std::uint64_t> out_degree(4096, 0);
  std::uint64_t src_top_bit = 0;
  for (const Edge& e : edges) {
    ++out_degree[e.src];
    src_top_bit += e.src >> 11;
  }
  const double average = 65536.0 / 4096;
  // Expected out-degree of vertex 0: 65536 * (a + b)^12 ≈ 2430, vs an average of 16.
  CHECK(static_cast<double>(out_degree[0]) > 50 * average);
  CHECK(*std::max_element(out_degree.begin(), out_degree.end()) == out_degree[0]);
  // The src bit of each level is 1 with probability c + d = 0.24.
  CHECK(std::abs(static_cast<double>(src_top_bit) / 65536 - 0.24) < 0.01);
}

TEST_CASE("erdos-renyi has no self-loops unless asked", "[generators]") {
  ErdosRenyiOptions o = small_er();
  o.vertices = 3;
  o.edges = 30000;
  auto count_loops = [](const std::vector<Edge>& edges) {
    return std::count_if(edges.begin(), edges.end(), [](const Edge& e) { return e.src == e.dst; });
  };
  CHECK(count_loops(erdos_renyi_edges(o)) == 0);
  o.self_loops = true;
  const auto loops = count_loops(erdos_renyi_edges(o));
  CHECK(loops > 9000);  // expected 10000
  CHECK(loops < 11000);
  o.vertices = 1;
  const auto single = erdos_renyi_edges(o);
  CHECK(static_cast<std::size_t>(count_loops(single)) == single.size());
}

TEST_CASE("invalid generator options are rejected with the option's name", "[generators]") {
  auto rmat_message = [](RmatOptions o) {
    const Status s = validate_rmat_options(o);
    CHECK(s.code() == StatusCode::kInvalidArgument);
    return s.message();
  };
  RmatOptions o = small_rmat();
  CHECK(validate_rmat_options(o).is_ok());
  o.scale = 0;
  CHECK_THAT(rmat_message(o), Catch::Contains("--scale"));
  o.scale = 33;
  CHECK_THAT(rmat_message(o), Catch::Contains("--scale"));
  o = small_rmat();
  o.b = -0.1;
  CHECK_THAT(rmat_message(o), Catch::Contains("--b"));
  o.b = std::nan("");
  CHECK_THAT(rmat_message(o), Catch::Contains("--b"));
  o = small_rmat();
  o.a = 0.6, o.b = 0.3, o.c = 0.2;
  CHECK_THAT(rmat_message(o), Catch::Contains("at most 1"));
  o.type = static_cast<EdgeFileType>(3);
  o.a = 0.5;
  o.b = 0.2;
  o.c = 0.2;
  CHECK_THAT(rmat_message(o), Catch::Contains("--type"));
  o = small_rmat();
  o.edges = std::uint64_t{1} << 62;
  CHECK_THAT(rmat_message(o), Catch::Contains("--edges"));
  CHECK_THROWS_AS(rmat_edges(o), std::invalid_argument);

  ErdosRenyiOptions e = small_er();
  e.vertices = 0;
  CHECK_FALSE(validate_erdos_renyi_options(e).is_ok());
  e.vertices = (std::uint64_t{1} << 32) + 1;
  CHECK_THAT(validate_erdos_renyi_options(e).message(), Catch::Contains("--vertices"));
  e.vertices = 1;
  CHECK_THAT(validate_erdos_renyi_options(e).message(), Catch::Contains("--self-loops"));
  e.self_loops = true;
  CHECK(validate_erdos_renyi_options(e).is_ok());
  e.vertices = 1;
  e.self_loops = false;
  e.edges = 0;
  CHECK(validate_erdos_renyi_options(e).is_ok());
}

TEST_CASE("bad output names and failures leave nothing behind", "[generators]") {
  TempDir dir;
  RmatOptions o = small_rmat();
  o.name = "";
  CHECK(generate_rmat(o).code() == StatusCode::kInvalidArgument);
  o.name = dir.file("g.ini");
  CHECK(generate_rmat(o).code() == StatusCode::kInvalidArgument);
  o.name = dir.path().string() + "/";
  CHECK(generate_rmat(o).code() == StatusCode::kInvalidArgument);

  {
    std::ofstream(dir.file("plain")) << "x";
  }
  o.name = dir.file("plain/g");  // the parent is a regular file
  const Status s = generate_rmat(o);
  CHECK_FALSE(s.is_ok());
  CHECK_THAT(s.message(), Catch::Contains("plain"));

  o.name = dir.file("c");
  o.cancel = [] { return true; };
  CHECK(generate_rmat(o).code() == StatusCode::kCancelled);
  CHECK(files_in(dir.path()) == std::vector<std::string>{"plain"});
}

TEST_CASE("the generators' counts accept K/M/G/T suffixes (io/size_literal parse_size)", "[generators]") {
  auto value = [](const char* text) {
    auto v = parse_size("edges", text);
    REQUIRE(v.has_value());
    return *v;
  };
  CHECK(value("0") == 0);
  CHECK(value("1000") == 1000);
  CHECK(value("4k") == 4096);
  CHECK(value("16M") == (std::uint64_t{16} << 20));
  CHECK(value("2G") == (std::uint64_t{2} << 30));
  CHECK(value("1T") == (std::uint64_t{1} << 40));
  CHECK(value("18446744073709551615") == ~std::uint64_t{0});
  for (const char* bad : {"", "-5", "+5", "1.5M", "12x", "M", " 3", "3 ", "18446744073709551616", "99999999999999T", "1KK"}) {
    INFO("'" << bad << "'");
    const auto v = parse_size("edges", bad);
    REQUIRE_FALSE(v.has_value());
    CHECK_THAT(v.status().message(), Catch::Contains("--edges"));
  }
}

TEST_CASE("the rmat and erdos-renyi tools", "[generators]") {
  TempDir dir;
  SECTION("bad values exit 2 with one message naming the option") {
    const std::string g = " --name '" + dir.file("bad") + "'";
    const struct {
      std::string command;
      std::string option;
    } cases[] = {
        {tool("rmat") + g + " --scale 40", "--scale"},
        {tool("rmat") + g + " --scale 0", "--scale"},
        {tool("rmat") + g + " --a 1.5", "--a"},
        {tool("rmat") + g + " --a 0.6 --b 0.3 --c 0.2", "at most 1"},
        {tool("rmat") + g + " --edges 12q", "--edges"},
        {tool("rmat") + g + " --type 3", "--type"},
        {tool("rmat") + " --scale 5", "--name"},
        {tool("rmat") + g + " --scale 5 stray", "positional"},
        {tool("erdos-renyi") + g + " --vertices 0 --edges 10", "--vertices"},
        {tool("erdos-renyi") + g + " --vertices 5G --edges 10", "--vertices"},
        {tool("erdos-renyi") + g + " --vertices 10", "--edges"},
    };
    for (const auto& c : cases) {
      INFO(c.command);
      const CommandResult r = run(c.command);
      INFO(r.output);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.output, Catch::Contains(c.option));
      CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    }
    CHECK(files_in(dir.path()).empty());
  }
  SECTION("rmat writes the same graph as the library, with suffixes and a summary line") {
    const CommandResult r = run(tool("rmat") + " --name '" + dir.file("cli") +
                                "' --scale 9 --edges 3K --type 2 --symmetric --seed1 5 --seed2 7 --threads 3");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("512 vertices") && Catch::Contains("6144 edges") &&
                             Catch::Contains("49152 bytes"));
    RmatOptions o;
    o.name = dir.file("lib");
    o.scale = 9;
    o.edges = 3072;
    o.type = EdgeFileType::kUnweighted;
    o.symmetric = true;
    o.seed1 = 5;
    o.seed2 = 7;
    REQUIRE(generate_rmat(o).is_ok());
    CHECK(read_bytes(dir.file("cli")) == read_bytes(dir.file("lib")));
    auto info = read_graph_ini(dir.file("cli.ini"));
    REQUIRE(info.has_value());
    CHECK(info->edges == 6144);
    CHECK(info->vertices == 512);
  }
  SECTION("erdos-renyi writes the same graph as the library") {
    const CommandResult r =
        run(tool("erdos-renyi") + " --name '" + dir.file("cli") + "' --vertices 1K --edges 2000 --self-loops");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    ErdosRenyiOptions o;
    o.name = dir.file("lib");
    o.vertices = 1024;
    o.edges = 2000;
    o.self_loops = true;
    REQUIRE(generate_erdos_renyi(o).is_ok());
    CHECK(read_bytes(dir.file("cli")) == read_bytes(dir.file("lib")));
  }
}
