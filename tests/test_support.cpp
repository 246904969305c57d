// Implementation of the shared test helpers.
#include "tests/test_support.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "benchmarks/driver.hpp"
#include "utils/ingest.hpp"

extern char** environ;

namespace edgestream::test {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("edgestream-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + std::to_string(rd() % 100000));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) names.push_back(entry.path().filename().string());
  return names;
}

std::filesystem::path write_graph(const std::filesystem::path& dir, const std::string& name, const std::vector<Edge>& edges,
                                  std::uint64_t vertices, EdgeFileType type) {
  const std::size_t rs = edge_record_size(type);
  std::vector<std::byte> bytes(edges.size() * rs);
  for (std::size_t i = 0; i < edges.size(); ++i) encode_edge(bytes.data() + i * rs, edges[i], type);
  {
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write test graph");
  }
  GraphInfo info;
  info.ini_path = dir / (name + ".ini");
  info.name = name;
  info.type = type;
  info.vertices = vertices;
  info.edges = edges.size();
  if (!write_graph_ini(info).is_ok()) throw std::runtime_error("cannot write test .ini");
  return info.ini_path;
}

std::vector<Edge> random_edges(std::uint64_t vertices, std::uint64_t edges, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> id(0, vertices - 1);
  std::uniform_real_distribution<float> weight(0.0F, 1.0F);
  std::vector<Edge> out(edges);
  for (auto& e : out) {
    e.src = static_cast<VertexId>(id(rng));
    e.dst = static_cast<VertexId>(id(rng));
    e.weight = weight(rng);
  }
  return out;
}

std::filesystem::path skewed_graph(const std::filesystem::path& dir) {
  std::vector<Edge> edges = random_edges(30011, 200000, 5);
  for (std::size_t i = 0; i < edges.size(); i += 3) edges[i].src %= 97;
  for (std::size_t i = 0; i < edges.size(); i += 5) edges[i].dst %= 41;
  return write_graph(dir, "g", edges, 30011);
}

std::vector<Edge> long_in_lists_edges(std::uint64_t seed) {
  std::vector<Edge> edges = random_edges(kLongListsVertices, 120000, seed);
  for (std::size_t i = 0; i < edges.size(); i += 3) edges[i].dst %= 97;
  return edges;
}

GraphInfo write_and_read_graph(const std::filesystem::path& dir, const std::vector<Edge>& edges, std::uint32_t vertices) {
  auto info = read_graph_ini(write_graph(dir, "g", edges, vertices));
  REQUIRE(info.has_value());
  return *info;
}

std::vector<Edge> with_reverses(const std::vector<Edge>& edges, bool keep_loops) {
  std::vector<Edge> both;
  both.reserve(2 * edges.size());
  for (const Edge& e : edges) {
    if (e.src == e.dst && !keep_loops) continue;
    both.push_back(e);
    both.push_back(Edge{e.dst, e.src, e.weight});
  }
  return both;
}

std::string tool_path(const std::string& name) { return std::string(EDGESTREAM_BIN_DIR) + "/" + name; }

bool flip_byte(const std::filesystem::path& path, std::uint64_t offset, unsigned char mask) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  char c = 0;
  if (!f || !f.seekg(static_cast<std::streamoff>(offset)) || !f.get(c)) return false;
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ static_cast<char>(mask)));
  return static_cast<bool>(f);
}

bool flip_scratch_byte(const std::filesystem::path& dir, const std::string& name, long long offset, unsigned char mask) {
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, error)) {
    if (entry.path().filename() != name) continue;
    const auto size = static_cast<long long>(std::filesystem::file_size(entry.path(), error));
    const long long at = offset < 0 ? size + offset : offset;
    return !error && at >= 0 && flip_byte(entry.path(), static_cast<std::uint64_t>(at), mask);
  }
  return false;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ProcessResult run_tool(const std::string& name, const std::vector<std::string>& args) {
  return run_program(tool_path(name), args);
}

