// Degree count: out-degree and in-degree of every vertex in one superstep (self-loops and duplicate
// edges count each time they appear). Output per vertex: out-degree, in-degree.
#pragma once

#include <cstdint>

#include "core/program.hpp"

namespace edgestream {

struct DegreeCountProgram {
  struct Vertex {
    std::uint32_t out;
    std::uint32_t in;
  };
  struct Update {
    std::uint32_t out;
    std::uint32_t in;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 2;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  void init(VertexId, Vertex& s) const { s = Vertex{0, 0}; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.src, Update{1, 0});
    emit(e.dst, Update{0, 1});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    s.out += u.out;
    s.in += u.in;
    return true;
  }
  static void combine(Update& into, const Update& from) {
    into.out += from.out;
    into.in += from.in;
  }
  bool done(const SuperstepStats&) const { return true; }
  // One pass: --disk_grid auto streams the input rather than build a grid for it (core/program.hpp).
  std::uint64_t planned_supersteps() const { return 1; }
};

}  // namespace edgestream
