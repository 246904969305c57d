// Delta-propagating PageRank ("data-driven"; X-Stream's pagerank_ddf). It converges to the fixed
// point of `pagerank`: r(v) = 0.15 + 0.85 * sum over u->v of r(u)/outdeg(u), dangling mass dropped.
//
// Every vertex holds its propagated rank R and a pending delta P (initially R = 0, P = 0.15). A
// vertex whose pending delta reached the threshold moves it into its rank and sends 0.85*P/outdeg
// to each out-neighbour's pending delta. Invariant: R + P = 0.15 + 0.85 * sum R(u)/outdeg(u), so
// the output R has fixed-point residual exactly -P, and R <= r* <= R + (P_max/0.15) * r*. The run
// stops when no vertex holds a delta >= the threshold (nothing emitted in a superstep).
//
// All rank arithmetic is in 64-bit fixed point (fraction bits chosen from the vertex count so that
// no value can overflow): sums of integers do not depend on the order in which updates arrive, so
// the result is bit-identical for every partition count, thread count and I/O mode.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

/// A vertex propagates once its pending delta reaches this (in rank units). Since every final
/// pending delta is below it, the output is below the exact fixed point by at most
/// kPageRankDdfThreshold / 0.15 relative (6.7e-6), plus fixed-point rounding.
inline constexpr double kPageRankDdfThreshold = 1e-6;
/// --verify: |engine - converged reference| <= kPageRankDdfTolerance * reference, and the
/// fixed-point residual of every vertex within [-(threshold + slack), slack].
inline constexpr double kPageRankDdfTolerance = 2e-5;
/// Safety cap on supersteps (convergence is guaranteed long before: the pending mass shrinks by
/// 0.15 * threshold with every propagation).
inline constexpr std::uint32_t kPageRankDdfMaxSupersteps = 100000;

struct PageRankDdfProgram {
  struct Vertex {
    std::uint64_t rank;     // propagated rank R, fixed point
    std::uint64_t pending;  // pending delta P, fixed point (gather adds here)
    std::uint64_t push;     // value sent along every out-edge in this superstep (set by prepare)
    std::uint32_t degree;   // out-degree, counted in superstep 0
    std::uint32_t unused;
  };
  struct Update {  // a 64-bit fixed-point amount, split to keep the update 4-byte aligned
    std::uint32_t lo;
    std::uint32_t hi;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)
  static constexpr double kDamping = 0.85;
  __extension__ using Wide = unsigned __int128;  // GCC/Clang extension, intended

  /// Fraction bits: every rank is < vertices + 1 (r* <= 0.15 + 0.85 * 0.15 * vertices), so values
  /// stay below 2^62.
  int fraction_bits = 32;
  std::uint64_t threshold = 1;  // kPageRankDdfThreshold in fixed point (at least 1)
  std::uint32_t cap = kPageRankDdfMaxSupersteps;

  /// Sets fraction_bits and threshold for a graph of `vertices` vertices.
  void configure(std::uint64_t vertices) {
    fraction_bits = 62 - static_cast<int>(std::bit_width(vertices + 1));
    threshold = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(std::ldexp(kPageRankDdfThreshold, fraction_bits))));
  }
  std::uint64_t to_fixed(double x) const { return static_cast<std::uint64_t>(std::llround(std::ldexp(x, fraction_bits))); }
  double to_double(std::uint64_t x) const { return std::ldexp(static_cast<double>(x), -fraction_bits); }

  static std::uint64_t value(const Update& u) { return (static_cast<std::uint64_t>(u.hi) << 32) | u.lo; }
  static Update make(std::uint64_t x) { return Update{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(x >> 32)}; }

  void init(VertexId, Vertex& v) const { v = Vertex{0, to_fixed(1.0 - kDamping), 0, 0, 0}; }
  // Returns true for the vertices that propagate in this superstep.
  bool prepare(VertexId, Vertex& v, std::uint32_t superstep) const {
    v.push = 0;
    if (superstep == 0 || v.pending < threshold) return false;
    v.rank += v.pending;
    if (v.degree != 0) {
      // 0.85 * P / degree, rounded to nearest; exact integer arithmetic (P < 2^62, 17 < 2^5).
      const Wide scaled = static_cast<Wide>(v.pending) * 17;
      const Wide denominator = static_cast<Wide>(v.degree) * 20;
      v.push = static_cast<std::uint64_t>((scaled + denominator / 2) / denominator);
    }
    v.pending = 0;
    return true;
  }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (superstep == 0) {
      emit(e.src, make(1));
    } else if (src.push != 0) {
      emit(e.dst, make(src.push));
    }
  }
  bool gather(VertexId, Vertex& v, const Update& u, std::uint32_t emitted_superstep) const {
    if (emitted_superstep == 0) {
      v.degree += static_cast<std::uint32_t>(value(u));
    } else {
      v.pending += value(u);
    }
    return true;
  }
  static void combine(Update& into, const Update& from) { into = make(value(into) + value(from)); }
  bool done(const SuperstepStats& s) const { return (s.superstep >= 1 && s.emitted == 0) || s.superstep >= cap; }
};

/// The reference: power iteration in double precision from r = 1 until the largest change of a
/// sweep is below 1e-13 * max(1, rank) (or 100000 sweeps): the fixed point of `pagerank`.
std::vector<double> pagerank_fixed_point(const InMemoryGraph& g);

}  // namespace edgestream
