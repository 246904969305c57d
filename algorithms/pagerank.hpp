// PageRank, X-Stream's definition: r0(v) = 1; N iterations of r(v) = 0.15 + 0.85 * sum over
// edges u->v of r(u)/outdeg(u); the mass of vertices without out-edges is dropped. Superstep 0
// counts out-degrees (updates to the source, always in memory), supersteps 1..N move rank.
// Ranks are single-precision floats as in X-Stream, but each vertex accumulates its incoming sum in
// double precision: summing hundreds of thousands of float contributions into a float (as X-Stream
// does) drifts by 1e-4 on hot vertices of skewed graphs. Results agree with the double-precision
// reference within kPageRankTolerance (relative).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

/// |engine - reference| <= kPageRankTolerance * max(1, |reference|) for every vertex.
inline constexpr double kPageRankTolerance = 1e-4;

struct PageRankProgram {
  struct Vertex {
    double sum;
    float rank;
    std::uint32_t degree;
  };
  struct Update {
    float value;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)
  static constexpr double kDamping = 0.85;

  std::uint32_t iterations = 5;

  void init(VertexId, Vertex& v) const { v = Vertex{0.0, 1.0F, 0}; }
  void prepare(VertexId, Vertex& v, std::uint32_t superstep) const {
    if (superstep == 1) {
      v.rank = 1.0F;
    } else if (superstep >= 2) {
      v.rank = static_cast<float>((1.0 - kDamping) + kDamping * v.sum);
    }
    v.sum = 0.0;
  }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (superstep == 0) {
      emit(e.src, Update{1.0F});
    } else {
      emit(e.dst, Update{src.rank / static_cast<float>(src.degree)});
    }
  }
  // The in-memory grid scatters from this 4-byte view of the source (core/program.hpp): the same
  // float division, done once per vertex instead of once per edge.
  struct Source {
    float contribution;
  };
  // Without a branch on the degree (many RMAT vertices have no out-edge, in no order a branch
  // predictor follows; gcc turns a select, even a multiplication by 0 or 1, back into a branch):
  // rank / max(degree, 1), its bits masked to +0 without out-edges. The same floats as before;
  // the pass over the states now vectorizes (rmat22, -p 1: 5.2% -> 2.7% of the run's samples).
  Source source(const Vertex& v, std::uint32_t superstep) const {
    if (superstep == 0) return Source{0.0F};
    const float quotient = v.rank / static_cast<float>(std::max<std::uint32_t>(v.degree, 1));
    const std::uint32_t keep = 0U - static_cast<std::uint32_t>(v.degree != 0);  // all ones or zero
    return Source{std::bit_cast<float>(std::bit_cast<std::uint32_t>(quotient) & keep)};
  }
  template <typename Emit>
  void scatter_source(const Source& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (superstep == 0) {
      emit(e.src, Update{1.0F});
    } else {
      emit(e.dst, Update{src.contribution});
    }
  }
  // Superstep 0 counts out-degrees (emits to the source); the rank supersteps emit to e.dst only.
  bool emits_to_destination(std::uint32_t superstep) const { return superstep > 0; }
  static constexpr bool kEmitsOnlyToDestination = true;  // to e.dst: applied in place (core/program.hpp)
  bool gather(VertexId, Vertex& v, const Update& u, std::uint32_t emitted_superstep) const {
    if (emitted_superstep == 0) {
      ++v.degree;
    } else {
      v.sum += u.value;
    }
    return true;
  }
  static void combine(Update& into, const Update& from) { into.value += from.value; }
  bool done(const SuperstepStats& s) const { return s.superstep >= iterations; }
  std::uint64_t planned_supersteps() const { return std::uint64_t{iterations} + 1; }  // + the degree count
};

/// The reference: `iterations` power iterations in double precision over the edge list.
std::vector<double> pagerank_reference(const InMemoryGraph& g, std::uint32_t iterations);

}  // namespace edgestream
