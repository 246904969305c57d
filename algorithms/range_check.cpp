// range_check: one pass over the edge file through the engine's validation; reports the first
// record with an id >= vertices (and fails), or that every id is in range.
#include "algorithms/algorithm.hpp"
#include "algorithms/runner_support.hpp"

namespace edgestream {
namespace {

// A program with no state that emits nothing: the engine's input validation does the work.
struct RangeCheckProgram {
  struct Vertex {
    std::uint8_t unused;
  };
  struct Update {
    std::uint32_t unused;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = false;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  static constexpr bool kCheckpointable = true;  // --checkpoint: members saved as they are (core/checkpoint.hpp)
  void init(VertexId, Vertex& s) const { s.unused = 0; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge&, std::uint32_t, Emit&&) const {}
  bool gather(VertexId, Vertex&, const Update&, std::uint32_t) const { return false; }
  bool done(const SuperstepStats&) const { return true; }
};

}  // namespace

Expected<AlgorithmReport> run_range_check(const AlgorithmRequest& request) {
  // With one partition every record is checked as the input streams by; with more, the split
  // pass checks them before anything else happens.
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, RangeCheckProgram{}, [](VertexId, auto, VertexOutput&) {}));
  report.summary.emplace_back("RANGE_CHECK::EDGES_CHECKED", std::to_string(request.graph.edges));
  report.summary.emplace_back("RANGE_CHECK::OUT_OF_RANGE", "0");
  return report;
}

}  // namespace edgestream
