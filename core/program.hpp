// The contract between the engine and an algorithm ("program"). An algorithm is a small struct of
// types and const member functions; parameters are its data members. No globals, no byte casts.
//
//   struct MyProgram {
//     struct Vertex { ... };          // per-vertex state, trivially copyable
//     struct Update { ... };          // payload sent along an edge, trivially copyable, 4-byte aligned
//     static constexpr bool kUndirected = false;       // scatter every edge in both directions
//     static constexpr bool kCombinable = false;       // has static void combine(Update&, const Update&),
//                                                       // associative and commutative
//     static constexpr bool kHasPrepare = false;       // has prepare(v, Vertex&, superstep)
//     static constexpr bool kNonNegativeWeights = false;  // reject negative or NaN weights in the input
//     static constexpr unsigned kMaxEmitsPerEdge = 1;  // emit() calls per scatter() at most
//
//     void init(VertexId v, Vertex& state) const;       // before superstep 0
//     // After every update emitted in superstep s-1 reached the vertex, before scatter of s (and
//     // once more after the last superstep, with s = last + 1). May return bool instead of void:
//     // the number of vertices for which it returned true is SuperstepStats::active of s.
//     void prepare(VertexId v, Vertex& state, std::uint32_t superstep) const;
//     // Reads the source's state, may emit(target, update) for any target vertex.
//     template <class Emit> void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const;
//     // Applies one update emitted in `emitted_superstep`; returns true if the state changed.
//     bool gather(VertexId v, Vertex& state, const Update& u, std::uint32_t emitted_superstep) const;
//     // After superstep s: true to stop. Runs on one thread between supersteps and may change the
//     // program's own members (a phase, the superstep a phase began): scatter, gather and prepare
//     // of later supersteps see the change. It may therefore be non-const. Quiescence test: a
//     // superstep with s.emitted == 0 left nothing in flight; s.changed == 0 alone is NOT enough
//     // with K > 1 (updates spilled in s are applied, and counted, in s + 1).
//     bool done(const SuperstepStats& s);
//
//     // Optional: direction-aware reverse edges (kReverseEdges = true, not with kUndirected).
//     // Every edge src->dst is also streamed "backwards": scatter_reverse reads the DESTINATION's
//     // state and gets the edge as stored (e.src, e.dst), so it knows which end it stands on.
//     static constexpr bool kReverseEdges = true;
//     template <class Emit> void scatter_reverse(const Vertex& dst, const Edge& e, std::uint32_t superstep, Emit&& emit) const;
//     // Optional: which edge directions superstep s needs (both by default); an unneeded
//     // direction is not read at all, which saves its I/O.
//     StreamDirections directions(std::uint32_t superstep) const;
//     // Optional: a necessary condition for emitting. When active(state, s) is false, scatter (and
//     // scatter_reverse) with that state emit nothing in s (for any state: also one a gather made
//     // during s), and a change a gather makes during s that would let it emit shows as active in
//     // s + 1. The engine then skips edges none of whose read states is active: grid cells of
//     // inactive blocks, edge streams of inactive partitions, records of inactive vertices (a bit
//     // per vertex), and a whole superstep when no vertex is active.
//     bool active(const Vertex& state, std::uint32_t superstep) const;
//     // Optional, with active(): what an active source emits along an edge does not depend on the
//     // rest of its state (bfs: the source's id). Keyed edge streams (K > 1) then emit from the
//     // source's active bit alone and never read its state at random. Contract: whenever
//     // active(v, s), scatter(v, e, s, emit) emits exactly what scatter_active(e, s, emit) does,
//     // and no gather during s turns a state active in s into one that is not.
//     template <class Emit> void scatter_active(const Edge& e, std::uint32_t superstep, Emit&& emit) const;
//     // Optional, with active(): the vertex is settled at superstep s. Contract: once settled at s
//     // it is settled at every later superstep, and gather refuses (returns false, leaves the
//     // state) every update emitted in s or later to it (bfs: a level of s or less). The keyed
//     // scatter (K > 1) then drops the updates to the vertices it knows settled (a bit per vertex
//     // of the graph, learned when each partition is scattered) instead of applying or spilling them.
//     bool settled(const Vertex& state, std::uint32_t superstep) const;
//     // Optional: false when scatter and scatter_reverse never read Edge::weight (default true).
//     // The grid (in memory or on disk) then keeps 4 bytes per edge (two block-local ids) instead
//     // of 8 (plus the weight), and the K > 1 edge streams 8 bytes instead of 12 on a weighted
//     // input; such programs see weight 1 on every edge of the grid and of those streams.
//     static constexpr bool kReadsWeights = false;
//     // Optional: the part of the source's state scatter reads, for programs whose scatter reads
//     // nothing a gather of the same superstep changes. The in-memory grid then computes
//     // source(state, s) once per vertex per superstep into a dense array and scatters from it: a
//     // block's sources take a fraction of the cache their whole states would.
//     struct Source { ... };                                     // trivially copyable
//     Source source(const Vertex& state, std::uint32_t superstep) const;
//     template <class Emit> void scatter_source(const Source& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const;
//     // Contract: scatter_source(source(v, s), e, s, emit) emits exactly what scatter(v, e, s, emit) does.
//     // Optional: whether superstep s's scatter emits only to edge destinations (a hint: an emit
//     // elsewhere stays correct), and the promise that it then emits to e.dst and nowhere else.
//     bool emits_to_destination(std::uint32_t superstep) const;
//     static constexpr bool kEmitsOnlyToDestination = true;
//     // Optional, with kEmitsOnlyToDestination, a Source and kMaxEmitsPerEdge = 1: scatter_source
//     // and the gather of its emit in one step on the destination's state, written without
//     // branches (bfs: a minimum). Contract: the same state, emit and change as scatter_source(src,
//     // e, s, emit) whose emit(e.dst, u) runs gather(e.dst, dst, u, s).
//     InPlaceStep scatter_gather(const Source& src, const Edge& e, std::uint32_t superstep, Vertex& dst) const;
//     // Optional, kUndirected programs only: true when the result does not depend on how many
//     // times an edge is stored (cc's minimum labels; mis and checkbip too). On an input whose
//     // .ini says symmetric=1 (every edge also stored reversed), each edge is then used once per
//     // direction instead of twice: a grid of block-local records (in memory or on disk) keeps
//     // only the records with src <= dst and scatters them both ways, a grid of whole records
//     // scatters each record one way (the reverse record's forward scatter is this record's
//     // reverse one), K > 1 edge streams get no reversed copies.
//     static constexpr bool kOneWayOnSymmetricInput = true;
//   };
//
// Semantics the engine guarantees: updates emitted in superstep s reach their target either during
// s (when the target's state is in memory: always with one partition) or before scatter of s+1.
// Scatter and gather never run at the same time on the same state. Programs must therefore give the
// same final result whichever of the two happens (all programs here are written that way).
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "core/run_stats.hpp"
#include "io/graph_format.hpp"

