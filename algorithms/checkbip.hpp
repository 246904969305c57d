// Bipartiteness of the undirected view. Output per vertex: its colour, 0 or 1 = the parity of its
// BFS level from the smallest id of its (weakly) connected component. The graph is bipartite iff
// no edge joins two vertices of the same colour; a self-loop is an odd cycle (length 1), so a graph
// with one is not bipartite.
//
// Phase 0 propagates the pair (root, level), lexicographically smallest wins: the fixed point is
// (smallest id of the component, BFS level from it). Phase 1 is one superstep in which every vertex
// sends its colour along every edge (both directions); a vertex that hears its own colour has a
// conflict. Labels only improve, so the result is the same whatever the partitioning.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct CheckBipProgram {
  struct Vertex {
    VertexId root;           // smallest id seen in the component so far
    std::uint32_t level;     // hops from root
    std::uint32_t changed;   // 1 + superstep of the update that last improved (root, level)
    std::uint32_t conflict;  // phase 1: 1 if a neighbour has the same colour
  };
  struct Update {
    VertexId root;
    std::uint32_t level;
    std::uint32_t colours;  // 0 in phase 0; phase 1: bit c set = a neighbour has colour c
  };
  static constexpr bool kUndirected = true;
  // Minimum (root, level) pairs and OR-ed colours do not depend on how often an edge is stored: a
  // symmetric input is used once per direction (core/program.hpp).
  static constexpr bool kOneWayOnSymmetricInput = true;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)
  static constexpr std::uint32_t kNotYet = UINT32_MAX;

  std::uint32_t check_superstep = kNotYet;  // the superstep of phase 1, once known

  void init(VertexId v, Vertex& s) const { s = Vertex{v, 0, 0, 0}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (superstep == check_superstep) {
      emit(e.dst, Update{0, 0, 1U << (src.level & 1U)});
    } else if ((superstep == 0 || src.changed >= superstep) && src.root < e.dst) {
      emit(e.dst, Update{src.root, src.level + 1, 0});
    }
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (u.colours != 0) {
      const std::uint32_t clash = (u.colours >> (s.level & 1U)) & 1U;
      const bool changed = clash > s.conflict;
      s.conflict |= clash;
      return changed;
    }
    if (u.root > s.root || (u.root == s.root && u.level >= s.level)) return false;
    s = Vertex{u.root, u.level, emitted_superstep + 1, 0};
    return true;
  }
  static void combine(Update& into, const Update& from) {
    if (into.colours != 0) {
      into.colours |= from.colours;
    } else if (from.root < into.root || (from.root == into.root && from.level < into.level)) {
      into = from;
    }
  }
  // Phase 0 ends when a superstep leaves nothing to send (nothing emitted, or nothing spilled and
  // nothing improved); phase 1 is the next superstep alone.
  bool done(const SuperstepStats& s) {
    if (check_superstep != kNotYet) return true;
    if (s.emitted == 0 || (s.spilled == 0 && s.changed == 0)) check_superstep = s.superstep + 1;
    return false;
  }
};

struct CheckBipResult {
  std::vector<std::uint8_t> colour;  // parity of the BFS level from the component's smallest id
  bool bipartite = true;
};

/// BFS 2-colouring from the smallest id of each component (undirected view, self-loop = odd cycle).
CheckBipResult checkbip_reference(const InMemoryGraph& g);

}  // namespace edgestream
