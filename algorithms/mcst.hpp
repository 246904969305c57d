// Minimum spanning forest (-b mcst) of the UNDIRECTED view of the graph (every edge read in both
// directions; self-loops ignored; parallel edges allowed). Edges are totally ordered by
// (weight, smaller endpoint, larger endpoint) — X-Stream's order, with weights compared by IEEE
// totalOrder — so the forest is unique and every run (any -p, K, I/O mode) finds the same one.
//
// Two engine programs (docs/algorithms/mcst.md):
//  * McstProgram: Borůvka rounds. Each round has four phases:
//      kFind     (1 superstep)  every vertex gathers its cheapest edge leaving its component;
//      kToRoot   (1 superstep)  that candidate is emitted to the component root (min kept there);
//      kNotify   (1 superstep)  the root tells the target component's root (to detect the mutual
//                               pair) and the edge's inside endpoint ("hooked") about its choice;
//      kRelabel  (≥1 superstep) the smaller root of each mutual pair floods its id through old
//                               components and across chosen edges; every other old root of the
//                               merged group stops being a root and records its chosen edge.
//    The rounds end when no component has a crossing edge. Each vertex records at most one forest
//    edge in its lifetime (when it stops being a root), so the records are the forest's edges.
//  * McstOrientProgram: on the recorded edges (written as a scratch graph) min-label propagation
//    roots every tree at its smallest vertex id; a vertex's parent edge is the edge the winning
//    label arrived over (unique in a tree).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

/// The order key of a weight: IEEE totalOrder mapped to an unsigned integer
/// (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN); equal keys = bitwise equal weights.
inline std::uint32_t mcst_weight_key(float w) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &w, sizeof bits);
  return (bits & 0x80000000U) != 0 ? ~bits : (bits | 0x80000000U);
}

/// The total order on undirected edges: (weight key, smaller endpoint, larger endpoint).
inline std::tuple<std::uint32_t, VertexId, VertexId> mcst_edge_key(float w, VertexId a, VertexId b) {
  return {mcst_weight_key(w), std::min(a, b), std::max(a, b)};
}

/// Counters the Borůvka program leaves for its runner (the engine runs a copy of the program).
struct McstLog {
  std::uint32_t rounds = 0;             // Borůvka rounds that merged something
  std::uint32_t relabel_supersteps = 0;  // supersteps spent flooding new labels (all rounds)
};

struct McstProgram {
  static constexpr VertexId kNone = UINT32_MAX;
  static constexpr VertexId kViaHook = UINT32_MAX - 1;  // relabel update crossed its sender's hook edge
  static constexpr std::uint32_t kHooked = 1U << 31;     // this vertex's candidate is its component's hook
  static constexpr std::uint32_t kMutual = 1U << 30;     // root: the target component chose the same edge
  static constexpr std::uint32_t kStampMask = kMutual - 1;

  enum Phase : std::uint32_t { kFind, kToRoot, kNotify, kRelabel, kFinished };

  /// A crossing edge seen from the component of `inside`: inside - outside (weight), and the
  /// component (root id) of `outside`. Invalid when outside == kNone.
  struct Candidate {
    float weight;
    VertexId inside;
    VertexId outside;
    VertexId target;
  };
  struct Vertex {
    VertexId comp;           // component label = the component root's id
    VertexId min_neighbour;  // smallest neighbour (self-loops aside): the one edge a root emits on
    Candidate cand;          // own cheapest crossing edge; for roots after kToRoot: the component's
    float record_weight;     // the forest edge recorded when this vertex stopped being a root
    VertexId record_a;       // (record_a == kNone: none)
    VertexId record_b;
    VertexId next;           // kRelabel: the merged group's label (kNone: not reached)
    std::uint32_t stamp;     // kHooked | kMutual | (1 + superstep that set `next`)
  };
  /// Phase-dependent payload: kFind {a = sender's comp, b = sender}; kToRoot/kNotify a Candidate
  /// {weight, a = inside, b = outside, c = target}; kRelabel {a = label, b = sender's comp or
  /// kViaHook, c = sender}.
  struct Update {
    VertexId a;
    VertexId b;
    VertexId c;
    float weight;
  };
  static constexpr bool kUndirected = true;
  static constexpr bool kCombinable = false;  // the gather filters depend on the sender
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 2;

