// Weakly connected components on the undirected view (every edge read in both directions, whatever
// the input lists): label propagation of the smallest vertex id. Output per vertex: its label, the
// smallest id of its component. A vertex sends its label only in the supersteps after it changed.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct CcProgram {
  struct Vertex {
    VertexId label;
    std::uint32_t changed;  // 1 + superstep of the update that last lowered the label
  };
  struct Update {
    VertexId label;
  };
  static constexpr bool kUndirected = true;
  // Minimum labels do not depend on how often an edge is stored: on a symmetric input (.ini
  // symmetric=1) each edge is used once per direction, not twice (core/program.hpp).
  static constexpr bool kOneWayOnSymmetricInput = true;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  void init(VertexId v, Vertex& s) const { s = Vertex{v, 0}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if ((superstep == 0 || src.changed >= superstep) && src.label < e.dst) emit(e.dst, Update{src.label});
  }
  bool active(const Vertex& src, std::uint32_t superstep) const { return superstep == 0 || src.changed >= superstep; }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (u.label >= s.label) return false;
    s = Vertex{u.label, emitted_superstep + 1};
    return true;
  }
  static void combine(Update& into, const Update& from) { into.label = std::min(into.label, from.label); }
  bool done(const SuperstepStats& s) const { return s.emitted == 0; }
};

/// The reference: union-find over the edge list; label = smallest id in the component.
std::vector<VertexId> cc_reference(const InMemoryGraph& g);

}  // namespace edgestream
