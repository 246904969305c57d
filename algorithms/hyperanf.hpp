// HyperANF (Boldi, Rosa, Vigna): the neighbourhood function N(t) = sum over v of |B(v, t)|, where
// B(v, t) = { u : u reaches v in at most t hops along stored edges }, approximated with one
// HyperLogLog counter per vertex (X-Stream's model, docs/algorithms/hyperanf.md).
//
// Every vertex starts with a counter holding only its own id (a fixed 64-bit mixer of the id picks
// the register and its value). Superstep s sends the counters that changed in s-1 along every edge
// src -> dst; the destination takes the register-wise maximum (set union). A vertex reads its own
// counter from `cur` (frozen for the superstep) and collects into `next`; prepare() promotes `next`
// to `cur`, so a counter after superstep s is exactly HLL(B(v, s)) whether the updates arrived in
// memory or through a spill: identical for every K, -p and I/O mode. prepare() also adds the
// vertex's estimate to a shared tally (a fixed-point integer sum: order-independent, so the
// stopping decision is deterministic) from which done() prints N(s) and applies X-Stream's rule.
//
// The register count m = 2^b comes from --hyperanf::rsd as in X-Stream (b = ceil(log2((1.106/rsd)^2))),
// clamped below to 16 registers; the program is instantiated for b = 4 .. kHyperAnfMaxLog2.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/checkpoint.hpp"
#include "core/program.hpp"
#include "io/status.hpp"

namespace edgestream {

inline constexpr unsigned kHyperAnfMinLog2 = 4;   // 16 registers (HLL's alpha table starts there)
inline constexpr unsigned kHyperAnfMaxLog2 = 10;  // 1024 registers: rsd down to ~0.035
/// Fixed-point scale of the N(t) tally: estimates are rounded to multiples of 2^-8 before summing.
inline constexpr double kHyperAnfFixedScale = 256.0;
/// N(t) <= ~1.2 n^2 must fit the 64-bit fixed-point tally: n <= 2^27 (run_hyperanf checks).
inline constexpr std::uint64_t kHyperAnfMaxVertices = std::uint64_t{1} << 27;

/// The HLL parameters derived from --hyperanf::rsd.
struct HllParams {
  double rsd = 0.1;
  unsigned log2_m = 7;
  std::uint32_t m = 128;
  double alpha_mm = 0;          // alpha_m * m^2
  double small_threshold = 0;   // raw estimates below 2.5 m use linear counting when a register is 0
};

/// Parameters for `rsd` (X-Stream's formula); invalid_argument naming --hyperanf::rsd when rsd is not
/// in (0, 1] or needs more than 2^kHyperAnfMaxLog2 registers.
Expected<HllParams> hll_params(double rsd);

/// The fixed 64-bit mixer (splitmix64's finaliser) applied to a vertex id.
std::uint64_t hyperanf_hash(VertexId v);

/// Register index and value (1 + trailing zeros of the remaining hash bits) of vertex v.
inline void hll_register_of(VertexId v, unsigned log2_m, std::uint32_t& index, std::uint8_t& value) {
  const std::uint64_t h = hyperanf_hash(v);
  index = static_cast<std::uint32_t>(h & ((std::uint64_t{1} << log2_m) - 1));
  const std::uint64_t rest = h >> log2_m;
  value = static_cast<std::uint8_t>(rest == 0 ? 64 - log2_m + 1 : std::countr_zero(rest) + 1);
}

/// The HLL estimate of a counter of params.m registers (sum of 2^-r in register order; linear
/// counting for small raw estimates with empty registers, as in X-Stream and the HLL paper).
double hll_estimate(const HllParams& params, const std::uint8_t* registers);

/// An estimate as the fixed-point integer summed into N(t).
inline std::uint64_t hyperanf_fixed(float estimate) {
  return static_cast<std::uint64_t>(static_cast<double>(estimate) * kHyperAnfFixedScale + 0.5);
}

/// Tally shared by every copy of the program: filled by prepare(), read and reset by done().
struct HyperAnfTally {
  std::atomic<std::uint64_t> sum{0};       // fixed-point sum of the estimates of this superstep
  std::atomic<std::uint64_t> best{0};      // (float bits of the estimate << 32) | (UINT32_MAX - id): the seed
  struct Iteration {
    std::uint64_t sum;                     // fixed-point N(t)
    VertexId seed;                         // vertex with the largest estimate (smallest id on ties)
    float seed_reach;                      // its estimate
  };
  std::vector<Iteration> iterations;       // N(0), N(1), ... as computed
  enum class Stop { kNone, kEpsilon, kIterations, kStable } stop = Stop::kNone;

  void add(VertexId v, float estimate) {
    sum.fetch_add(hyperanf_fixed(estimate), std::memory_order_relaxed);
    const std::uint64_t key = (std::uint64_t{std::bit_cast<std::uint32_t>(estimate)} << 32) | (UINT32_MAX - v);
    std::uint64_t cur = best.load(std::memory_order_relaxed);
    while (key > cur && !best.compare_exchange_weak(cur, key, std::memory_order_relaxed)) {
    }
  }
};

/// The stopping rule (X-Stream's): after N(t), stop when t >= 1 and |N(t) - N(t-1)| / N(t-1) < epsilon,
/// or when nothing changed in t (N stays put for ever), or when t + 2 >= maxiters.
HyperAnfTally::Stop hyperanf_stop(std::uint64_t t, std::uint64_t sum, std::uint64_t previous_sum, std::uint64_t changed,
                                  double epsilon, std::uint64_t max_iterations);

template <unsigned kLog2M>
struct HyperAnfProgram {
  static constexpr std::uint32_t kRegisters = std::uint32_t{1} << kLog2M;
  struct Vertex {
    std::uint8_t cur[kRegisters];   // HLL(B(v, s)) during superstep s; what scatter sends
    std::uint8_t next[kRegisters];  // unions arriving during s (promoted by prepare(s + 1))
    float estimate;                 // hll_estimate(cur)
    std::uint8_t dirty;             // next != cur
    std::uint8_t changed;           // cur changed in prepare(s): send it in s
  };
  struct Update {
    alignas(4) std::uint8_t registers[kRegisters];
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kReadsWeights = false;  // the grid keeps 4 bytes per edge (core/program.hpp)

