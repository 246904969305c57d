// Single-threaded, in-memory COST baselines ("Scalability! But at what COST?", McSherry, Isard,
// Murray, HotOS 2015): the yardstick a parallel or out-of-core engine must beat. The graph is loaded
// once into RAM in one of two edge orders, then
//   - PageRank: exactly benchmark_driver -b pagerank's definition (algorithms/pagerank.hpp: r0 = 1,
//     r(v) = 0.15 + 0.85 * sum over u->v of r(u)/outdeg(u), dangling mass dropped; float ranks and
//     per-edge float contributions r(u)/outdeg(u) like the engine, sums in double), and
//   - connected components (weakly, on the undirected view, like -b cc) by union-find with union by
//     rank and path halving; label = the smallest vertex id of the component, as -b cc outputs.
// Orders: kVertex = edges grouped by source in ascending id (a CSR: offsets + targets, built with a
// counting sort; within one source the file's order is kept); kHilbert = edges sorted by their
// position on the Hilbert curve over (src, dst) (utils/hilbert_curve.hpp), stored as src/dst arrays.
// Memory: vertex order 8 B/vertex + 4 B/edge (12 B/edge while loading); Hilbert 8 B/edge (16 B/edge
// while sorting and decoding: positions computed while reading, table-driven curve, cache-friendly
// radix sort in utils/radix_sort.hpp); plus the algorithm state (PageRank 16 B/vertex, CC 8 B/vertex).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/graph_format.hpp"
#include "io/status.hpp"

namespace edgestream {

enum class CostOrder { kVertex, kHilbert };
/// "vertex" / "hilbert".
const char* cost_order_name(CostOrder order);

struct CostGraph {
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  CostOrder order = CostOrder::kVertex;
  std::vector<std::uint64_t> offsets;  ///< kVertex: targets of v are targets[offsets[v] .. offsets[v+1])
  std::vector<VertexId> targets;       ///< kVertex
  std::vector<VertexId> src;           ///< kHilbert: edge i is src[i] -> dst[i], in curve order
  std::vector<VertexId> dst;           ///< kHilbert
};

/// Reads `graph`'s edge file (buffered, sequential; weights dropped) and arranges it in `order`.
/// Fails with the file and record index when an id is >= vertices or the file is short.
Expected<CostGraph> load_cost_graph(const GraphInfo& graph, CostOrder order);
/// The same from edges already in memory (tests).
CostGraph make_cost_graph(std::uint64_t vertices, const std::vector<Edge>& edges, CostOrder order);

/// `iterations` PageRank iterations (same result as -b pagerank --pagerank::niters iterations,
/// within kPageRankTolerance). Single-threaded.
std::vector<float> cost_pagerank(const CostGraph& g, std::uint32_t iterations);
/// Component labels (smallest id per weakly connected component). Single-threaded.
std::vector<VertexId> cost_connected_components(const CostGraph& g);

}  // namespace edgestream
