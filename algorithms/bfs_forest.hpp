// BFS forest: for every vertex v, root(v) = the smallest vertex id that reaches v along out-edges
// (v reaches itself, so root(v) <= v) and level(v) = the hops from root(v) to v. One label
// propagation of the pair (root, level) under the lexicographic minimum: an edge u->v offers
// (root(u), level(u) + 1). The least fixed point is unique (min over all u reaching v of
// (u, hops(u, v))), so the result does not depend on the order in which updates arrive: it is the
// same for every partition count, thread count and I/O mode. A vertex scatters only in the
// supersteps after its pair improved.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "algorithms/runner_support.hpp"
#include "core/program.hpp"

namespace edgestream {

struct BfsForestProgram {
  struct Vertex {
    VertexId root;
    std::uint32_t level;
    std::uint32_t changed;  // 1 + superstep of the update that last improved the pair
  };
  struct Update {
    VertexId root;
    std::uint32_t level;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  static bool better(VertexId root, std::uint32_t level, VertexId than_root, std::uint32_t than_level) {
    return root < than_root || (root == than_root && level < than_level);
  }

  void init(VertexId v, Vertex& s) const { s = Vertex{v, 0, 0}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    // Superstep 0: every vertex offers itself; later: only vertices improved since.
    if (src.changed >= superstep && src.root < e.dst) emit(e.dst, Update{src.root, src.level + 1});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (!better(u.root, u.level, s.root, s.level)) return false;
    s = Vertex{u.root, u.level, emitted_superstep + 1};
    return true;
  }
  static void combine(Update& into, const Update& from) {
    if (better(from.root, from.level, into.root, into.level)) into = from;
  }
  bool done(const SuperstepStats& s) const { return s.emitted == 0; }
};

struct ForestRoots {
  std::vector<VertexId> root;       // smallest id reaching the vertex
  std::vector<std::uint32_t> level; // hops from root
};

/// The reference: for r = 0, 1, ... in order, a BFS from every still-unassigned r over the
/// still-unassigned vertices (every path from root(v) to v stays inside root(v)'s tree).
ForestRoots bfs_forest_reference(const InMemoryGraph& g);

/// Checks the roots from their own properties (no reference): root(v) <= v; along every edge
/// u->v, root(v) <= root(u) (so no smaller id reaches v); used by bfs_forest and sssp_forest.
/// Together with "every non-root has an in-neighbour of its tree one step closer" (checked by
/// each verifier with its own notion of distance) this makes root(v) the smallest id reaching v.
void check_forest_roots(const InMemoryGraph& g, const std::vector<VertexId>& root, ProblemList& problems);

}  // namespace edgestream
