// The `rmat` tool: writes an RMAT (recursive matrix) graph, edge file NAME + property file NAME.ini,
// with X-Stream's option names. Exit 0 on success, 2 on a bad option, 1 on an I/O error; a SIGINT or
// SIGTERM removes the partial output and ends the process with that signal.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <climits>
#include <cstdio>
#include <iostream>
#include <string>

#include "utils/graph_generator.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

constexpr const char* kTool = "rmat";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "%s: %s (see %s --help)\n", kTool, message.c_str(), kTool);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name;
  std::string edges_text;
  std::string seed1_text;
  std::string seed2_text;
  std::string threads_text;
  int scale = 20;
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
  int type = 1;
  bool symmetric = false;
  bool no_dio = false;

  po::options_description desc(
      "Usage: rmat --name G [options]\n"
      "Writes an RMAT graph with 2^scale vertices: edge file G and property file G.ini.\n"
      "Each edge picks one quadrant of the adjacency matrix per level (probabilities a, b, c and\n"
      "d = 1-a-b-c), scale levels deep; vertex ids are not permuted. The output depends only on the\n"
      "options and seeds, not on --threads.\n\nOptions");
  desc.add_options()
      ("help,h", "print this help and exit")
      ("name", po::value(&name), "output graph: edge file NAME and property file NAME.ini (required)")
      ("scale", po::value(&scale)->default_value(20), "log2 of the vertex count, 1..32")
      ("edges", po::value(&edges_text)->default_value("0"),
       "edges to draw, suffixes K/M/G/T allowed (powers of 1024); 0 = 16 << scale; --symmetric doubles them")
      ("a", po::value(&a)->default_value(0.57, "0.57"), "probability of quadrant a (src bit 0, dst bit 0)")
      ("b", po::value(&b)->default_value(0.19, "0.19"), "probability of quadrant b (src bit 0, dst bit 1)")
      ("c", po::value(&c)->default_value(0.19, "0.19"), "probability of quadrant c (src bit 1, dst bit 0)")
      ("symmetric", po::bool_switch(&symmetric), "also write (v,u), same weight, right after each (u,v)")
      ("seed1", po::value(&seed1_text)->default_value(std::to_string(kDefaultGeneratorSeed1)), "first random seed")
      ("seed2", po::value(&seed2_text)->default_value(std::to_string(kDefaultGeneratorSeed2)), "second random seed")
      ("threads", po::value(&threads_text)->default_value("0"), "generator threads; 0 = one per hardware thread")
      ("no_dio", po::bool_switch(&no_dio), "write through the page cache instead of with O_DIRECT")
      ("type", po::value(&type)->default_value(1),
       "1 = <u32 src, u32 dst, f32 weight> records (12 B, weights uniform in [0,1)), 2 = <u32 src, u32 dst> (8 B)");

  po::variables_map vm;
  try {
    const po::positional_options_description no_positionals;  // stray words are errors, not ignored
    po::store(po::command_line_parser(argc, argv).options(desc).positional(no_positionals).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  if (vm.count("help") != 0) {
    std::cout << desc << "\n";
    return 0;
  }
  if (vm.count("name") == 0) return usage_error("--name is required (the output edge file; NAME.ini is written next to it)");

  RmatOptions options;
  options.name = name;
  options.scale = scale;
  options.a = a;
  options.b = b;
  options.c = c;
  options.symmetric = symmetric;
  options.type = static_cast<EdgeFileType>(type);
  options.direct_io = !no_dio;
  auto edges = parse_generator_count(edges_text, "--edges");
  auto seed1 = parse_generator_count(seed1_text, "--seed1");
  auto seed2 = parse_generator_count(seed2_text, "--seed2");
  auto threads = parse_generator_count(threads_text, "--threads");
  for (const Status& s : {edges.status(), seed1.status(), seed2.status(), threads.status()}) {
    if (!s.is_ok()) return usage_error(s.message());
  }
  options.edges = *edges;
  options.seed1 = *seed1;
  options.seed2 = *seed2;
  options.threads = static_cast<unsigned>(std::min<std::uint64_t>(*threads, UINT_MAX));
  if (Status s = validate_rmat_options(options); !s.is_ok()) return usage_error(s.message());

  const std::uint64_t records = rmat_record_count(options);
  options.progress = ::isatty(STDERR_FILENO) != 0 && records > 100'000'000;
  options.cancel = install_generator_interrupt_handlers();

  const auto start = std::chrono::steady_clock::now();
  const Status status = generate_rmat(options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!status.is_ok()) {
    if (status.code() == StatusCode::kInvalidArgument) return usage_error(status.message());  // e.g. a bad --name
    std::fprintf(stderr, "%s: %s\n", kTool, status.to_string().c_str());
    if (status.code() == StatusCode::kCancelled) reraise_generator_interrupt();
    return 1;
  }
  std::printf("%s: wrote %s and %s.ini: %llu vertices, %llu edges, %llu bytes (type %d), %.2f s\n", kTool,
              name.c_str(), name.c_str(), static_cast<unsigned long long>(rmat_vertex_count(options)),
              static_cast<unsigned long long>(records),
              static_cast<unsigned long long>(records * edge_record_size(options.type)), type, seconds);
  return 0;
}