pid_t spawn_program(const std::string& path, const std::vector<std::string>& args, const std::filesystem::path& out,
                    const std::filesystem::path& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

pid_t spawn_driver(const std::vector<std::string>& args, const std::filesystem::path& out, const std::filesystem::path& err) {
  const pid_t pid = spawn_program(tool_path("benchmark_driver"), args, out, err);
  REQUIRE(pid > 0);
  return pid;
}

int wait_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (done < 0 && errno != EINTR) return -2;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::vector<std::string> message_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("warning: ", 0) != 0) lines.push_back(line);
  }
  return lines;
}

ProcessResult run_program(const std::string& path, const std::vector<std::string>& args) {
  TempDir capture;
  ProcessResult result;
  const pid_t pid = spawn_program(path, args, capture / "out", capture / "err");
  if (pid < 0) {
    result.err = "cannot start " + path;
    return result;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(capture / "out");
  result.err = slurp(capture / "err");
  return result;
}

std::string describe(const DriverConfig& c) {
  return "-k " + c.k + " -p " + c.p + (c.direct ? "" : " --no_dio");
}

DriverRun run_driver_config(const std::filesystem::path& ini, const std::string& algorithm, const DriverConfig& c,
                            const std::vector<std::string>& extra, bool verify, const std::string& write_chunk) {
  TempDir work;
  TempDir out_dir;
  const auto output = out_dir / "out.txt";
  std::vector<std::string> args = {"-g", ini.string(), "-b", algorithm, "-k", c.k, "-p", c.p, "--work_dir",
                                   work.path().string(), "--output", output.string(), "--read_chunk", "4K",
                                   "--write_chunk", write_chunk};
  if (verify) args.push_back("--verify");
  if (!c.direct) args.push_back("--no_dio");
  args.insert(args.end(), extra.begin(), extra.end());
  DriverRun r;
  r.proc = run_driver_in_process(args);
  INFO("-b " << algorithm << " " << describe(c) << "\nstdout: " << r.proc.out << "\nstderr: " << r.proc.err);
  REQUIRE(r.proc.exit_code == 0);
  if (verify) CHECK(r.proc.out.find("Verification: PASS") != std::string::npos);
  CHECK(work.entries().empty());
  r.rows = read_output(output);
  return r;
}

ProcessResult run_driver_verified(const std::vector<std::string>& args) {
  REQUIRE(std::find(args.begin(), args.end(), "--verify") != args.end());
  ProcessResult r = run_driver_in_process(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Verification: PASS") != std::string::npos);
  return r;
}

ProcessResult run_driver_in_process(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"benchmark_driver"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  ProcessResult result;
  result.exit_code = driver_main(static_cast<int>(argv.size()), argv.data(), out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

std::vector<std::vector<std::string>> read_output(const std::filesystem::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    std::string field;
    while (std::getline(s, field, '\t')) fields.push_back(field);
    const std::size_t vertex = std::stoull(fields.at(0));
    if (vertex != rows.size()) throw std::runtime_error("output not in vertex order at line " + std::to_string(rows.size() + 1));
    fields.erase(fields.begin());
    rows.push_back(fields);
  }
  return rows;
}

std::string stat_value(const std::string& out, const std::string& key) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + " ", 0) == 0) return line.substr(key.size() + 1);
  }
  return "";
}

std::filesystem::path real_data_dir() {
  return std::filesystem::path(EDGESTREAM_SOURCE_DIR).parent_path() / "shared" / "data" / "real";
}

std::filesystem::path real_graph(const std::string& file) {
  static std::mutex mutex;
  static std::map<std::string, std::filesystem::path> cache;
  static TempDir dir;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(file); it != cache.end()) return it->second;
  // The library's ingest code (one parser for the tool and the tests): type 2, ids kept, so
  // vertices = max id + 1; any malformed line is an error here (strict).
  IngestOptions options;
  options.input = (real_data_dir() / file).string();
  options.output = dir.path() / file.substr(0, file.find('.'));
  options.format = InputFormat::kSnap;
  options.type = EdgeFileType::kUnweighted;
  options.strict = true;
  const auto summary = ingest_graph(options);
  if (!summary) throw std::runtime_error("real_graph(" + file + "): " + summary.status().to_string());
  const auto ini = summary->ini_path;
  cache[file] = ini;
  return ini;
}

}  // namespace edgestream::test
