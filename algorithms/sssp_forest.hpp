// SSSP forest: for every vertex v, root(v) = the smallest vertex id that reaches v along out-edges
// (as in bfs_forest) and distance(v) = the shortest-path distance from root(v) to v, weights from
// the file (type 2: every weight 1; negative or NaN weights are rejected with their record). One
// Bellman-Ford style propagation of (root, distance) under the lexicographic minimum: an edge u->v
// offers (root(u), distance(u) + w) in float arithmetic. Float addition is monotone and, with
// non-negative weights, never decreases a distance, so the least fixed point is unique: the
// smallest float path sum (summed along the path, as Dijkstra does). The result therefore does
// not depend on update order, partitioning, thread count or I/O mode.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct SsspForestProgram {
  struct Vertex {
    VertexId root;
    float distance;
    std::uint32_t changed;  // 1 + superstep of the update that last improved the pair
  };
  struct Update {
    VertexId root;
    float distance;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = true;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  static bool better(VertexId root, float distance, VertexId than_root, float than_distance) {
    return root < than_root || (root == than_root && distance < than_distance);
  }

  void init(VertexId v, Vertex& s) const { s = Vertex{v, 0.0F, 0}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    // A root >= dst can never beat dst's own (dst, 0).
    if (src.changed >= superstep && src.root < e.dst) emit(e.dst, Update{src.root, src.distance + e.weight});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (!better(u.root, u.distance, s.root, s.distance)) return false;
    s = Vertex{u.root, u.distance, emitted_superstep + 1};
    return true;
  }
  static void combine(Update& into, const Update& from) {
    if (better(from.root, from.distance, into.root, into.distance)) into = from;
  }
  bool done(const SuperstepStats& s) const { return s.emitted == 0; }
};

struct SsspForestResult {
  std::vector<VertexId> root;
  std::vector<float> distance;
};

/// The reference: the roots of bfs_forest_reference, then one Dijkstra (binary heap, float sums
/// d(u) + w) started from every root at 0 that follows only edges inside one tree.
SsspForestResult sssp_forest_reference(const InMemoryGraph& g);

}  // namespace edgestream
