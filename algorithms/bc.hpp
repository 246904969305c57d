// Single-source betweenness dependencies (Brandes 2001) from --bc::source along out-edges, on hop
// counts (unweighted, as Brandes' BFS variant). Output per vertex: the dependency
//   delta(v) = sum over targets t != v of sigma_st(v) / sigma_st,
// i.e. the source's contribution to v's betweenness; 0 for the source itself (Brandes excludes it)
// and for vertices the source does not reach. Duplicate edges count as distinct paths (a
// multigraph), self-loops never lie on a shortest path.
//
// Two phases on the engine, switched in done():
//  * forward (supersteps 0..F): level-synchronous BFS; superstep s streams only forward edges and
//    the vertices at level s send sigma (number of shortest paths, a double) to their
//    out-neighbours; a vertex first reached in s takes level s+1 and sums the sigmas of that
//    superstep. The phase ends when a superstep emits nothing; the depth D is the deepest level.
//  * backward (one superstep per level L = D, D-1, ..., 2): only reverse edges are streamed;
//    scatter_reverse reads the DESTINATION w of every edge v->w and, if level(w) = L, sends
//    rho(w) = (1 + delta(w)) / sigma(w) = 1/sigma(w) + acc(w) to v; v keeps it if level(v) = L-1.
//    acc(v) = sum of rho(w) over its successors on shortest paths, and delta(v) = sigma(v)*acc(v).
//    Level 1 does not need to send: the only vertex at level 0 is the source, whose dependency is
//    not part of betweenness.
// sigma is a sum of integers in double precision, exact (and so identical for any summation
// order) while below 2^53. delta sums doubles whose order of arrival depends on the partitioning;
// results for different K, -p and I/O modes agree within kBcTolerance (relative).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

/// |a - b| <= kBcTolerance * max(1, |b|) between any two runs and against the reference.
inline constexpr double kBcTolerance = 1e-9;

struct BcProgram {
  static constexpr std::uint32_t kUnreached = UINT32_MAX;
  struct Vertex {
    double sigma;  // number of shortest paths from the source (0 when unreached)
    double acc;    // sum of rho(w) over successors w (backward phase)
    std::uint32_t level;
    std::uint32_t pad;
  };
  // A double stored as two 32-bit words, so that the routed update packs without padding.
  struct Update {
    std::uint32_t words[2];
    static Update of(double value) {
      Update u;
      std::memcpy(u.words, &value, sizeof value);
      return u;
    }
    double value() const {
      double d;
      std::memcpy(&d, words, sizeof d);
      return d;
    }
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kReverseEdges = true;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  VertexId source = 0;
  // Phase state, changed only by done().
  bool backward = false;
  std::uint32_t backward_start = UINT32_MAX;  // first superstep of the backward phase
  std::uint32_t depth = 0;                    // deepest level reached (known once backward)

  void init(VertexId v, Vertex& s) const {
    s = v == source ? Vertex{1.0, 0.0, 0, 0} : Vertex{0.0, 0.0, kUnreached, 0};
  }
  // The level processed in superstep s of the backward phase.
  std::uint32_t backward_level(std::uint32_t s) const { return depth - (s - backward_start); }
  /// Active = the vertices of the level the superstep expands (the BFS frontier, or the level
  /// whose dependencies are sent back).
  bool prepare(VertexId, Vertex& v, std::uint32_t s) const {
    if (!backward) return v.level == s;
    return s >= backward_start && s - backward_start <= depth && v.level == backward_level(s);
  }
  StreamDirections directions(std::uint32_t) const {
    return backward ? StreamDirections{false, true} : StreamDirections{true, false};
  }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t s, Emit&& emit) const {
    if (!backward && src.level == s) emit(e.dst, Update::of(src.sigma));
  }
  template <typename Emit>
  void scatter_reverse(const Vertex& dst, const Edge& e, std::uint32_t s, Emit&& emit) const {
    if (backward && dst.level == backward_level(s) && e.src != e.dst) {
      emit(e.src, Update::of(1.0 / dst.sigma + dst.acc));
    }
  }
  bool gather(VertexId, Vertex& v, const Update& u, std::uint32_t emitted) const {
    if (emitted < backward_start) {  // forward: sigma arrives for level emitted + 1
      const std::uint32_t level = emitted + 1;
      if (v.level == kUnreached) {
        v.level = level;
        v.sigma = u.value();
        return true;
      }
      if (v.level == level) {
        v.sigma += u.value();
        return true;
      }
      return false;
    }
    if (v.level + 1 != backward_level(emitted)) return false;  // not a predecessor on a shortest path
    v.acc += u.value();
    return true;
  }
  static void combine(Update& into, const Update& from) { into = Update::of(into.value() + from.value()); }
  bool done(const SuperstepStats& s) {
    if (!backward) {
      if (s.active > 0) depth = s.superstep;  // level s is not empty
      if (s.emitted != 0) return false;
      // The BFS is complete. Levels D..2 send back; nothing to do when D <= 1.
      if (depth <= 1) return true;
      backward = true;
      backward_start = s.superstep + 1;
      return false;
    }
    return backward_level(s.superstep) <= 2;
  }
};

struct BcResult {
  std::vector<std::int64_t> level;  // -1 unreachable
  std::vector<double> sigma;        // 0 unreachable
  std::vector<double> delta;        // 0 for the source and unreachable vertices
};

/// The reference: Brandes' single-source pass in memory (queue-based BFS over the out-adjacency,
/// then dependencies accumulated in reverse BFS order).
BcResult bc_reference(const InMemoryGraph& g, VertexId source);

}  // namespace edgestream