namespace edgestream {

/// done() may be const or not (programs with phases change them there).
template <typename P>
concept ProgramWithDone = requires(P& p, const SuperstepStats& s) {
  { p.done(s) } -> std::same_as<bool>;
};

/// Which edge directions a superstep streams (see directions() above).
struct StreamDirections {
  bool forward = true;
  bool reverse = true;
};

/// True when P streams every edge also backwards through scatter_reverse (kReverseEdges).
template <typename P>
inline constexpr bool kHasReverseEdges = [] {
  if constexpr (requires { P::kReverseEdges; }) {
    return static_cast<bool>(P::kReverseEdges);
  } else {
    return false;
  }
}();

/// False when P declares kReadsWeights = false (its scatter never looks at Edge::weight).
template <typename P>
inline constexpr bool kProgramReadsWeights = [] {
  if constexpr (requires { P::kReadsWeights; }) {
    return static_cast<bool>(P::kReadsWeights);
  } else {
    return true;
  }
}();

/// True when P scatters from a narrow per-vertex Source (the optional source()/scatter_source()).
template <typename P>
concept ProgramWithSource = requires(const P& p, const typename P::Vertex& v, const typename P::Source& src, const Edge& e) {
  requires std::is_trivially_copyable_v<typename P::Source>;
  { p.source(v, std::uint32_t{}) } -> std::same_as<typename P::Source>;
  p.scatter_source(src, e, std::uint32_t{}, [](VertexId, const typename P::Update&) {});
};

/// True when P can tell that a vertex is settled (the optional settled()): no update emitted in
/// superstep s or later changes a vertex settled at s (bfs: a vertex whose level is at most s, as
/// every update of s offers level s + 1). The keyed scatter (K > 1) then drops the updates to the
/// vertices it knows to be settled instead of applying or spilling them (Engine::settled_bits_).
template <typename P>
concept ProgramWithSettled = requires(const P& p, const typename P::Vertex& v) {
  { p.settled(v, std::uint32_t{}) } -> std::same_as<bool>;
};

/// True when P can tell that a superstep's scatter emits only to the destination of each edge (the
/// optional emits_to_destination(); PageRank's rank supersteps, not its degree count). The in-memory
/// grid then scatters by destination block (Engine::scatter_grid_lines_as; by source block the
/// supersteps that say they do not emit to the destinations). An emit elsewhere stays
/// correct, only slower: it is buffered and routed like any update outside the task's blocks.
template <typename P>
concept ProgramWithTargets = requires(const P& p) {
  { p.emits_to_destination(std::uint32_t{}) } -> std::same_as<bool>;
};

/// True when P declares kEmitsOnlyToDestination = true (with emits_to_destination()): a promise,
/// not a hint, that in every superstep whose emits_to_destination(s) is true, scatter and
/// scatter_source emit to e.dst and nowhere else (PageRank's rank supersteps, bfs). The grid's
/// scatter by destination block then applies each update in place without testing its target
/// (Engine::scatter_grid_lines_as); a broken promise would be a data race there (asserted in builds
/// without NDEBUG). Without it an emit elsewhere stays correct, only slower.
template <typename P>
inline constexpr bool kProgramEmitsOnlyToDestination = [] {
  if constexpr (requires { P::kEmitsOnlyToDestination; }) {
    return ProgramWithTargets<P> && static_cast<bool>(P::kEmitsOnlyToDestination);
  } else {
    return false;
  }
}();

/// What scatter_gather did with one edge (the optional fused step of the in-place scatter).
struct InPlaceStep {
  bool emitted;  // scatter_source would have emitted an update (to e.dst)
  bool changed;  // gathering that update changed the destination's state
};

/// True when P fuses the in-place scatter's two calls (the optional scatter_gather()): with the
/// promise kEmitsOnlyToDestination, a Source and at most one emit per edge. In a superstep whose
/// emits_to_destination(s) is true, the grid's scatter by destination block then calls
/// scatter_gather(source, e, s, state of e.dst) instead of scatter_source and gather on the
/// stretches of records where many emit (Engine::kFusedChoiceShare). The point is the branches:
/// bfs's test of the frontier mispredicts on about every other record while the frontier is large;
/// its scatter_gather is a minimum with no test of it. Builds without NDEBUG check every call
/// against scatter_source and gather (Engine::fused_step).
template <typename P>
concept ProgramWithInPlaceStep =
    kProgramEmitsOnlyToDestination<P> && ProgramWithSource<P> && P::kMaxEmitsPerEdge == 1 &&
    requires(const P& p, const typename P::Source& src, const Edge& e, typename P::Vertex& v) {
      { p.scatter_gather(src, e, std::uint32_t{}, v) } -> std::same_as<InPlaceStep>;
    };

/// True when P knows in advance how many supersteps it runs (the optional planned_supersteps();
/// fixed iteration counts such as PageRank's). The plan uses it to decide whether building an
/// on-disk grid pays off (core/memory_plan.cpp).
template <typename P>
concept ProgramWithPlannedSupersteps = requires(const P& p) {
  { p.planned_supersteps() } -> std::convertible_to<std::uint64_t>;
};

/// True when P tells which vertices can emit in a superstep (the optional active()).
template <typename P>
concept ProgramWithActive = requires(const P& p, const typename P::Vertex& v) {
  { p.active(v, std::uint32_t{}) } -> std::convertible_to<bool>;
};

/// True when P's active sources emit without their states (the optional scatter_active(), with
/// active()): Engine::scatter_keyed_piece then tests a bit per record instead of reading a state.
template <typename P>
concept ProgramWithActiveScatter = ProgramWithActive<P> && requires(const P& p, const Edge& e) {
  p.scatter_active(e, std::uint32_t{}, [](VertexId, const typename P::Update&) {});
};

/// P::kOneWayOnSymmetricInput when P declares it (an undirected program), else false.
template <typename P>
constexpr bool program_one_way_on_symmetric() {
  if constexpr (requires { P::kOneWayOnSymmetricInput; }) {
    return P::kUndirected && P::kOneWayOnSymmetricInput;
  } else {
    return false;
  }
}

/// True when P chooses per superstep which directions to stream.
template <typename P>
concept ProgramWithDirections = requires(const P& p) {
  { p.directions(std::uint32_t{}) } -> std::same_as<StreamDirections>;
};

template <typename P>
concept EdgeProgram = requires(const P& p, typename P::Vertex& v, const typename P::Update& u, const SuperstepStats& s) {
  requires std::is_trivially_copyable_v<typename P::Vertex>;
  requires std::is_trivially_copyable_v<typename P::Update>;
  { P::kUndirected } -> std::convertible_to<bool>;
  { P::kCombinable } -> std::convertible_to<bool>;
  { P::kHasPrepare } -> std::convertible_to<bool>;
  { P::kNonNegativeWeights } -> std::convertible_to<bool>;
  { P::kMaxEmitsPerEdge } -> std::convertible_to<unsigned>;
  { p.init(VertexId{}, v) };
  { p.gather(VertexId{}, v, u, std::uint32_t{}) } -> std::same_as<bool>;
  requires ProgramWithDone<P>;
  requires !(P::kUndirected && kHasReverseEdges<P>);
};

/// An update as routed and stored in update streams: the target vertex and the payload.
template <typename Update>
struct RoutedUpdate {
  VertexId target;
  Update value;
};

}  // namespace edgestream
