// Loading a graph into memory and building CSR adjacency for the reference implementations.
#include "algorithms/reference_graph.hpp"

#include "io/file.hpp"

namespace edgestream {

Expected<InMemoryGraph> load_graph_in_memory(const GraphInfo& graph) {
  InMemoryGraph g;
  g.vertices = graph.vertices;
  g.edges.resize(graph.edges);
  ES_ASSIGN_OR_RETURN(File file, File::open(graph.edge_path, OpenMode::kReadOnly, /*direct=*/false));
  const std::size_t rs = graph.record_size();
  std::vector<std::byte> buffer(rs * 65536);
  std::uint64_t index = 0;
  while (index < graph.edges) {
    const std::uint64_t n = std::min<std::uint64_t>(65536, graph.edges - index);
    ES_ASSIGN_OR_RETURN(const std::size_t got, file.read_at(index * rs, std::span(buffer.data(), n * rs)));
    if (got != n * rs) return corruption("edge file " + graph.edge_path.string() + " ended early");
    for (std::uint64_t i = 0; i < n; ++i) {
      const Edge e = decode_edge(buffer.data() + i * rs, graph.type);
      if (e.src >= graph.vertices || e.dst >= graph.vertices) {
        return bad_input("edge file " + graph.edge_path.string() + ": record " + std::to_string(index + i) +
                         " has an id >= " + std::to_string(graph.vertices));
      }
      g.edges[index + i] = e;
    }
    index += n;
  }
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
