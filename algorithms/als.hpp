// Alternating least squares matrix factorisation on a rating graph, X-Stream's model (rank 5,
// lambda 0.065 weighted by the number of ratings, lower ids on the left side):
//  * every input record (a, b, w) with a != b is one rating w between the "user" min(a, b) and the
//    "item" max(a, b); its direction does not matter, so a file listing both directions (what
//    X-Stream expects) simply holds every rating twice, which leaves the solution unchanged (the
//    regularisation is weighted by the rating count). Self-loops and non-finite ratings are
//    ignored.
//  * each vertex has a user-role vector x and an item-role vector y (kAlsRank doubles each, from a
//    hash of the vertex id); on a bipartite rating graph only one of them is ever used. The model
//    minimises J = sum over ratings (w - x_u . y_i)^2 + kAlsLambda (|x_u|^2 + |y_i|^2), i.e.
//    lambda * n_v * |v|^2 per vertex with n_v ratings.
//  * one iteration = two half-steps: solve every item's y from its users' x, then every user's x
//    from its items' y: (sum y y^T + lambda n I) x = sum w y, a kAlsRank x kAlsRank SPD system
//    solved by Cholesky in prepare(). Each half-step minimises J exactly over one block, so J never
//    increases.
// On the engine (undirected view: every record is scattered from both ends): superstep t sends,
// along every rating, the sender's vector and the rating to the other end (users -> items when t is
// even, items -> users when odd); gather accumulates the normal equations, and also the rating's
// error and regularisation terms, so superstep t measures J and the SSE of the model as it stands.
// prepare(t + 1) solves. Supersteps 0 .. 2N: superstep 2i measures the model after i iterations,
// superstep 2N only measures. Sums of doubles arrive in partition-dependent order: vectors and
// measures of different K, -p and I/O modes agree within kAlsTolerance (relative).
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/program.hpp"

namespace edgestream {

inline constexpr unsigned kAlsRank = 5;          // X-Stream's RANK
inline constexpr double kAlsLambda = 0.065;      // X-Stream's LAMBDA (times the rating count)
inline constexpr unsigned kAlsTriangle = kAlsRank * (kAlsRank + 1) / 2;
/// |a - b| <= kAlsTolerance * max(1, |b|) for vectors, SSE and objective between runs and against
/// the reference.
inline constexpr double kAlsTolerance = 1e-6;

/// The initial vectors: a hash of (vertex, component) mapped to [0, 1); x uses components
/// 0..rank-1, y components rank..2*rank-1.
double als_initial_value(VertexId v, unsigned component);

/// Solves (A + shift I) z = rhs for an SPD A given as its packed upper triangle (row-major: (0,0),
/// (0,1) .. (0,k-1), (1,1) ..). Returns false (and leaves z alone) if the matrix is not positive
/// definite.
bool als_solve(const double* triangle, double shift, const double* rhs, double* z);

/// Per-superstep measures, summed by prepare() from every vertex that received ratings.
struct AlsLog {
  explicit AlsLog(std::uint32_t supersteps)
      : sse(std::make_unique<std::atomic<double>[]>(supersteps)),
        regularisation(std::make_unique<std::atomic<double>[]>(supersteps)),
        ratings(std::make_unique<std::atomic<std::uint64_t>[]>(supersteps)),
        size(supersteps) {
    for (std::uint32_t t = 0; t < supersteps; ++t) {
      sse[t] = 0.0;
      regularisation[t] = 0.0;
      ratings[t] = 0;
    }
  }
  std::unique_ptr<std::atomic<double>[]> sse;
  std::unique_ptr<std::atomic<double>[]> regularisation;
  std::unique_ptr<std::atomic<std::uint64_t>[]> ratings;
  std::uint32_t size;
};

struct AlsProgram {
  struct Vertex {
    double x[kAlsRank];             // user-role vector
    double y[kAlsRank];             // item-role vector
    double a[kAlsTriangle];         // sum of v v^T over this superstep's ratings (upper triangle)
    double b[kAlsRank];             // sum of w v
    double sse;                     // sum of (w - x.y)^2
    double regularisation;          // sum of lambda (|x|^2 + |y|^2)
    std::uint32_t count;            // ratings received this superstep
    std::uint32_t user_ratings;     // ratings as a user (lower end), set by the last users' half-step
    std::uint32_t item_ratings;     // ratings as an item (higher end)
    std::uint32_t pad;
  };
  // The sender's vector and the rating, as 32-bit words (a routed update packs without padding).
  struct Update {
    std::uint32_t words[2 * (kAlsRank + 1)];
  };
  static constexpr bool kUndirected = true;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;

