// Maximal independent set of the undirected view, "lowest id wins": the lexicographically-first
// MIS, i.e. what the sequential greedy pass in increasing id order picks (a vertex is in the set
// iff none of its lower-id neighbours is). Self-loops are ignored; duplicate edges are harmless.
// Output per vertex: 1 (in the set) or 0.
//
// Superstep 0 counts, per vertex, the edge records that join it to a LOWER id ("pending"). From
// superstep 1 on, prepare() puts into the set every undecided vertex whose pending count reached
// zero; a vertex decided in superstep s tells its higher neighbours exactly once, in the scatter of
// s: "I am in" (they leave the set: decided out at the superstep after the message was emitted) or
// "I am out" (their pending count drops by one per record). Decisions depend only on the updates of
// earlier supersteps, so every partition count gives the same set.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct MisProgram {
  static constexpr std::uint32_t kUndecided = 0;
  static constexpr std::uint32_t kIn = 1;
  static constexpr std::uint32_t kOut = 2;
  struct Vertex {
    std::uint32_t pending;  // records to lower-id neighbours not yet known to be out
    std::uint32_t status;   // kUndecided, kIn, kOut
    std::uint32_t decided;  // superstep in whose scatter the vertex tells its higher neighbours
  };
  struct Update {
    std::uint32_t count;  // superstep 0: lower-id records; later: records of neighbours gone out
    std::uint32_t in;     // 1: a lower-id neighbour is in the set
  };
  static constexpr bool kUndirected = true;
  // A vertex waits for as many "out" messages as it counted records to lower ids: the set does not
  // depend on how often an edge is stored, so a symmetric input is used once per direction
  // (core/program.hpp).
  static constexpr bool kOneWayOnSymmetricInput = true;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)

  void init(VertexId, Vertex& s) const { s = Vertex{0, kUndecided, UINT32_MAX}; }
  bool prepare(VertexId, Vertex& s, std::uint32_t superstep) const {
    if (superstep >= 1 && s.status == kUndecided && s.pending == 0) {
      s.status = kIn;
      s.decided = superstep;
    }
    return s.status == kUndecided;
  }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (e.src >= e.dst) return;  // only towards higher ids; self-loops never
    if (superstep == 0) {
      emit(e.dst, Update{1, 0});
    } else if (src.decided == superstep) {
      emit(e.dst, src.status == kIn ? Update{0, 1} : Update{1, 0});
    }
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (emitted_superstep == 0) {
      s.pending += u.count;
      return u.count != 0;
    }
    if (s.status != kUndecided) return false;
    if (u.in != 0) {
      s.status = kOut;
      s.decided = emitted_superstep + 1;
      return true;
    }
    s.pending -= u.count;
    return u.count != 0;
  }
  static void combine(Update& into, const Update& from) {
    into.count += from.count;
    into.in |= from.in;
  }
  // Every vertex decided at the start of a superstep: what it still sends changes nothing.
  bool done(const SuperstepStats& s) const { return s.superstep >= 1 && s.active == 0; }
};

/// The sequential greedy pass in increasing id order; 1 = in the set.
std::vector<std::uint8_t> mis_reference(const InMemoryGraph& g);

}  // namespace edgestream
