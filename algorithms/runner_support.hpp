// Shared plumbing of the algorithm runners: run a program on the engine while streaming its final
// states to a per-partition callback, with --output opened before and committed after.
#pragma once

#include <span>

#include "algorithms/algorithm.hpp"
#include "core/engine.hpp"
#include "core/vertex_output.hpp"

namespace edgestream {

/// Runs `program`; `on_partition(first, states, output)` sees every final state in id order and
/// may write output lines. The output file is committed only when everything succeeded.
template <EdgeProgram P, typename OnPartition>
Expected<RunStats> run_program(const AlgorithmRequest& request, const P& program, OnPartition&& on_partition) {
  VertexOutput output;
  ES_RETURN_IF_ERROR(output.open(request.output));
  FinalStateVisitor<typename P::Vertex> visit = [&](VertexId first, std::span<const typename P::Vertex> states) {
    on_partition(first, states, output);
    return Status::ok();
  };
  ES_ASSIGN_OR_RETURN(RunStats stats, run_engine(request.graph, request.engine, program, visit));
  ES_RETURN_IF_ERROR(output.commit());
  return stats;
}

/// Sets report.verified/verification_detail from a list of problems (empty = PASS).
void set_verification(AlgorithmReport& report, const std::vector<std::string>& problems, const std::string& checked);

/// Collects at most `limit` problem descriptions (the first ones) and counts the rest.
class ProblemList {
 public:
  explicit ProblemList(std::size_t limit = 5) : limit_(limit) {}
  void add(const std::string& problem) {
    if (problems_.size() < limit_) problems_.push_back(problem);
    ++count_;
  }
  std::vector<std::string> finish() const {
    std::vector<std::string> out = problems_;
    if (count_ > problems_.size()) out.push_back("... and " + std::to_string(count_ - problems_.size()) + " more");
    return out;
  }
  bool empty() const { return count_ == 0; }

 private:
  std::size_t limit_;
  std::vector<std::string> problems_;
  std::size_t count_ = 0;
};

}  // namespace edgestream