  std::uint32_t last = 10;  // the measuring superstep: 2 * iterations
  AlsLog* log = nullptr;    // size last + 1

  void init(VertexId v, Vertex& s) const {
    std::memset(&s, 0, sizeof s);
    for (unsigned j = 0; j < kAlsRank; ++j) {
      s.x[j] = als_initial_value(v, j);
      s.y[j] = als_initial_value(v, kAlsRank + j);
    }
  }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t s, Emit&& emit) const {
    if (e.src == e.dst || !std::isfinite(e.weight)) return;
    const bool to_items = s % 2 == 0;
    if (to_items != (e.src < e.dst)) return;  // the other end of this rating sends
    double payload[kAlsRank + 1];
    std::memcpy(payload, to_items ? src.x : src.y, sizeof(double) * kAlsRank);
    payload[kAlsRank] = static_cast<double>(e.weight);
    Update u;
    std::memcpy(u.words, payload, sizeof payload);
    emit(e.dst, u);
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t emitted) const {
    double in[kAlsRank + 1];
    std::memcpy(in, u.words, sizeof in);
    const double rating = in[kAlsRank];
    const double* own = emitted % 2 == 0 ? s.y : s.x;
    double dot = 0.0;
    double norm_in = 0.0;
    double norm_own = 0.0;
    for (unsigned i = 0; i < kAlsRank; ++i) {
      dot += in[i] * own[i];
      norm_in += in[i] * in[i];
      norm_own += own[i] * own[i];
    }
    const double error = rating - dot;
    s.sse += error * error;
    s.regularisation += kAlsLambda * (norm_in + norm_own);
    unsigned k = 0;
    for (unsigned i = 0; i < kAlsRank; ++i) {
      s.b[i] += rating * in[i];
      for (unsigned j = i; j < kAlsRank; ++j) s.a[k++] += in[i] * in[j];
    }
    ++s.count;
    return true;
  }
  /// Folds the measures of superstep s-1 into the log, then solves the role that superstep fed
  /// (unless it was the measuring superstep). Active = vertices solved.
  bool prepare(VertexId, Vertex& s, std::uint32_t superstep) const {
    if (superstep == 0 || s.count == 0) return false;
    const std::uint32_t t = superstep - 1;
    const bool items = t % 2 == 0;
    if (log != nullptr && t < log->size) {
      log->sse[t].fetch_add(s.sse, std::memory_order_relaxed);
      log->regularisation[t].fetch_add(s.regularisation, std::memory_order_relaxed);
      log->ratings[t].fetch_add(s.count, std::memory_order_relaxed);
    }
    (items ? s.item_ratings : s.user_ratings) = s.count;
    bool solved = false;
    if (t < last) solved = als_solve(s.a, kAlsLambda * s.count, s.b, items ? s.y : s.x);
    std::memset(s.a, 0, sizeof s.a);
    std::memset(s.b, 0, sizeof s.b);
    s.sse = 0.0;
    s.regularisation = 0.0;
    s.count = 0;
    return solved;
  }
  bool done(const SuperstepStats& s) const { return s.superstep >= last; }
  std::uint64_t planned_supersteps() const { return std::uint64_t{last} + 1; }
};

/// One rating of the model: user = lower id, item = higher id.
struct AlsRating {
  VertexId user;
  VertexId item;
  double rating;
};

/// The ratings of a graph under the model above (self-loops and non-finite weights dropped).
std::vector<AlsRating> als_ratings(const InMemoryGraph& g);

struct AlsResult {
  std::vector<double> x;  // vertices * kAlsRank, user-role vectors
  std::vector<double> y;  // vertices * kAlsRank, item-role vectors
  std::vector<double> sse;        // per superstep t = 0 .. 2N: model as measured in t
  std::vector<double> objective;  // per superstep: sse + regularisation
};

/// The reference: the same half-steps in memory over the rating list, in double precision.
AlsResult als_reference(std::uint64_t vertices, const std::vector<AlsRating>& ratings, std::uint32_t iterations);

}  // namespace edgestream
