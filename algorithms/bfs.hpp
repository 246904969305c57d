// Breadth-first search from --bfs::root along out-edges, level-synchronous: superstep s expands
// the vertices at level s. Output per vertex: level and parent; unreachable: -1 and -1; the root:
// level 0, parent = root. The parent is the smallest-id in-neighbour one level up, so the result
// is identical for every partitioning and thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct BfsProgram {
  static constexpr std::uint32_t kUnreached = UINT32_MAX;
  struct Vertex {
    std::uint32_t level;
    VertexId parent;
  };
  struct Update {
    VertexId parent;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  VertexId root = 0;

  void init(VertexId v, Vertex& s) const { s = v == root ? Vertex{0, root} : Vertex{kUnreached, kUnreached}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (src.level == superstep) emit(e.dst, Update{e.src});
  }
  bool active(const Vertex& src, std::uint32_t superstep) const { return src.level == superstep; }
  // Reached at level s or before: every update of superstep s or later offers level s + 1 or more,
  // which gather refuses (core/program.hpp, ProgramWithSettled).
  bool settled(const Vertex& v, std::uint32_t superstep) const { return v.level <= superstep; }
  // An active source (level == superstep) sends its id whatever else its state holds; a gather
  // never changes a vertex of level s in s (its updates offer level s + 1). Keyed edge streams
  // (K > 1) emit from the active bit alone (core/program.hpp).
  template <typename Emit>
  void scatter_active(const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.dst, Update{e.src});
  }
  // The grid scatters from this 1-byte view (core/program.hpp): the same test, once per vertex.
  // Level-synchronous, so a snapshot taken before the superstep's gathers changes nothing: a vertex
  // reached in superstep s has level s + 1 and is not expanded in s either way.
  struct Source {
    std::uint8_t frontier;
  };
  Source source(const Vertex& v, std::uint32_t superstep) const { return Source{v.level == superstep ? std::uint8_t{1} : std::uint8_t{0}}; }
  template <typename Emit>
  void scatter_source(const Source& src, const Edge& e, std::uint32_t, Emit&& emit) const {
    if (src.frontier != 0) emit(e.dst, Update{e.src});
  }
  // Every update goes to an edge's destination: the in-memory grid scatters by destination block.
  bool emits_to_destination(std::uint32_t) const { return true; }
  static constexpr bool kEmitsOnlyToDestination = true;  // to e.dst: applied in place (core/program.hpp)
  // A state as one number, level * 2^32 + parent: gather keeps the smaller of the state's and the
  // update's (level + 1 of the superstep that emitted it, parent). That is a vertex's first level,
  // and among the updates of that level the smallest parent. (Levels only grow with the superstep
  // and every update of superstep s arrives before any of s + 1, so no state ever holds a level
  // above an arriving update's but below kUnreached.) One test, which fails on most updates once
  // their targets are reached: tests of kUnreached and then of the level mispredicted instead.
  static std::uint64_t ordered(std::uint32_t level, VertexId parent) { return (std::uint64_t{level} << 32) | parent; }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    const std::uint32_t level = emitted_superstep + 1;
    if (ordered(level, u.parent) >= ordered(s.level, s.parent)) return false;
    s = Vertex{level, u.parent};
    return true;
  }
  // scatter_source and gather in one step with no test of the frontier (core/program.hpp): a source
  // outside it offers the largest number, which changes nothing. The engine calls it where many
  // records emit (bfs's middle supersteps): the frontier test mispredicts about every other record there.
  InPlaceStep scatter_gather(const Source& src, const Edge& e, std::uint32_t superstep, Vertex& dst) const {
    const std::uint64_t outside = 0 - std::uint64_t{src.frontier == 0};  // all ones outside the frontier
    const std::uint64_t offer = ordered(superstep + 1, e.src) | outside;
    const bool better = offer < ordered(dst.level, dst.parent);
    if (better) dst = Vertex{superstep + 1, e.src};
    return InPlaceStep{src.frontier != 0, better};
  }
  static void combine(Update& into, const Update& from) { into.parent = std::min(into.parent, from.parent); }
  bool done(const SuperstepStats& s) const { return s.emitted == 0; }
};

struct BfsResult {
  std::vector<std::int64_t> level;   // -1 unreachable
  std::vector<std::int64_t> parent;  // -1 unreachable
};

/// The reference: a queue-based BFS over out-adjacency, parent = smallest-id in-neighbour one level up.
BfsResult bfs_reference(const InMemoryGraph& g, VertexId root);

}  // namespace edgestream
