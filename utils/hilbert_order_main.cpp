// The `hilbert_order` tool: hilbert_order -g GRAPH --output NEW [--memory 1G] writes GRAPH's edges in
// Hilbert-curve order over (src, dst) as a new graph NEW + NEW.ini (same type, vertices, edge
// multiset; utils/hilbert_order.hpp). The input is never modified. Exit 0 on success, 2 on a bad
// command line, 1 on errors; SIGINT/SIGTERM stop it and remove every file it wrote.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "io/cancellation.hpp"
#include "io/size_literal.hpp"
#include "utils/hilbert_order.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {
constexpr ToolCommandLine kCommandLine("hilbert_order");
}  // namespace

int main(int argc, char** argv) {
  std::string graph_arg, output, memory_text = "1G";
  po::options_description desc(
      "Usage: hilbert_order -g GRAPH --output NEW [--memory 1G]\n"
      "Writes GRAPH's edges sorted along the Hilbert curve over (src, dst) as a new graph NEW and\n"
      "NEW.ini (same type, vertex count and edges). An external merge sort bounded by --memory\n"
      "(temporary runs of 12 B per edge beside NEW when the graph does not fit).\n\nOptions");
  desc.add_options()
      ("help,h", "print this help and exit")
      ("graph,g", po::value(&graph_arg), "input graph: G or G.ini (required)")
      ("output,o", po::value(&output), "output edge file NEW; NEW.ini is written next to it (required)")
      ("memory", po::value(&memory_text)->default_value(memory_text), "sort memory (32 B per edge in a run), at least 1M");
  po::variables_map vm;
  if (const std::optional<int> stop = kCommandLine.parse(argc, argv, desc, vm)) return *stop;
  if (graph_arg.empty()) return kCommandLine.usage_error("-g GRAPH is required");
  if (output.empty()) return kCommandLine.usage_error("--output NEW is required");
  auto memory = parse_size("memory", memory_text);
  if (!memory) return kCommandLine.usage_error(memory.status().message());

  auto graph = read_graph_ini(graph_ini_path(graph_arg));
  if (!graph) {
    std::fprintf(stderr, "hilbert_order: %s\n", graph.status().message().c_str());
    return 1;
  }
  install_cancellation_handlers();
  HilbertOrderOptions options;
  options.output = output;
  options.memory_bytes = *memory;
  options.progress = ::isatty(STDERR_FILENO) != 0 && graph->edges > 50'000'000;
  options.cancel = &cancel_requested;
  const auto start = std::chrono::steady_clock::now();
  const Status status = write_hilbert_ordered(*graph, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!status.is_ok()) {
    std::fprintf(stderr, "hilbert_order: %s\n", status.message().c_str());
    if (status.code() == StatusCode::kInvalidArgument) return 2;
    return status.code() == StatusCode::kCancelled ? 128 + cancel_signal() : 1;
  }
  std::printf("hilbert_order: wrote %s and %s.ini: %llu vertices, %llu edges (type %d), %.2f s\n", output.c_str(), output.c_str(),
              static_cast<unsigned long long>(graph->vertices), static_cast<unsigned long long>(graph->edges),
              static_cast<int>(graph->type), seconds);
  return 0;
}
