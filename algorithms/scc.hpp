// Strongly connected components by rounds of forward/backward min-label propagation inside
// "classes" (sets of still-unassigned vertices known to be unions of SCCs). Output per vertex: its
// label, the smallest vertex id of its SCC. See docs/algorithms/scc.md for the proof and the cost.
//
// One round (all unassigned vertices, each restricted to its class):
//   fw(v) = smallest id that reaches v, bw(v) = smallest id that v reaches (paths inside the class);
//   both propagate in the same supersteps, fw along edges (scatter), bw against them
//   (scatter_reverse). When nothing moves any more the round ends, and at the start of the next
//   round (prepare) every vertex with fw == bw is assigned label fw (fw reaches v and v reaches fw,
//   and no smaller id of the SCC exists since every SCC member reaches v). The others form the new
//   classes keyed by (fw, bw): an SCC has one (fw, bw), so classes stay unions of SCCs; the smallest
//   id of every class is assigned in every round, so the rounds end. Keys are hashed to 31 bits; a
//   collision only merges two classes (still a union of SCCs), so it can slow a round down, never
//   make it wrong.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct SccProgram {
  static constexpr std::uint32_t kAssigned = UINT32_MAX;  // Vertex::cls of an assigned vertex
  static constexpr std::uint32_t kClassMask = 0x7FFFFFFFU;
  struct Vertex {
    VertexId fw;               // forward min label; the SCC label once assigned
    VertexId bw;               // backward min label
    std::uint32_t cls;         // class hash (31 bits), or kAssigned
    std::uint32_t fw_changed;  // superstep from which fw must be sent (1 + emitting superstep)
    std::uint32_t bw_changed;
  };
  struct Update {
    VertexId label;
    std::uint32_t tag;  // (sender's class << 1) | 1 for backward labels
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kReverseEdges = true;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)

  std::uint32_t round = 0;        // rounds begun so far minus one
  std::uint32_t round_start = 0;  // superstep the current round began
  std::uint32_t* rounds_out = nullptr;  // receives the number of propagation rounds (the engine runs a copy)

  static std::uint32_t class_of(VertexId fw, VertexId bw) {
    std::uint64_t x = (std::uint64_t{fw} << 32) | bw;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x) & kClassMask;
  }

  void init(VertexId v, Vertex& s) const { s = Vertex{v, v, 0, 0, 0}; }

  // At the start of every round after the first: assign the vertices whose labels met, put the
  // others into their new class with fresh labels. Returns true for a vertex still unassigned.
  bool prepare(VertexId v, Vertex& s, std::uint32_t superstep) const {
    if (s.cls == kAssigned) return false;
    if (round == 0 || superstep != round_start) return true;
    if (s.fw == s.bw) {
      s.cls = kAssigned;
      return false;
    }
    s = Vertex{v, v, class_of(s.fw, s.bw), superstep, superstep};
    return true;
  }

  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (src.cls != kAssigned && src.fw_changed >= superstep && src.fw < e.dst) emit(e.dst, Update{src.fw, src.cls << 1});
  }
  template <typename Emit>
  void scatter_reverse(const Vertex& dst, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (dst.cls != kAssigned && dst.bw_changed >= superstep && dst.bw < e.src) {
      emit(e.src, Update{dst.bw, (dst.cls << 1) | 1U});
    }
  }
  // Labels only cross edges inside a class (an assigned vertex's cls matches no tag).
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (s.cls != (u.tag >> 1)) return false;
    VertexId& label = (u.tag & 1U) != 0 ? s.bw : s.fw;
    if (u.label >= label) return false;
    label = u.label;
    ((u.tag & 1U) != 0 ? s.bw_changed : s.fw_changed) = emitted_superstep + 1;
    return true;
  }
  // A round ends when a superstep leaves nothing to send: nothing emitted, or nothing spilled and
  // no label lowered (then no vertex has a label newer than the ones it just sent).
  bool done(const SuperstepStats& s) {
    const bool quiet = s.emitted == 0 || (s.spilled == 0 && s.changed == 0);
    if (!quiet) return false;
    if (rounds_out != nullptr) *rounds_out = round;
    if (s.superstep == round_start && s.active == 0) return true;  // every vertex assigned
    ++round;
    round_start = s.superstep + 1;
    return false;
  }
};

/// Iterative Tarjan (no recursion): label = smallest vertex id of each SCC.
std::vector<VertexId> scc_reference(const InMemoryGraph& g);

}  // namespace edgestream
