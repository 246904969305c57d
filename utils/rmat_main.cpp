// The `rmat` tool: writes an RMAT (recursive matrix) graph, edge file NAME + property file NAME.ini,
// with X-Stream's option names. Exit 0 on success, 2 on a bad option, 1 on an I/O error; a SIGINT or
// SIGTERM removes the partial output and ends the process with that signal.
#include <boost/program_options.hpp>
#include <string>

#include "utils/generator_cli.hpp"

namespace po = boost::program_options;
using namespace edgestream;

int main(int argc, char** argv) {
  GeneratorCli cli("rmat");
  std::string edges_text;
  int scale = 20;
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;

  po::options_description desc(
      "Usage: rmat --name G [options]\n"
      "Writes an RMAT graph with 2^scale vertices: edge file G and property file G.ini.\n"
      "Each edge picks one quadrant of the adjacency matrix per level (probabilities a, b, c and\n"
      "d = 1-a-b-c), scale levels deep; vertex ids are not permuted. The output depends only on the\n"
      "options and seeds, not on --threads.\n\nOptions");
  cli.add_leading_options(desc);
  desc.add_options()
      ("scale", po::value(&scale)->default_value(20), "log2 of the vertex count, 1..32")
      ("edges", po::value(&edges_text)->default_value("0"),
       "edges to draw, suffixes K/M/G/T allowed (powers of 1024); 0 = 16 << scale; --symmetric doubles them")
      ("a", po::value(&a)->default_value(0.57, "0.57"), "probability of quadrant a (src bit 0, dst bit 0)")
      ("b", po::value(&b)->default_value(0.19, "0.19"), "probability of quadrant b (src bit 0, dst bit 1)")
      ("c", po::value(&c)->default_value(0.19, "0.19"), "probability of quadrant c (src bit 1, dst bit 0)");
  cli.add_trailing_options(desc);

  po::variables_map vm;
  if (const auto exit_code = cli.parse(argc, argv, desc, vm)) return *exit_code;

  RmatOptions options;
  options.scale = scale;
  options.a = a;
  options.b = b;
  options.c = c;
  auto edges = parse_size("edges", edges_text);
  if (!edges) return cli.usage_error(edges.status().message());
  options.edges = *edges;
  if (Status s = cli.apply(options); !s.is_ok()) return cli.usage_error(s.message());
  if (Status s = validate_rmat_options(options); !s.is_ok()) return cli.usage_error(s.message());
  return cli.run(options, rmat_vertex_count(options), rmat_record_count(options),
                 [](const RmatOptions& o) { return generate_rmat(o); });
}
