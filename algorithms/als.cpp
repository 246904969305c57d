// ALS runner (output: the latent vector per vertex), Cholesky solve, in-memory reference and verifier.
#include "algorithms/als.hpp"

#include <algorithm>
#include <sstream>

#include "algorithms/runner_support.hpp"
#include "utils/mix64.hpp"

namespace edgestream {

namespace {

bool close(double got, double want) { return std::fabs(got - want) <= kAlsTolerance * std::max(1.0, std::fabs(want)); }

std::string format(double value, int precision = 9) {
  std::ostringstream s;
  s.precision(precision);
  s << value;
  return s.str();
}

// Accumulates one rating's normal-equation terms (as AlsProgram::gather does).
void accumulate(double* a, double* b, const double* v, double rating) {
  unsigned k = 0;
  for (unsigned i = 0; i < kAlsRank; ++i) {
    b[i] += rating * v[i];
    for (unsigned j = i; j < kAlsRank; ++j) a[k++] += v[i] * v[j];
  }
}

double dot(const double* p, const double* q) {
  double s = 0.0;
  for (unsigned i = 0; i < kAlsRank; ++i) s += p[i] * q[i];
  return s;
}

}  // namespace

double als_initial_value(VertexId v, unsigned component) {
  const std::uint64_t h = mix64(0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(v) * 2 * kAlsRank + component + 1));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

bool als_solve(const double* triangle, double shift, const double* rhs, double* z) {
  // Cholesky A = L L^T, then L w = rhs, L^T z = w.
  double l[kAlsRank][kAlsRank] = {};
  auto at = [&](unsigned i, unsigned j) {  // element (i, j), i <= j, of the packed triangle
    return triangle[i * kAlsRank - i * (i - 1) / 2 + (j - i)];
  };
  for (unsigned j = 0; j < kAlsRank; ++j) {
    double d = at(j, j) + shift;
    for (unsigned k = 0; k < j; ++k) d -= l[j][k] * l[j][k];
    if (!(d > 0.0)) return false;
    l[j][j] = std::sqrt(d);
    for (unsigned i = j + 1; i < kAlsRank; ++i) {
      double s = at(j, i);
      for (unsigned k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
      l[i][j] = s / l[j][j];
    }
  }
  double w[kAlsRank];
  for (unsigned i = 0; i < kAlsRank; ++i) {
    double s = rhs[i];
    for (unsigned k = 0; k < i; ++k) s -= l[i][k] * w[k];
    w[i] = s / l[i][i];
  }
  for (unsigned i = kAlsRank; i-- > 0;) {
    double s = w[i];
    for (unsigned k = i + 1; k < kAlsRank; ++k) s -= l[k][i] * z[k];
    z[i] = s / l[i][i];
  }
  return true;
}

std::vector<AlsRating> als_ratings(const InMemoryGraph& g) {
  std::vector<AlsRating> out;
  out.reserve(g.edges.size());
  for (const Edge& e : g.edges) {
    if (e.src == e.dst || !std::isfinite(e.weight)) continue;
    out.push_back(AlsRating{std::min(e.src, e.dst), std::max(e.src, e.dst), static_cast<double>(e.weight)});
  }
  return out;
}

AlsResult als_reference(std::uint64_t vertices, const std::vector<AlsRating>& ratings, std::uint32_t iterations) {
  constexpr unsigned R = kAlsRank;
  AlsResult r;
  r.x.resize(vertices * R);
  r.y.resize(vertices * R);
  for (std::uint64_t v = 0; v < vertices; ++v) {
    for (unsigned j = 0; j < R; ++j) {
      r.x[v * R + j] = als_initial_value(static_cast<VertexId>(v), j);
      r.y[v * R + j] = als_initial_value(static_cast<VertexId>(v), R + j);
    }
  }
  std::vector<double> a(vertices * kAlsTriangle);
  std::vector<double> b(vertices * R);
  std::vector<std::uint32_t> count(vertices);
  const std::uint32_t last = 2 * iterations;
  for (std::uint32_t t = 0; t <= last; ++t) {
    const bool items = t % 2 == 0;
    std::fill(a.begin(), a.end(), 0.0);
    std::fill(b.begin(), b.end(), 0.0);
    std::fill(count.begin(), count.end(), 0U);
    double sse = 0.0;
    double reg = 0.0;
    for (const AlsRating& rating : ratings) {
      const VertexId target = items ? rating.item : rating.user;
      const double* in = items ? &r.x[std::size_t{rating.user} * R] : &r.y[std::size_t{rating.item} * R];
      const double* own = items ? &r.y[target * R] : &r.x[target * R];
      const double error = rating.rating - dot(in, own);
      sse += error * error;
      reg += kAlsLambda * (dot(in, in) + dot(own, own));
      accumulate(&a[target * kAlsTriangle], &b[target * R], in, rating.rating);
      ++count[target];
    }
    r.sse.push_back(sse);
    r.objective.push_back(sse + reg);
    if (t == last) break;
    std::vector<double>& solved = items ? r.y : r.x;
    for (std::uint64_t v = 0; v < vertices; ++v) {
      if (count[v] > 0) als_solve(&a[v * kAlsTriangle], kAlsLambda * count[v], &b[v * R], &solved[v * R]);
    }
  }
  return r;
}

Expected<AlgorithmReport> run_als(const AlgorithmRequest& request) {
  constexpr unsigned R = kAlsRank;
  const std::uint64_t iterations = request.params.als_iterations;
  if (iterations < 1 || iterations > 1000000) {
    return invalid_argument("--als::niters " + std::to_string(iterations) + " is out of range (1 .. 1000000)");
  }
  AlsProgram program;
  program.last = static_cast<std::uint32_t>(2 * iterations);
  AlsLog log(program.last + 1);
  program.log = &log;
  // With --verify the engine's vectors are kept for the check; allocated at the first final state,
  // after the memory plan, so that they do not count in the baseline the plan starts from.
  AlsResult result;
  std::uint64_t users = 0;
  std::uint64_t items = 0;
  std::uint64_t mixed = 0;
  auto on_partition = [&](VertexId first, std::span<const AlsProgram::Vertex> states, VertexOutput& out) {
    if (request.verify && result.x.empty()) {
      result.x.resize(request.graph.vertices * R);
      result.y.resize(request.graph.vertices * R);
    }
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const AlsProgram::Vertex& s = states[i];
      users += s.user_ratings > 0 ? 1 : 0;
      items += s.item_ratings > 0 ? 1 : 0;
      mixed += (s.user_ratings > 0 && s.item_ratings > 0) ? 1 : 0;
      if (!result.x.empty()) {
        std::copy(s.x, s.x + R, result.x.begin() + static_cast<std::ptrdiff_t>(v) * R);
        std::copy(s.y, s.y + R, result.y.begin() + static_cast<std::ptrdiff_t>(v) * R);
      }
      if (out.active()) {
        // The vertex's latent vector: its user vector if it rated as a user, else its item
        // vector; zeros for a vertex without ratings.
        const double* vec = s.user_ratings > 0 ? s.x : s.item_ratings > 0 ? s.y : nullptr;
        out.begin_line(v);
        for (unsigned j = 0; j < R; ++j) out.add(vec != nullptr ? vec[j] : 0.0);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  const std::uint64_t ratings = log.ratings[program.last].load();
  auto rmse = [&](std::uint32_t t) {
    return ratings == 0 ? 0.0 : std::sqrt(log.sse[t].load() / static_cast<double>(ratings));
  };
  auto objective = [&](std::uint32_t t) { return log.sse[t].load() + log.regularisation[t].load(); };
  report.summary.emplace_back("ALS::RANK", std::to_string(R));
  report.summary.emplace_back("ALS::LAMBDA", format(kAlsLambda));
  report.summary.emplace_back("ALS::ITERATIONS", std::to_string(iterations));
  report.summary.emplace_back("ALS::RATINGS", std::to_string(ratings));
  report.summary.emplace_back("ALS::USERS", std::to_string(users));
  report.summary.emplace_back("ALS::ITEMS", std::to_string(items));
  report.summary.emplace_back("ALS::MIXED_VERTICES", std::to_string(mixed));
  for (std::uint32_t i = 0; i <= iterations; ++i) {
    report.summary.emplace_back("ALS::ITER" + std::to_string(i) + "::RMSE", format(rmse(2 * i)));
    report.summary.emplace_back("ALS::ITER" + std::to_string(i) + "::OBJECTIVE", format(objective(2 * i)));
  }
  report.summary.emplace_back("ALS::SSE", format(log.sse[program.last].load()));
  report.summary.emplace_back("ALS::RMSE", format(rmse(program.last)));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<AlsRating> list = als_ratings(g);
    const AlsResult expected = als_reference(g.vertices, list, static_cast<std::uint32_t>(iterations));
    ProblemList problems;
    if (ratings != list.size()) {
      problems.add("the engine saw " + std::to_string(ratings) + " ratings, the graph holds " + std::to_string(list.size()));
    }
    // The objective never increases from one half-step to the next (each minimises it exactly
    // over one block), on the engine's own measures.
    for (std::uint32_t t = 1; t <= program.last; ++t) {
      if (objective(t) > objective(t - 1) * (1.0 + kAlsTolerance) + kAlsTolerance) {
        problems.add("objective rose in half-step " + std::to_string(t) + ": " + format(objective(t - 1), 17) + " -> " +
                     format(objective(t), 17));
      }
    }
    for (std::uint32_t t = 0; t <= program.last; ++t) {
      if (!close(log.sse[t].load(), expected.sse[t]) || !close(objective(t), expected.objective[t])) {
        problems.add("half-step " + std::to_string(t) + ": SSE/objective " + format(log.sse[t].load(), 17) + "/" +
                     format(objective(t), 17) + ", reference " + format(expected.sse[t], 17) + "/" +
                     format(expected.objective[t], 17));
      }
    }
    // The final user vectors solve their normal equations given the final item vectors.
    std::vector<double> a(g.vertices * kAlsTriangle);
    std::vector<double> b(g.vertices * R);
    std::vector<std::uint32_t> n(g.vertices);
    for (const AlsRating& r : list) {
      accumulate(&a[std::size_t{r.user} * kAlsTriangle], &b[std::size_t{r.user} * R], &result.y[std::size_t{r.item} * R], r.rating);
      ++n[r.user];
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const std::string name = "vertex " + std::to_string(v);
      if (n[v] > 0) {
        double z[R];
        if (!als_solve(&a[v * kAlsTriangle], kAlsLambda * n[v], &b[v * R], z)) {
          problems.add(name + ": normal equations not positive definite");
        }
        for (unsigned j = 0; j < R; ++j) {
          if (!close(result.x[v * R + j], z[j])) {
            problems.add(name + ": user vector does not solve its normal equations (component " + std::to_string(j) +
                         ": " + format(result.x[v * R + j], 17) + " vs " + format(z[j], 17) + ")");
            break;
          }
        }
      }
      for (unsigned j = 0; j < R; ++j) {
        if (!close(result.x[v * R + j], expected.x[v * R + j]) || !close(result.y[v * R + j], expected.y[v * R + j])) {
          problems.add(name + ": vectors differ from the reference in component " + std::to_string(j) + " (x " +
                       format(result.x[v * R + j], 17) + " vs " + format(expected.x[v * R + j], 17) + ", y " +
                       format(result.y[v * R + j], 17) + " vs " + format(expected.y[v * R + j], 17) + ")");
          break;
        }
      }
    }
    set_verification(report, problems.finish(),
                     "vectors, SSE and objective equal the in-memory ALS within relative " + format(kAlsTolerance, 3) +
                         "; the objective never increases; final user vectors solve their normal equations");
  }
  return report;
}

}  // namespace edgestream
