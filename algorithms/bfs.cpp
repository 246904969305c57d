// BFS runner (output: level, parent), reference and verifier (tree properties + equality).
#include "algorithms/bfs.hpp"

#include <algorithm>

#include "algorithms/runner_support.hpp"

namespace edgestream {

BfsResult bfs_reference(const InMemoryGraph& g, VertexId root) {
  const Csr out = build_csr(g, CsrDirection::kOut);
  BfsResult r;
  r.level.assign(g.vertices, -1);
  r.parent.assign(g.vertices, -1);
  if (root >= g.vertices) return r;
  std::vector<VertexId> frontier{root};
  r.level[root] = 0;
  r.parent[root] = root;
  for (std::int64_t level = 0; !frontier.empty(); ++level) {
    std::vector<VertexId> next;
    for (const VertexId u : frontier) {
      for (std::uint64_t i = out.offsets[u]; i < out.offsets[u + 1]; ++i) {
        const VertexId v = out.targets[i];
        if (r.level[v] == -1) {
          r.level[v] = level + 1;
          r.parent[v] = u;
          next.push_back(v);
        } else if (r.level[v] == level + 1 && u < r.parent[v]) {
          r.parent[v] = u;
        }
      }
    }
    frontier = std::move(next);
  }
  return r;
}

Expected<AlgorithmReport> run_bfs(const AlgorithmRequest& request) {
  if (request.params.bfs_root >= request.graph.vertices) {
    return invalid_argument("--bfs::root " + std::to_string(request.params.bfs_root) + " is not a vertex of " +
                            request.graph.ini_path.string() + " (it has " + std::to_string(request.graph.vertices) +
                            " vertices)");
  }
  BfsProgram program;
  program.root = static_cast<VertexId>(request.params.bfs_root);
  BfsResult result;
  if (request.verify) {
    result.level.resize(request.graph.vertices);
    result.parent.resize(request.graph.vertices);
  }
  std::uint64_t reached = 0;
  std::int64_t depth = 0;
  auto on_partition = [&](VertexId first, std::span<const BfsProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const bool hit = states[i].level != BfsProgram::kUnreached;
      const std::int64_t level = hit ? static_cast<std::int64_t>(states[i].level) : std::int64_t{-1};
      const std::int64_t parent = hit ? static_cast<std::int64_t>(states[i].parent) : std::int64_t{-1};
      reached += hit ? 1 : 0;
      depth = std::max(depth, level);
      if (!result.level.empty()) {
        result.level[v] = level;
        result.parent[v] = parent;
      }
      if (out.active()) {
        out.begin_line(v);
        out.add(level);
        out.add(parent);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("BFS::ROOT", std::to_string(program.root));
  report.summary.emplace_back("BFS::REACHED", std::to_string(reached));
  report.summary.emplace_back("BFS::DEPTH", std::to_string(depth));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const BfsResult expected = bfs_reference(g, program.root);
    ProblemList problems;
    // Tree properties, checked on the engine's own result: every reached non-root vertex has a
    // parent one level up with an edge parent -> vertex; no edge skips a level downwards.
    for (const Edge& e : g.edges) {
      const std::int64_t lu = result.level[e.src];
      const std::int64_t lv = result.level[e.dst];
      if (lu >= 0 && (lv < 0 || lv > lu + 1)) {
        problems.add("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) + " spans levels " +
                     std::to_string(lu) + " -> " + std::to_string(lv));
      }
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (result.level[v] != expected.level[v] || result.parent[v] != expected.parent[v]) {
        problems.add("vertex " + std::to_string(v) + ": level/parent " + std::to_string(result.level[v]) + "/" +
                     std::to_string(result.parent[v]) + ", reference " + std::to_string(expected.level[v]) + "/" +
                     std::to_string(expected.parent[v]));
      }
    }
    set_verification(report, problems.finish(), "levels and parents equal the reference BFS; no edge skips a level");
  }
  return report;
}

}  // namespace edgestream
