// Loopy belief propagation with X-Stream's model (docs/algorithms/belief_propagation.md): two states,
// uniform priors (0.5, 0.5); every stored edge (u, v, w) is a pairwise factor of the undirected
// view that carries one message in each direction; the message sender -> receiver uses the
// potential psi(i, j) = w when sender < receiver and 1 - w otherwise, for EVERY state pair (i, j);
// flooding schedule: each of --belief_propagation::niters iterations absorbs the messages of the
// previous one (product per vertex) and sends m'(i) = normalise(sum_j prior(j) psi(i, j)
// product(j) / m_reverse(j)); the first iteration absorbs X-Stream's initial messages (w, w).
// The belief of v is normalise(prior(j) * product(j)) after the last absorption.
//
// The engine has no per-edge state and scatter sees only one endpoint, so the engine program
// cannot divide by the reverse message. It does not need to for X-Stream's model: psi does not
// depend on (i, j), so the division rescales m'(0) and m'(1) alike and normalisation cancels it
// (bp_message() is fed the undivided product). bp_reference() below does the literal per-edge
// computation WITH the division, for any model; --verify compares the two, so a change to a
// state-dependent potential would be caught. Messages are kept as log-ratios ln(m(0)/m(1)).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

/// |engine belief - reference belief| <= kBpTolerance for every vertex and state.
inline constexpr double kBpTolerance = 1e-6;

using BpPotential = std::array<std::array<double, 2>, 2>;  // psi[i][j]: receiver state i, sender state j

/// X-Stream's potential for the message sender -> receiver over an edge of weight w.
inline BpPotential xstream_bp_potential(float w, VertexId sender, VertexId receiver) {
  const double value = sender < receiver ? static_cast<double>(w) : 1.0 - static_cast<double>(w);
  return {{{value, value}, {value, value}}};
}

/// The normalised message (as ln(m(0)/m(1))) that a sender whose cavity belief has log-ratio
/// `cavity` (prior times incoming messages, without the receiver's) sends through `psi`.
/// m(i) = sum_j psi[i][j] c(j). A message that is not a positive finite pair (an all-zero or
/// negative potential, X-Stream's weights 0 or 1) is replaced by the uniform message (log-ratio 0).
/// The same from the cavity's probabilities (c0, c1 = 1 - c0), which a vertex can compute once.
inline double bp_message_from(const BpPotential& psi, double c0, double c1) {
  const double m0 = psi[0][0] * c0 + psi[0][1] * c1;
  const double m1 = psi[1][0] * c0 + psi[1][1] * c1;
  if (!(m0 > 0.0) || !(m1 > 0.0) || !std::isfinite(m0) || !std::isfinite(m1)) return 0.0;
  return m0 == m1 ? 0.0 : std::log(m0 / m1);
}
inline double bp_message(const BpPotential& psi, double cavity) {
  return bp_message_from(psi, 1.0 / (1.0 + std::exp(-cavity)), 1.0 / (1.0 + std::exp(cavity)));
}

/// Belief of state 0 from a log-ratio.
inline double bp_belief0(double log_ratio) { return 1.0 / (1.0 + std::exp(-log_ratio)); }

struct BeliefPropagationProgram {
  struct Vertex {
    double incoming;  // sum of the log-ratios absorbed since the last prepare
    double product;   // ln(product(0)/product(1)) of the last absorption
    float c0, c1;     // the cavity distribution prior * product (what scatter sends through psi)
  };
  struct Update {
    float log_ratio;
  };
  static constexpr bool kUndirected = true;  // one message each way per stored edge
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)
  static constexpr double kPriorLogRatio = 0.0;  // prior (0.5, 0.5)

  std::uint32_t iterations = 5;

  void init(VertexId, Vertex& s) const { s = Vertex{0.0, 0.0, 0.5F, 0.5F}; }
  // Absorption k (k = 1 .. iterations) happens in prepare(k).
  void prepare(VertexId, Vertex& s, std::uint32_t superstep) const {
    if (superstep >= 1 && superstep <= iterations) s.product = s.incoming;
    s.incoming = 0.0;
    s.c0 = static_cast<float>(bp_belief0(kPriorLogRatio + s.product));
    s.c1 = static_cast<float>(bp_belief0(-(kPriorLogRatio + s.product)));
  }
  // Superstep 0 sends the initial messages (w, w); superstep k the messages of iteration k.
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
    if (superstep + 1 > iterations) return;
    double message = 0.0;  // (w, w) normalised: uniform (and uniform by bp_message's rule when w <= 0)
    if (superstep > 0) message = bp_message_from(xstream_bp_potential(e.weight, e.src, e.dst), src.c0, src.c1);
    emit(e.dst, Update{static_cast<float>(message)});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    s.incoming += u.log_ratio;
    return true;
  }
  static void combine(Update& into, const Update& from) { into.log_ratio += from.log_ratio; }
  bool done(const SuperstepStats& s) const { return s.superstep + 1 >= iterations; }
  std::uint64_t planned_supersteps() const { return std::max<std::uint64_t>(iterations, 1); }
};

/// A 2-state pairwise model: prior(v) and the potential of the message sender -> receiver over a
/// stored edge (the reference is general; the engine program runs xstream_bp_model()).
struct BpModel {
  std::function<std::array<double, 2>(VertexId)> prior;
  std::function<BpPotential(const Edge& stored, VertexId sender, VertexId receiver)> potential;
  /// The initial message along a stored edge (X-Stream: (w, w)); normalised by the reference.
  std::function<std::array<double, 2>(const Edge& stored)> initial;
};

BpModel xstream_bp_model();

/// The reference: X-Stream's flooding schedule with one message per direction of every stored
/// edge, the cavity computed literally (product divided by the reverse message), in log space.
/// Returns the belief of state 0 per vertex (state 1 is 1 - it).
std::vector<double> bp_reference(const InMemoryGraph& g, std::uint32_t iterations, const BpModel& model);

/// Exact marginals P(x_v = 0) of p(x) ~ prod_v prior_v(x_v) prod_edges psi_e(x_dst, x_src) by
/// enumerating all 2^n assignments (n <= 20); psi_e is the potential for sender = src.
std::vector<double> bp_brute_force(const InMemoryGraph& g, const BpModel& model);

}  // namespace edgestream
