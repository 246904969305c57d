// The engine's hooks for multi-phase programs: direction-aware reverse edges (scatter_reverse),
// per-superstep stream selection (directions()), prepare() returning an activity flag counted in
// SuperstepStats::active, and a non-const done() that switches the program's phase. A two-phase
// program (forward BFS from a root, then backward BFS to it) must give exactly what two in-memory
// BFS give, for every partition count, thread count and I/O mode; the active counts must be right.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "core/engine.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace edgestream;
using namespace edgestream::test;

constexpr std::uint32_t kNone = UINT32_MAX;

// Phase 0: forward hop counts from `root`; phase 1: backward hop counts to `root` (along in-edges,
// read through scatter_reverse). The phase switches when a superstep changes nothing.
struct TwoWayBfs {
  struct Vertex {
    std::uint32_t forward;
    std::uint32_t backward;
  };
  struct Update {
    std::uint32_t hops;
    std::uint32_t backward;  // 0: forward phase, 1: backward phase
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kReverseEdges = true;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = true;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;

  VertexId root = 0;
  int phase = 0;
  std::uint32_t phase_start = 0;  // superstep the current phase began
  std::vector<std::uint64_t>* active_log = nullptr;  // SuperstepStats::active of every superstep
  // Scatters of the wrong direction for the phase (scatter runs on worker threads, where Catch2's
  // assertions are not thread-safe: counted here, checked after the run).
  std::atomic<std::uint64_t>* wrong_direction = nullptr;

  void init(VertexId v, Vertex& s) const { s = Vertex{v == root ? 0 : kNone, v == root ? 0 : kNone}; }
  // Active = reached in the current phase.
  bool prepare(VertexId, Vertex& s, std::uint32_t) const { return (phase == 0 ? s.forward : s.backward) != kNone; }
  StreamDirections directions(std::uint32_t) const { return phase == 0 ? StreamDirections{true, false} : StreamDirections{false, true}; }
  template <typename Emit>
  void scatter(const Vertex& src, const Edge& e, std::uint32_t s, Emit&& emit) const {
    if (phase != 0) wrong_direction->fetch_add(1);  // directions() keeps forward edges out of the backward phase
    if (src.forward == s - phase_start) emit(e.dst, Update{src.forward + 1, 0});
  }
  template <typename Emit>
  void scatter_reverse(const Vertex& dst, const Edge& e, std::uint32_t s, Emit&& emit) const {
    if (phase != 1) wrong_direction->fetch_add(1);
    if (dst.backward == s - phase_start) emit(e.src, Update{dst.backward + 1, 1});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    std::uint32_t& hops = u.backward != 0 ? s.backward : s.forward;
    if (u.hops >= hops) return false;
    hops = u.hops;
    return true;
  }
  bool done(const SuperstepStats& s) {
    if (active_log != nullptr) active_log->push_back(s.active);
    if (s.emitted != 0) return false;  // updates in flight (changed alone would miss spilled ones)
    if (phase == 1) return true;
    phase = 1;
    phase_start = s.superstep + 1;
    return false;
  }
};

std::vector<std::uint32_t> hops(const InMemoryGraph& g, VertexId root, bool backward) {
  const Csr adj = build_csr(g, backward ? CsrDirection::kIn : CsrDirection::kOut);
  std::vector<std::uint32_t> d(g.vertices, kNone);
  std::vector<VertexId> frontier{root};
  d[root] = 0;
  while (!frontier.empty()) {
    std::vector<VertexId> next;
    for (const VertexId u : frontier) {
      for (std::uint64_t i = adj.offsets[u]; i < adj.offsets[u + 1]; ++i) {
        if (d[adj.targets[i]] == kNone) {
          d[adj.targets[i]] = d[u] + 1;
          next.push_back(adj.targets[i]);
        }
      }
    }
    frontier = std::move(next);
  }
  return d;
}

}  // namespace

TEST_CASE("engine phases: reverse edges, directions, active counts and phase switches", "[engine]") {
  TempDir dir;
  const std::uint64_t V = 3000;
  std::vector<Edge> edges = random_edges(V, 7000, 11);
  const auto ini = write_graph(dir.path(), "g", edges, V);
  auto info = read_graph_ini(ini);
  REQUIRE(info.has_value());
  InMemoryGraph g{V, edges};
  // A root that reaches, and is reached from, a good part of the graph.
  VertexId root = 0;
  auto reach = [](const std::vector<std::uint32_t>& d) { return std::count_if(d.begin(), d.end(), [](auto h) { return h != kNone; }); };
  while (reach(hops(g, root, false)) < 100 || reach(hops(g, root, true)) < 100) ++root;
  const auto forward = hops(g, root, false);
  const auto backward = hops(g, root, true);
  const auto reached_forward = static_cast<std::uint64_t>(std::count_if(forward.begin(), forward.end(), [](auto h) { return h != kNone; }));
  const auto reached_backward = static_cast<std::uint64_t>(std::count_if(backward.begin(), backward.end(), [](auto h) { return h != kNone; }));
  REQUIRE(reached_forward > 100);
  REQUIRE(reached_backward > 100);

  for (const std::uint64_t k : {1, 3, 8}) {
    for (const unsigned p : {1U, 2U}) {
      for (const bool direct : {true, false}) {
        INFO("-k " << k << " -p " << p << (direct ? " direct" : " buffered"));
        EngineOptions options;
        options.threads = p;
        options.forced_partitions = k;
        options.io.direct = direct;
        options.io.read_chunk = 4096;
        options.io.write_chunk = 8192;
        options.work_dirs = {dir.path()};
        std::vector<std::uint64_t> active;
        TwoWayBfs program;
        program.root = root;
        program.active_log = &active;
        std::atomic<std::uint64_t> wrong_direction{0};
        program.wrong_direction = &wrong_direction;
        std::vector<TwoWayBfs::Vertex> result(V);
        auto stats = run_engine(*info, options, program, [&](VertexId first, std::span<const TwoWayBfs::Vertex> states) {
          std::copy(states.begin(), states.end(), result.begin() + first);
          return Status::ok();
        });
        REQUIRE(stats.has_value());
        CHECK(stats->plan.partitions == k);
        std::uint64_t wrong = 0;
        for (std::uint64_t v = 0; v < V; ++v) wrong += (result[v].forward != forward[v] || result[v].backward != backward[v]) ? 1 : 0;
        CHECK(wrong == 0);
        // The last superstep of each phase sees every vertex the phase reaches as active.
        REQUIRE(!active.empty());
        CHECK(std::find(active.begin(), active.end(), reached_forward) != active.end());
        CHECK(active.back() == reached_backward);
        // Each direction was read only in its own phase: the backward phase did not stream the
        // forward edges (counted in scatter), and the partitions' files are gone.
        CHECK(wrong_direction.load() == 0);
        CHECK(dir.entries().size() == 2);  // g and g.ini
      }
    }
  }
}
