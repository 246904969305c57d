// The simple in-memory side used by references and verifiers: the whole edge list in RAM and a
// compressed-sparse-row adjacency. Deliberately plain; it is the yardstick, not the engine. It needs
// memory for the whole graph, so --verify is not bound by --physical_memory.
#pragma once

#include <cstdint>
#include <vector>

#include "io/graph_format.hpp"
#include "io/status.hpp"

namespace edgestream {

struct InMemoryGraph {
  std::uint64_t vertices = 0;
  std::vector<Edge> edges;
};

/// Reads every edge of `graph` (buffered reads) and checks every id is < vertices.
Expected<InMemoryGraph> load_graph_in_memory(const GraphInfo& graph);

/// Adjacency in CSR form: the neighbours of v are targets[offsets[v] .. offsets[v+1]).
struct Csr {
  std::vector<std::uint64_t> offsets;
  std::vector<VertexId> targets;
  std::vector<float> weights;
  std::uint64_t degree(VertexId v) const { return offsets[v + 1] - offsets[v]; }
};

enum class CsrDirection { kOut, kIn, kBoth };
/// Builds the adjacency of `g` by source (kOut), by destination (kIn), or both (undirected view).
Csr build_csr(const InMemoryGraph& g, CsrDirection direction);

}  // namespace edgestream