  HllParams params;
  double epsilon = 0.001;
  std::uint64_t max_iterations = 100;
  HyperAnfTally* tally = nullptr;
  bool finished = false;  // set by the last done(): the final prepare leaves the states alone

  // --checkpoint (core/checkpoint.hpp): the tally lives outside the program, so the program saves
  // it itself. At a superstep boundary the running sum and best are zero (done() reset them).
  static constexpr bool kCheckpointable = true;
  void save_state(StateWriter& out) const {
    out.put(finished);
    out.put(static_cast<std::uint32_t>(tally->stop));
    out.put(static_cast<std::uint64_t>(tally->iterations.size()));
    for (const HyperAnfTally::Iteration& it : tally->iterations) out.put(it);
  }
  Status load_state(StateReader& in) {
    std::uint32_t stop = 0;
    std::uint64_t n = 0;
    ES_RETURN_IF_ERROR(in.get(finished));
    ES_RETURN_IF_ERROR(in.get(stop));
    ES_RETURN_IF_ERROR(in.get(n));
    if (stop > static_cast<std::uint32_t>(HyperAnfTally::Stop::kStable) || n > (std::uint64_t{1} << 32)) {
      return corruption(in.what() + ": HyperANF tally out of range");
    }
    tally->stop = static_cast<HyperAnfTally::Stop>(stop);
    tally->iterations.resize(n);
    for (HyperAnfTally::Iteration& it : tally->iterations) ES_RETURN_IF_ERROR(in.get(it));
    return Status::ok();
  }

  void init(VertexId v, Vertex& s) const {
    std::memset(&s, 0, sizeof(Vertex));
    std::uint32_t index = 0;
    std::uint8_t value = 0;
    hll_register_of(v, kLog2M, index, value);
    s.cur[index] = value;
    s.next[index] = value;
  }
  bool prepare(VertexId v, Vertex& s, std::uint32_t superstep) const {
    if (finished) return false;
    if (superstep == 0) {
      s.changed = 1;
      s.estimate = static_cast<float>(hll_estimate(params, s.cur));
    } else {
      s.changed = s.dirty;
      if (s.dirty != 0) {
        std::memcpy(s.cur, s.next, kRegisters);
        s.dirty = 0;
        s.estimate = static_cast<float>(hll_estimate(params, s.cur));
      }
    }
    tally->add(v, s.estimate);
    return s.changed != 0;
  }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t, Emit&& emit) const {
    if (src.changed == 0) return;
    Update u;
    std::memcpy(u.registers, src.cur, kRegisters);
    emit(e.dst, u);
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    std::uint8_t grew = 0;
    for (std::uint32_t i = 0; i < kRegisters; ++i) {
      grew |= static_cast<std::uint8_t>(u.registers[i] > s.next[i]);
      s.next[i] = std::max(s.next[i], u.registers[i]);
    }
    s.dirty |= grew;
    return grew != 0;
  }
  static void combine(Update& into, const Update& from) {
    for (std::uint32_t i = 0; i < kRegisters; ++i) into.registers[i] = std::max(into.registers[i], from.registers[i]);
  }
  bool done(const SuperstepStats& s) {
    const std::uint64_t sum = tally->sum.exchange(0, std::memory_order_relaxed);
    const std::uint64_t best = tally->best.exchange(0, std::memory_order_relaxed);
    const std::uint64_t previous = tally->iterations.empty() ? 0 : tally->iterations.back().sum;
    tally->iterations.push_back(HyperAnfTally::Iteration{sum, static_cast<VertexId>(UINT32_MAX - (best & UINT32_MAX)),
                                                         std::bit_cast<float>(static_cast<std::uint32_t>(best >> 32))});
    tally->stop = hyperanf_stop(s.superstep, sum, previous, s.active, epsilon, max_iterations);
    finished = tally->stop != HyperAnfTally::Stop::kNone;
    return finished;
  }
};

struct HyperAnfReference {
  std::vector<float> estimate;                       // per vertex, at the last iteration
  std::vector<HyperAnfTally::Iteration> iterations;  // N(0) .. N(T)
  HyperAnfTally::Stop stop = HyperAnfTally::Stop::kNone;
};

/// The reference: the same HLL computation in memory (synchronous unions over the edge list) with
/// the same stopping rule. Equal to the engine's result bit for bit.
HyperAnfReference hyperanf_reference(const InMemoryGraph& g, const HllParams& params, double epsilon,
                                     std::uint64_t max_iterations);

/// Exact |B(v, t)| (vertices reaching v in at most t hops) by a backward BFS from v.
std::uint64_t exact_ball_size(const Csr& in_adjacency, VertexId v, std::uint64_t t);

}  // namespace edgestream
