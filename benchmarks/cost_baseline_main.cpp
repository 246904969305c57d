// The `cost_baseline` tool: a single-threaded, in-memory PageRank or connected components on a
// graph, in vertex or Hilbert edge order (benchmarks/cost_baseline.hpp), for comparing the engine
// with a competent single-threaded implementation (COST). Prints one line
//   COST algorithm=A order=O vertices=V edges=E load_seconds=L compute_seconds=C total_seconds=T
// (total = load + compute; writing --output is not timed) and writes --output in benchmark_driver's
// format ("vertex<TAB>value" per vertex). Exit 0 on success, 2 on a bad command line, 1 on errors.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "benchmarks/cost_baseline.hpp"
#include "core/vertex_output.hpp"
#include "io/size_literal.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

constexpr ToolCommandLine kCommandLine("cost_baseline");

int fail(const Status& status) {
  std::fprintf(stderr, "cost_baseline: %s\n", status.message().c_str());
  return 1;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string graph_arg, algorithm, order_text = "vertex", iterations_text = "20", output;
  po::options_description desc(
      "Usage: cost_baseline -g GRAPH --algorithm pagerank|cc [--order vertex|hilbert] [--iterations 20]\n"
      "                     [--output FILE]\n"
      "Single-threaded in-memory baseline (COST): loads GRAPH (G or G.ini) in vertex order (edges\n"
      "grouped by source) or Hilbert-curve order, runs PageRank (same definition as\n"
      "benchmark_driver -b pagerank) or union-find connected components (labels = smallest id, as\n"
      "-b cc), prints one 'COST ...' line and writes --output like benchmark_driver.\n\nOptions");
  desc.add_options()
      ("help,h", "print this help and exit")
      ("graph,g", po::value(&graph_arg), "the graph: G or G.ini (required)")
      ("algorithm,a", po::value(&algorithm), "pagerank or cc (required)")
      ("order", po::value(&order_text)->default_value(order_text), "edge order in memory: vertex or hilbert")
      ("iterations", po::value(&iterations_text)->default_value(iterations_text), "PageRank iterations")
      ("output", po::value(&output), "write one line per vertex, \"vertex<TAB>value\"");
  po::variables_map vm;
  if (const std::optional<int> stop = kCommandLine.parse(argc, argv, desc, vm)) return *stop;
  if (graph_arg.empty()) return kCommandLine.usage_error("-g GRAPH is required");
  if (algorithm != "pagerank" && algorithm != "cc") return kCommandLine.usage_error("--algorithm must be pagerank or cc, got '" + algorithm + "'");
  if (order_text != "vertex" && order_text != "hilbert") return kCommandLine.usage_error("--order must be vertex or hilbert, got '" + order_text + "'");
  const CostOrder order = order_text == "vertex" ? CostOrder::kVertex : CostOrder::kHilbert;
  auto iterations = parse_count("iterations", iterations_text);
  if (!iterations) return kCommandLine.usage_error(iterations.status().message());
  if (*iterations > UINT32_MAX) return kCommandLine.usage_error("--iterations is too large");

  auto graph = read_graph_ini(graph_ini_path(graph_arg));
  if (!graph) return fail(graph.status());
  VertexOutput out;
  if (Status s = out.open(output); !s.is_ok()) return fail(s);  // fail early on an unwritable --output

  const auto load_start = std::chrono::steady_clock::now();
  auto g = load_cost_graph(*graph, order);
  if (!g) return fail(g.status());
  const double load_seconds = seconds_since(load_start);

  const auto compute_start = std::chrono::steady_clock::now();
  std::vector<float> ranks;
  std::vector<VertexId> labels;
  if (algorithm == "pagerank") ranks = cost_pagerank(*g, static_cast<std::uint32_t>(*iterations));
  else labels = cost_connected_components(*g);
  const double compute_seconds = seconds_since(compute_start);

  std::printf("COST algorithm=%s order=%s vertices=%llu edges=%llu load_seconds=%.6f compute_seconds=%.6f total_seconds=%.6f\n",
              algorithm.c_str(), cost_order_name(order), static_cast<unsigned long long>(g->vertices),
              static_cast<unsigned long long>(g->edges), load_seconds, compute_seconds, load_seconds + compute_seconds);
  std::fflush(stdout);
  if (out.active()) {
    for (std::uint64_t v = 0; v < g->vertices; ++v) {
      out.begin_line(v);
      if (!ranks.empty()) out.add(ranks[v]);
      else out.add_unsigned(labels[v]);
      out.end_line();
    }
    if (Status s = out.commit(); !s.is_ok()) return fail(s);
  }
  return 0;
}
