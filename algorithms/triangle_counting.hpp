// -b triangle_counting: the EXACT number of triangles of the undirected view (self-loops and
// duplicate edges ignored; u->v or v->u listed makes {u,v} an edge), per vertex and in total,
// computed out of core within --physical_memory; and, behind --triangle_counting::approximate,
// X-Stream's min-hash estimator (Becchetti et al.) as an engine program.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "algorithms/algorithm.hpp"
#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct TriangleCounts {
  std::uint64_t total = 0;
  std::vector<std::uint64_t> per_vertex;  // triangles through each vertex; sums to 3 * total
};

/// Reference: builds the simple undirected adjacency of `g` in memory (sorted, deduplicated,
/// self-loops dropped) and counts with a marking intersection. Needs memory for the whole graph.
TriangleCounts reference_triangle_counts(const InMemoryGraph& g);

/// What the out-of-core counter did (for the statistics lines and the docs' I/O figures).
struct ExactTriangleStats {
  std::uint64_t blocks = 0;           // vertex-range blocks of the oriented adjacency
  std::uint64_t oriented_edges = 0;   // distinct undirected edges (after deduplication)
  std::uint64_t block_loads = 0;      // blocks read from scratch during the intersections
  std::uint64_t block_bytes = 0;      // memory for the largest two blocks
  std::uint64_t fixed_bytes = 0;      // per-vertex arrays (12 bytes per vertex)
  std::uint64_t budget_left = 0;      // bytes of the budget available for blocks and buffers
};

/// Counts exactly. Passes over the input: degrees, oriented out-counts, orientation (3 reads);
/// with more than one block the oriented edges go to per-block scratch files (in a ScratchDirectory
/// removed on every exit path), each sorted and deduplicated into an adjacency file, and block
/// pairs are intersected with two blocks in memory. Counts are identical for every budget, block
/// count, thread count and I/O mode. Errors: ids >= vertices, I/O, cancellation, a budget that
/// cannot hold the 12 bytes per vertex (kResourceExhausted, naming the need).
Expected<TriangleCounts> count_triangles_exact(const GraphInfo& graph, const EngineOptions& options, RunStats& stats,
                                               ExactTriangleStats& detail);

/// X-Stream's approximate counter on the engine, for up to kRounds min-hash rounds at once
/// (the runner picks the smallest instantiation holding --triangle_counting::niters rounds).
/// Superstep 0 (forward edges): out-degree (duplicates and self-loops counted, like X-Stream) and,
/// per round r, the minimum of hash_r(u) over the in-neighbours u of every vertex.
/// Superstep 1 (reverse edges only): every edge u->v brings v's degree and minima to u, which adds
/// z/(z+n) * (deg(u)+deg(v)) (z = rounds whose minima agree, n = rounds) in fixed point: the
/// Jaccard-based estimate of |N(u) ∩ N(v)|. Triangles through u ≈ that sum / 2; total ≈ Σ / 3.
template <unsigned kRounds>
struct ApproxTriangleProgram {
  static constexpr double kFixedPoint = 1048576.0;  // 2^20: contributions summed as integers
  struct Vertex {
    std::uint32_t degree;
    std::uint32_t min_hash[kRounds];
    std::uint64_t sum_fixed;  // Σ over out-edges of the estimate, times 2^20 (order-independent)
  };
  struct Update {
    std::uint32_t degree;
    std::uint32_t min_hash[kRounds];
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr bool kReverseEdges = true;
  static constexpr unsigned kMaxEmitsPerEdge = 2;

  unsigned rounds = 1;       // <= kRounds
  std::uint64_t seed = 0x5eedf00dULL;

  /// hash_r(v): a 32-bit pseudo-random value per (round, vertex), the same for every -p and K.
  std::uint32_t hash(unsigned round, VertexId v) const {
    std::uint64_t x = seed ^ (static_cast<std::uint64_t>(round) << 32 | v);
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::uint32_t>(x ^ (x >> 31));
  }
  void init(VertexId, Vertex& s) const {
    s.degree = 0;
    for (unsigned r = 0; r < kRounds; ++r) s.min_hash[r] = UINT32_MAX;
    s.sum_fixed = 0;
  }
  StreamDirections directions(std::uint32_t superstep) const {
    return superstep == 0 ? StreamDirections{true, false} : StreamDirections{false, true};
  }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (superstep != 0) return;
    Update to_src{};
    to_src.degree = 1;
    for (unsigned r = 0; r < kRounds; ++r) to_src.min_hash[r] = UINT32_MAX;
    emit(e.src, to_src);
    Update to_dst{};
    to_dst.degree = 0;
    for (unsigned r = 0; r < kRounds; ++r) to_dst.min_hash[r] = r < rounds ? hash(r, e.src) : UINT32_MAX;
    emit(e.dst, to_dst);
  }
  template <typename Emit>
  void scatter_reverse(const Vertex& dst, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (superstep != 1) return;
    Update u{};
    u.degree = dst.degree;
    for (unsigned r = 0; r < kRounds; ++r) u.min_hash[r] = dst.min_hash[r];
    emit(e.src, u);
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (emitted_superstep == 0) {
      s.degree += u.degree;
      for (unsigned r = 0; r < kRounds; ++r) s.min_hash[r] = std::min(s.min_hash[r], u.min_hash[r]);
      return true;
    }
    unsigned z = 0;
    for (unsigned r = 0; r < rounds; ++r) z += (u.min_hash[r] == s.min_hash[r]) ? 1U : 0U;
    if (z == 0) return false;
    const double estimate = static_cast<double>(z) / (static_cast<double>(z) + rounds) *
                            (static_cast<double>(s.degree) + static_cast<double>(u.degree));
    s.sum_fixed += static_cast<std::uint64_t>(estimate * kFixedPoint + 0.5);
    return true;
  }
  bool done(const SuperstepStats& s) const { return s.superstep >= 1; }
  std::uint64_t planned_supersteps() const { return 2; }  // --disk_grid auto: too few for a grid
};

}  // namespace edgestream
