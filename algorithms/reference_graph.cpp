// Loading a graph into memory and building CSR adjacency for the reference implementations.
#include "algorithms/reference_graph.hpp"

#include "compress/graph_input.hpp"
#include "io/file.hpp"

namespace edgestream {

Expected<InMemoryGraph> load_graph_in_memory(const GraphInfo& graph) {
  InMemoryGraph g;
  g.vertices = graph.vertices;
  g.edges.resize(graph.edges);
  const std::size_t rs = graph.record_size();
  std::uint64_t index = 0;
  // Raw or compressed input alike (compress/graph_input.hpp); frames are checked as they are read.
  ES_RETURN_IF_ERROR(for_each_input_run(graph, [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
    const std::size_t n = run.size() / rs;
    if (first + n > graph.edges) return corruption("edge file " + graph.edge_path.string() + " holds more records than edges=");
    for (std::size_t i = 0; i < n; ++i) {
      const Edge e = decode_edge(run.data() + i * rs, graph.type);
      if (e.src >= graph.vertices || e.dst >= graph.vertices) {
        return bad_input("edge file " + graph.edge_path.string() + ": record " + std::to_string(first + i) +
                         " has an id >= " + std::to_string(graph.vertices));
      }
      g.edges[first + i] = e;
    }
    index = first + n;
    return Status::ok();
  }));
  if (index != graph.edges) return corruption("edge file " + graph.edge_path.string() + " ended early");
  return g;
}

Csr build_csr(const InMemoryGraph& g, CsrDirection direction) {
  Csr csr;
  csr.offsets.assign(g.vertices + 1, 0);
  const bool out = direction != CsrDirection::kIn;
  const bool in = direction != CsrDirection::kOut;
  for (const Edge& e : g.edges) {
    if (out) ++csr.offsets[e.src + 1];
    if (in) ++csr.offsets[e.dst + 1];
  }
  for (std::uint64_t v = 0; v < g.vertices; ++v) csr.offsets[v + 1] += csr.offsets[v];
  csr.targets.resize(csr.offsets[g.vertices]);
  csr.weights.resize(csr.offsets[g.vertices]);
  std::vector<std::uint64_t> cursor(csr.offsets.begin(), csr.offsets.end() - 1);
  for (const Edge& e : g.edges) {
    if (out) {
      const std::uint64_t i = cursor[e.src]++;
      csr.targets[i] = e.dst;
      csr.weights[i] = e.weight;
    }
    if (in) {
      const std::uint64_t i = cursor[e.dst]++;
      csr.targets[i] = e.src;
      csr.weights[i] = e.weight;
    }
  }
  return csr;
}

}  // namespace edgestream
