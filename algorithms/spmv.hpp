// Sparse matrix-vector product, X-Stream's spmv: one product y(v) = sum over edges u->v of
// w(u,v) * x(u) with x(u) = u (type 2: w = 1).
//
// Deterministic and (almost) exact: every term w * u is an exact integer times a power of two
// (w's 24-bit significand times the 32-bit id: at most 56 bits). Superstep 0 (forward edges) sends
// each destination the binary magnitude of its in-terms, so that v knows E(v) with every
// |term| < 2^E(v). Superstep 1 (the same edges streamed backwards, reading the destination's E)
// sends each term as a signed 64-bit integer in units of 2^(E(v) - 62), rounded to nearest (terms
// of at least 2^(E(v) - 62 - 56) are exact), and v adds them in a 128-bit integer. Integer sums do
// not depend on order, so y is bit-identical for every partition count, thread count and I/O mode;
// the error against the exact sum is at most indegree * 2^(E(v) - 63) (relative to the largest
// term: indegree * 1e-19). Infinite or NaN weights give inf / -inf / NaN as IEEE arithmetic would.
// Output: y rounded once to float.
#pragma once

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

struct SpmvProgram {
  static constexpr std::int32_t kNoTerm = INT32_MIN;
  enum Special : std::uint32_t { kPositiveInfinity = 1, kNegativeInfinity = 2, kNotANumber = 4 };
  struct Vertex {
    std::uint64_t sum_lo;   // 128-bit two's complement sum of the scaled terms
    std::uint64_t sum_hi;
    std::int32_t exponent;  // every |term| < 2^exponent; kNoTerm: no non-zero finite term
    std::uint32_t special;  // Special bits seen among the terms
  };
  // Superstep 0: {exponent, special bits}; superstep 1: a signed 64-bit term {low, high}.
  struct Update {
    std::uint32_t a;
    std::uint32_t b;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kReverseEdges = true;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)
  __extension__ using Wide = unsigned __int128;  // GCC/Clang extensions, intended
  __extension__ using SignedWide = __int128;

  /// A term w * u as sign * mantissa * 2^shift (mantissa < 2^56); mantissa 0 for a zero term.
  struct Term {
    bool negative;
    std::uint64_t mantissa;
    int shift;
    std::uint32_t special;
  };
  static Term term(float w, VertexId u) {
    if (std::isnan(w)) return Term{false, 0, 0, kNotANumber};
    if (std::isinf(w)) {
      if (u == 0) return Term{false, 0, 0, kNotANumber};  // inf * 0
      return Term{false, 0, 0, w > 0 ? kPositiveInfinity : kNegativeInfinity};
    }
    if (w == 0.0F || u == 0) return Term{false, 0, 0, 0};
    int exp = 0;
    const float fraction = std::frexp(std::fabs(w), &exp);  // |w| = fraction * 2^exp, fraction in [0.5, 1)
    const auto significand = static_cast<std::uint64_t>(std::ldexp(fraction, 24));  // exact: < 2^24
    return Term{w < 0, significand * u, exp - 24, 0};
  }
  /// The smallest E with |term| < 2^E.
  static std::int32_t magnitude(const Term& t) { return t.shift + static_cast<int>(std::bit_width(t.mantissa)); }

  void init(VertexId, Vertex& s) const { s = Vertex{0, 0, kNoTerm, 0}; }
  StreamDirections directions(std::uint32_t superstep) const {
    return superstep == 0 ? StreamDirections{true, false} : StreamDirections{false, true};
  }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    const Term t = term(e.weight, e.src);
    if (t.special != 0) {
      emit(e.dst, Update{0, t.special});
    } else if (t.mantissa != 0) {
      emit(e.dst, Update{static_cast<std::uint32_t>(magnitude(t)), 0});
    }
  }
  template <typename Emit>
  void scatter_reverse(const Vertex& dst, const Edge& e, std::uint32_t, Emit&& emit) const {
    const Term t = term(e.weight, e.src);
    if (t.special != 0 || t.mantissa == 0) return;
    // Units of 2^(exponent - 62): value = mantissa * 2^(shift - exponent + 62) < 2^62.
    const int left = t.shift - dst.exponent + 62;
    std::uint64_t scaled = 0;
    if (left >= 0) {
      scaled = t.mantissa << left;  // < 2^62 since |term| < 2^exponent
    } else if (left > -64) {
      const std::uint64_t half = std::uint64_t{1} << (-left - 1);
      scaled = (t.mantissa >> -left) + ((t.mantissa & ((half << 1) - 1)) >= half ? 1 : 0);
    }
    if (scaled == 0) return;
    const std::int64_t value = t.negative ? -static_cast<std::int64_t>(scaled) : static_cast<std::int64_t>(scaled);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    emit(e.dst, Update{static_cast<std::uint32_t>(bits), static_cast<std::uint32_t>(bits >> 32)});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted_superstep) const {
    if (emitted_superstep == 0) {
      if (u.b != 0) {
        s.special |= u.b;
      } else {
        s.exponent = std::max(s.exponent, static_cast<std::int32_t>(u.a));
      }
      return true;
    }
    const std::uint64_t bits = (static_cast<std::uint64_t>(u.b) << 32) | u.a;
    std::int64_t value = 0;
    std::memcpy(&value, &bits, sizeof value);
    Wide sum = (static_cast<Wide>(s.sum_hi) << 64) | s.sum_lo;
    sum += static_cast<Wide>(static_cast<SignedWide>(value));
    s.sum_lo = static_cast<std::uint64_t>(sum);
    s.sum_hi = static_cast<std::uint64_t>(sum >> 64);
    return true;
  }
  bool done(const SuperstepStats& s) const { return s.superstep >= 1; }
  std::uint64_t planned_supersteps() const { return 2; }  // --disk_grid auto: too few for a grid

  /// y(v) from a final state.
  static double result(const Vertex& s) {
    if ((s.special & kNotANumber) != 0 || (s.special & (kPositiveInfinity | kNegativeInfinity)) == (kPositiveInfinity | kNegativeInfinity)) {
      return std::nan("");
    }
    if ((s.special & kPositiveInfinity) != 0) return HUGE_VAL;
    if ((s.special & kNegativeInfinity) != 0) return -HUGE_VAL;
    if (s.exponent == kNoTerm) return 0.0;
    const auto sum = static_cast<SignedWide>((static_cast<Wide>(s.sum_hi) << 64) | s.sum_lo);
    return std::ldexp(static_cast<double>(sum), s.exponent - 62);
  }
};

/// The reference: y in long double, edges in file order, each term (long double)w * u.
std::vector<long double> spmv_reference(const InMemoryGraph& g);

}  // namespace edgestream
