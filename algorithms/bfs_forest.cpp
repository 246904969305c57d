// bfs_forest runner (output: root, level), reference and verifier (forest properties + equality).
#include "algorithms/bfs_forest.hpp"

#include <algorithm>

namespace edgestream {

ForestRoots bfs_forest_reference(const InMemoryGraph& g) {
  const Csr out = build_csr(g, CsrDirection::kOut);
  constexpr VertexId kNone = UINT32_MAX;
  ForestRoots f;
  f.root.assign(g.vertices, kNone);
  f.level.assign(g.vertices, 0);
  std::vector<VertexId> frontier;
  std::vector<VertexId> next;
  for (std::uint64_t r = 0; r < g.vertices; ++r) {
    if (f.root[r] != kNone) continue;
    const auto root = static_cast<VertexId>(r);
    f.root[r] = root;
    frontier.assign(1, root);
    for (std::uint32_t level = 0; !frontier.empty(); ++level) {
      next.clear();
      for (const VertexId u : frontier) {
        for (std::uint64_t i = out.offsets[u]; i < out.offsets[u + 1]; ++i) {
          const VertexId v = out.targets[i];
          if (f.root[v] != kNone) continue;
          f.root[v] = root;
          f.level[v] = level + 1;
          next.push_back(v);
        }
      }
      frontier.swap(next);
    }
  }
  return f;
}

void check_forest_roots(const InMemoryGraph& g, const std::vector<VertexId>& root, ProblemList& problems) {
  for (std::uint64_t v = 0; v < g.vertices; ++v) {
    if (root[v] > v) problems.add("vertex " + std::to_string(v) + " has root " + std::to_string(root[v]) + " > itself");
  }
  for (const Edge& e : g.edges) {
    if (root[e.dst] > root[e.src]) {
      problems.add("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) + ": root " +
                   std::to_string(root[e.src]) + " reaches " + std::to_string(e.dst) + " whose root is " +
                   std::to_string(root[e.dst]));
    }
  }
}

Expected<AlgorithmReport> run_bfs_forest(const AlgorithmRequest& request) {
  BfsForestProgram program;
  ForestRoots result;
  if (request.verify) {
    result.root.resize(request.graph.vertices);
    result.level.resize(request.graph.vertices);
  }
  std::uint64_t trees = 0;
  std::uint32_t depth = 0;
  std::uint64_t tree0 = 0;  // vertices reached from vertex 0
  auto on_partition = [&](VertexId first, std::span<const BfsForestProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      trees += states[i].root == v ? 1 : 0;
      tree0 += states[i].root == 0 ? 1 : 0;
      depth = std::max(depth, states[i].level);
      if (!result.root.empty()) {
        result.root[v] = states[i].root;
        result.level[v] = states[i].level;
      }
      if (out.active()) {
        out.begin_line(v);
        out.add_unsigned(states[i].root);
        out.add_unsigned(states[i].level);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  report.summary.emplace_back("BFS_FOREST::TREES", std::to_string(trees));
  report.summary.emplace_back("BFS_FOREST::TREE0_VERTICES", std::to_string(tree0));
  report.summary.emplace_back("BFS_FOREST::DEPTH", std::to_string(depth));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    ProblemList problems;
    check_forest_roots(g, result.root, problems);
    // Levels: roots at 0; no edge inside a tree skips a level; every non-root has an in-neighbour
    // of its tree exactly one level up.
    std::vector<std::uint8_t> supported(g.vertices, 0);
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (result.root[v] == v) {
        supported[v] = 1;
        if (result.level[v] != 0) problems.add("root " + std::to_string(v) + " has level " + std::to_string(result.level[v]));
      }
    }
    for (const Edge& e : g.edges) {
      if (result.root[e.src] != result.root[e.dst]) continue;
      const std::uint64_t lu = result.level[e.src];
      const std::uint64_t lv = result.level[e.dst];
      if (lv > lu + 1) {
        problems.add("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) + " spans levels " +
                     std::to_string(lu) + " -> " + std::to_string(lv));
      }
      if (lv == lu + 1) supported[e.dst] = 1;
    }
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (supported[v] == 0) problems.add("vertex " + std::to_string(v) + " has no in-neighbour of its tree one level up");
    }
    const ForestRoots expected = bfs_forest_reference(g);
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      if (result.root[v] != expected.root[v] || result.level[v] != expected.level[v]) {
        problems.add("vertex " + std::to_string(v) + ": root/level " + std::to_string(result.root[v]) + "/" +
                     std::to_string(result.level[v]) + ", reference " + std::to_string(expected.root[v]) + "/" +
                     std::to_string(expected.level[v]));
      }
    }
    set_verification(report, problems.finish(),
                     "roots minimal (root <= vertex, never increasing along an edge); every non-root one level below an "
                     "in-neighbour of its tree, no edge skips a level; equal to the reference");
  }
  return report;
}

}  // namespace edgestream