  Phase phase = kFind;
  Phase prev_phase = kFind;     // the phase of updates emitted before phase_start
  std::uint32_t phase_start = 0;
  McstLog* log = nullptr;       // optional, written by done()

  static bool valid(const Candidate& c) { return c.outside != kNone; }
  static bool less(const Candidate& x, const Candidate& y) {
    if (!valid(y)) return valid(x);
    if (!valid(x)) return false;
    return mcst_edge_key(x.weight, x.inside, x.outside) < mcst_edge_key(y.weight, y.inside, y.outside);
  }
  static bool same_weight(float x, float y) { return mcst_weight_key(x) == mcst_weight_key(y); }
  static Update pack(const Candidate& c) { return Update{c.inside, c.outside, c.target, c.weight}; }
  static Candidate unpack(const Update& u) { return Candidate{u.weight, u.a, u.b, u.c}; }

  Phase phase_of(std::uint32_t emitted_superstep) const {
    return emitted_superstep >= phase_start ? phase : prev_phase;
  }

  void init(VertexId v, Vertex& s) const {
    s = Vertex{v, kNone, Candidate{0.0F, kNone, kNone, kNone}, 0.0F, kNone, kNone, kNone, 0};
  }

  bool prepare(VertexId v, Vertex& s, std::uint32_t superstep) const {
    switch (phase) {
      case kFind:  // a round begins: adopt last round's labels; an old root leaving records its hook
        if (s.next != kNone) {
          if (s.comp == v && s.next != v) {
            s.record_weight = s.cand.weight;
            s.record_a = s.cand.inside;
            s.record_b = s.cand.outside;
          }
          s.comp = s.next;
        }
        s.cand = Candidate{0.0F, kNone, kNone, kNone};
        s.next = kNone;
        s.stamp = 0;
        return false;
      case kToRoot:
        return valid(s.cand);  // SuperstepStats::active = vertices with a crossing edge
      case kRelabel:
        // Seeds: the smaller root of each mutual pair keeps its id as the merged group's label.
        if (superstep == phase_start && s.comp == v && valid(s.cand) && (s.stamp & kMutual) != 0 && v < s.cand.target) {
          s.next = v;
          s.stamp = (s.stamp & ~kStampMask) | superstep;
        }
        return false;
      default:
        return false;
    }
  }

  template <typename Emit>
  void scatter(const Vertex& s, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (e.src == e.dst) return;  // self-loops never cross
    switch (phase) {
      case kFind:
        emit(e.dst, Update{s.comp, e.src, 0, e.weight});
        break;
      case kToRoot:  // members hand their candidate to the root, on the candidate edge itself
        if (s.comp != e.src && s.cand.outside == e.dst && same_weight(s.cand.weight, e.weight)) emit(s.comp, pack(s.cand));
        break;
      case kNotify:  // roots, once (on the edge to their smallest neighbour)
        if (s.comp == e.src && valid(s.cand) && e.dst == s.min_neighbour) {
          emit(s.cand.target, pack(s.cand));
          emit(s.cand.inside, pack(s.cand));
        }
        break;
      case kRelabel:
        if (s.next != kNone && (s.stamp & kStampMask) >= superstep) {
          const bool via_hook = (s.stamp & kHooked) != 0 && s.cand.outside == e.dst && same_weight(s.cand.weight, e.weight);
          emit(e.dst, Update{s.next, via_hook ? kViaHook : s.comp, e.src, e.weight});
        }
        break;
      default:
        break;
    }
  }

