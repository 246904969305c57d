// The `erdos-renyi` tool: writes an Erdős–Rényi G(n, m) graph (endpoints uniform, self-loops re-drawn
// unless --self-loops), edge file NAME + property file NAME.ini, with X-Stream's option names. Exit 0
// on success, 2 on a bad option, 1 on an I/O error; a SIGINT or SIGTERM removes the partial output
// and ends the process with that signal.
#include <boost/program_options.hpp>
#include <string>

#include "utils/generator_cli.hpp"

namespace po = boost::program_options;
using namespace edgestream;

int main(int argc, char** argv) {
  GeneratorCli cli("erdos-renyi");
  std::string vertices_text;
  std::string edges_text;
  bool self_loops = false;

  po::options_description desc(
      "Usage: erdos-renyi --name G --vertices N --edges M [options]\n"
      "Writes an Erdos-Renyi G(n, m) graph: M edges with both endpoints uniform over [0, N),\n"
      "duplicates possible; edge file G and property file G.ini. The output depends only on the\n"
      "options and seeds, not on --threads.\n\nOptions");
  cli.add_leading_options(desc);
  desc.add_options()
      ("vertices", po::value(&vertices_text), "vertex count N, 1..2^32, suffixes K/M/G allowed (required)")
      ("edges", po::value(&edges_text), "edges to draw, suffixes K/M/G/T allowed; --symmetric doubles them (required)")
      ("self-loops", po::bool_switch(&self_loops), "allow (v,v) edges (otherwise dst is re-drawn)");
  cli.add_trailing_options(desc);

  po::variables_map vm;
  if (const auto exit_code = cli.parse(argc, argv, desc, vm)) return *exit_code;
  if (vm.count("vertices") == 0) return cli.usage_error("--vertices is required");
  if (vm.count("edges") == 0) return cli.usage_error("--edges is required");

  ErdosRenyiOptions options;
  options.self_loops = self_loops;
  auto vertices = parse_size("vertices", vertices_text);
  auto edges = parse_size("edges", edges_text);
  for (const Status& s : {vertices.status(), edges.status()}) {
    if (!s.is_ok()) return cli.usage_error(s.message());
  }
  options.vertices = *vertices;
  options.edges = *edges;
  if (Status s = cli.apply(options); !s.is_ok()) return cli.usage_error(s.message());
  if (Status s = validate_erdos_renyi_options(options); !s.is_ok()) return cli.usage_error(s.message());
  return cli.run(options, options.vertices, erdos_renyi_record_count(options),
                 [](const ErdosRenyiOptions& o) { return generate_erdos_renyi(o); });
}
