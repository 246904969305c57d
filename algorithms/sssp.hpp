// Single-source shortest paths from --sssp::source along out-edges, weights from the file (type 2:
// every weight 1). Bellman-Ford style relaxation; weights must be non-negative (a negative or NaN
// weight is reported with its record). Output per vertex: distance, "inf" when unreachable. A vertex
// relaxes its out-edges only in the supersteps after its distance dropped.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct SsspProgram {
  static constexpr float kInfinity = std::numeric_limits<float>::infinity();
  struct Vertex {
    float distance;
    std::uint32_t changed;  // 1 + superstep of the update that last lowered the distance
  };
  struct Update {
    float distance;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = true;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  VertexId source = 0;

  void init(VertexId v, Vertex& s) const { s = Vertex{v == source ? 0.0F : kInfinity, 0}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (src.distance != kInfinity && src.changed >= superstep) emit(e.dst, Update{src.distance + e.weight});
  }
  bool active(const Vertex& src, std::uint32_t superstep) const {
    return src.distance != kInfinity && src.changed >= superstep;
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (!(u.distance < s.distance)) return false;
    s = Vertex{u.distance, emitted_superstep + 1};
    return true;
  }
  static void combine(Update& into, const Update& from) { into.distance = std::min(into.distance, from.distance); }
  bool done(const SuperstepStats& s) const { return s.emitted == 0; }
};

/// The reference: Dijkstra with a binary heap, in the same float arithmetic (d(v) = d(u) + w).
std::vector<float> sssp_reference(const InMemoryGraph& g, VertexId source);

}  // namespace edgestream