  bool gather(VertexId v, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    switch (phase_of(emitted_superstep)) {
      case kFind: {
        bool changed = false;
        if (u.b < s.min_neighbour) {
          s.min_neighbour = u.b;
          changed = true;
        }
        const Candidate c{u.weight, v, u.b, u.a};
        if (u.a != s.comp && less(c, s.cand)) {  // the crossing filter needs both ends' labels
          s.cand = c;
          changed = true;
        }
        return changed;
      }
      case kToRoot: {
        const Candidate c = unpack(u);
        if (!less(c, s.cand)) return false;
        s.cand = c;
        return true;
      }
      case kNotify: {
        const Candidate c = unpack(u);
        const std::uint32_t flag = c.inside == v ? kHooked : (!less(c, s.cand) && !less(s.cand, c) ? kMutual : 0U);
        if (flag == 0 || (s.stamp & flag) != 0) return false;
        s.stamp |= flag;
        return true;
      }
      case kRelabel: {
        if (s.next != kNone) return false;
        const bool accept = u.b == s.comp || u.b == kViaHook ||
                            ((s.stamp & kHooked) != 0 && u.c == s.cand.outside && same_weight(u.weight, s.cand.weight));
        if (!accept) return false;
        s.next = u.a;
        s.stamp = (s.stamp & ~kStampMask) | (emitted_superstep + 1);
        return true;
      }
      default:
        return false;
    }
  }

  /// Nothing left to flood: nothing emitted, or everything emitted was applied in this superstep
  /// (nothing spilled) and changed no vertex — then no vertex has a label newer than this
  /// superstep, and the next superstep would emit nothing. (changed == 0 alone is not enough with
  /// K > 1: spilled updates are applied, and counted, in the next superstep.)
  static bool quiescent(const SuperstepStats& s) { return s.emitted == 0 || (s.spilled == 0 && s.changed == 0); }

  bool done(const SuperstepStats& s) {
    Phase next_phase = phase;
    bool finished = false;
    switch (phase) {
      case kFind:
        next_phase = kToRoot;
        break;
      case kToRoot:
        if (s.active == 0) {
          finished = true;
          next_phase = kFinished;
        } else {
          next_phase = kNotify;
          if (log != nullptr) ++log->rounds;
        }
        break;
      case kNotify:
        next_phase = kRelabel;
        break;
      case kRelabel:
        if (log != nullptr) ++log->relabel_supersteps;
        if (quiescent(s)) next_phase = kFind;  // every group is labelled
        break;
      default:
        finished = true;
        break;
    }
    if (next_phase != phase) {
      prev_phase = phase;
      phase = next_phase;
      phase_start = s.superstep + 1;
    }
    return finished;
  }
};

/// Roots each tree of a forest (given as its edges) at its smallest vertex id: min-label
/// propagation; the final label reaches a vertex only over the edge towards that root.
struct McstOrientProgram {
  struct Vertex {
    VertexId label;        // smallest id of the tree (== own id: a root)
    VertexId parent;       // neighbour towards the root
    float parent_weight;   // weight of that edge
    std::uint32_t changed; // 1 + superstep of the update that last lowered the label
  };
  struct Update {
    VertexId label;
    VertexId from;
    float weight;
  };
  static constexpr bool kUndirected = true;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;

  void init(VertexId v, Vertex& s) const { s = Vertex{v, v, 0.0F, 0}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if ((superstep == 0 || src.changed >= superstep) && src.label < e.dst) emit(e.dst, Update{src.label, e.src, e.weight});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (u.label >= s.label) return false;
    s = Vertex{u.label, u.from, u.weight, emitted_superstep + 1};
    return true;
  }
  // In a tree a label arrives over one edge only; the tie rule just keeps combining deterministic.
  static void combine(Update& into, const Update& from) {
    if (std::tie(from.label, from.from) < std::tie(into.label, into.from)) into = from;
  }
  bool done(const SuperstepStats& s) const { return McstProgram::quiescent(s); }
};

/// One forest edge, endpoints as (smaller, larger).
struct McstEdge {
  VertexId a;
  VertexId b;
  float weight;
};

/// The reference: Kruskal with an in-memory union-find, edges in the total order above. Returns
/// the forest's edges in that order.
std::vector<McstEdge> mcst_kruskal(const InMemoryGraph& g);

/// Per vertex: the weight of its parent edge when every tree of `forest` is rooted at its smallest
/// id, or -1 for roots; `parent` receives the parent ids (roots: themselves).
std::vector<float> mcst_parent_weights(std::uint64_t vertices, const std::vector<McstEdge>& forest,
                                       std::vector<VertexId>* parent = nullptr);

}  // namespace edgestream
