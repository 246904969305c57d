// Conductance of the cut between even ids ("black") and odd ids ("red"), X-Stream's definition:
// crossing edges / max(edges leaving red vertices, edges leaving black vertices), where an edge
// "leaves" the colour of its source and crosses when its endpoints' ids differ in parity (both
// directions count; self-loops never cross). One superstep: every edge reports to its source,
// which counts its out-edges and its crossing out-edges; the runner adds them up by colour.
// No per-vertex output.
#pragma once

#include <cstdint>

#include "core/program.hpp"

namespace edgestream {

struct ConductanceProgram {
  struct Vertex {
    std::uint32_t out;       // out-edges (each record counts)
    std::uint32_t crossing;  // out-edges to a vertex of the other parity
  };
  struct Update {
    std::uint32_t out;
    std::uint32_t crossing;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  void init(VertexId, Vertex& s) const { s = Vertex{0, 0}; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.src, Update{1, ((e.src ^ e.dst) & 1U) != 0 ? 1U : 0U});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    s.out += u.out;
    s.crossing += u.crossing;
    return true;
  }
  static void combine(Update& into, const Update& from) {
    into.out += from.out;
    into.crossing += from.crossing;
  }
  bool done(const SuperstepStats&) const { return true; }
  // One pass: --disk_grid auto streams the input rather than build a grid for it (core/program.hpp).
  std::uint64_t planned_supersteps() const { return 1; }
};

struct ConductanceCounts {
  std::uint64_t crossing = 0;
  std::uint64_t from_red = 0;    // edges whose source id is odd
  std::uint64_t from_black = 0;  // edges whose source id is even
  /// crossing / max(from_red, from_black); 0 for a graph without edges (X-Stream divides 0 by 0).
  double value() const;
};

}  // namespace edgestream
