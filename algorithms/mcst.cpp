// Minimum spanning forest runner (-b mcst): Borůvka rounds on the engine (McstProgram), the
// recorded forest edges written to a scratch graph, a second engine pass rooting every tree at its
// smallest id (McstOrientProgram); output = parent edge weight (-1 for roots). Also the reference
// (Kruskal with union-find) and the verifier.
#include "algorithms/mcst.hpp"

#include <cmath>
#include <cstdio>
#include <tuple>
#include <numeric>

#include "algorithms/cc.hpp"
#include "algorithms/engine_instances.hpp"
#include "algorithms/runner_support.hpp"

namespace edgestream {

std::vector<McstEdge> mcst_kruskal(const InMemoryGraph& g) {
  std::vector<std::uint64_t> order;
  order.reserve(g.edges.size());
  for (std::uint64_t i = 0; i < g.edges.size(); ++i) {
    if (g.edges[i].src != g.edges[i].dst) order.push_back(i);
  }
  auto key = [&](std::uint64_t i) { return mcst_edge_key(g.edges[i].weight, g.edges[i].src, g.edges[i].dst); };
  std::sort(order.begin(), order.end(), [&](std::uint64_t x, std::uint64_t y) { return key(x) < key(y); });
  std::vector<VertexId> parent(g.vertices);
  std::iota(parent.begin(), parent.end(), 0U);
  auto find = [&](VertexId v) {
    while (parent[v] != v) {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
    return v;
  };
  std::vector<McstEdge> forest;
  for (const std::uint64_t i : order) {
    const Edge& e = g.edges[i];
    const VertexId a = find(e.src);
    const VertexId b = find(e.dst);
    if (a == b) continue;
    parent[std::max(a, b)] = std::min(a, b);
    forest.push_back(McstEdge{std::min(e.src, e.dst), std::max(e.src, e.dst), e.weight});
  }
  return forest;
}

std::vector<float> mcst_parent_weights(std::uint64_t vertices, const std::vector<McstEdge>& forest,
                                       std::vector<VertexId>* parent_out) {
  InMemoryGraph tree{vertices, {}};
  tree.edges.reserve(forest.size());
  for (const McstEdge& e : forest) tree.edges.push_back(Edge{e.a, e.b, e.weight});
  const Csr adj = build_csr(tree, CsrDirection::kBoth);
  std::vector<float> weight(vertices, -1.0F);
  std::vector<VertexId> parent(vertices, McstProgram::kNone);
  std::vector<VertexId> queue;
  for (std::uint64_t root = 0; root < vertices; ++root) {
    if (parent[root] != McstProgram::kNone) continue;
    parent[root] = static_cast<VertexId>(root);
    queue.assign(1, static_cast<VertexId>(root));
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const VertexId u = queue[head];
      for (std::uint64_t i = adj.offsets[u]; i < adj.offsets[u + 1]; ++i) {
        const VertexId x = adj.targets[i];
        if (parent[x] != McstProgram::kNone) continue;
        parent[x] = u;
        weight[x] = adj.weights[i];
        queue.push_back(x);
      }
    }
  }
  if (parent_out != nullptr) *parent_out = std::move(parent);
  return weight;
}

namespace {

std::string format_double(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string edge_name(VertexId a, VertexId b, float w) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%u-%u (weight %.9g)", a, b, static_cast<double>(w));
  return buffer;
}

// Adds the second engine pass to the first one's statistics (its scratch input counts as edges).
void add_stats(RunStats& into, const RunStats& more) {
  const std::uint64_t offset = into.supersteps;
  into.supersteps += more.supersteps;
  into.setup_seconds += more.setup_seconds;
  into.engine_seconds += more.engine_seconds;
  into.edges_io += more.input_io;
  into.edges_io += more.edges_io;
  into.updates_io += more.updates_io;
  into.vertices_io += more.vertices_io;
  into.updates_emitted += more.updates_emitted;
  into.updates_in_memory += more.updates_in_memory;
  into.updates_spilled += more.updates_spilled;
  into.peak_rss = std::max(into.peak_rss, more.peak_rss);
  for (SuperstepStats s : more.per_superstep) {
    s.superstep += static_cast<std::uint32_t>(offset);
    into.per_superstep.push_back(s);
  }
}

// Properties of the engine's forest (parents and weights) checked against the graph, then
// equality with Kruskal's forest (unique under the total edge order).
void verify(const InMemoryGraph& g, const std::vector<VertexId>& parent, const std::vector<float>& weight, double total,
            AlgorithmReport& report) {
  const std::uint64_t V = g.vertices;
  ProblemList problems;
  const std::vector<VertexId> wcc = cc_reference(g);
  // Every parent edge is an edge of the graph with that weight.
  std::vector<std::tuple<VertexId, VertexId, std::uint32_t>> edges;
  edges.reserve(g.edges.size());
  for (const Edge& e : g.edges) {
    if (e.src != e.dst) edges.emplace_back(std::min(e.src, e.dst), std::max(e.src, e.dst), mcst_weight_key(e.weight));
  }
  std::sort(edges.begin(), edges.end());
  std::uint64_t forest_edges = 0;
  std::uint64_t components = 0;
  for (std::uint64_t v = 0; v < V; ++v) {
    const VertexId p = parent[v];
    components += wcc[v] == v ? 1 : 0;
    if (p == v) {
      if (wcc[v] != v) problems.add("vertex " + std::to_string(v) + " is a root but not its component's smallest id");
      continue;
    }
    ++forest_edges;
    if (p >= V) {
      problems.add("vertex " + std::to_string(v) + " has parent " + std::to_string(p) + " out of range");
      continue;
    }
    const VertexId a = std::min(static_cast<VertexId>(v), p);
    const VertexId b = std::max(static_cast<VertexId>(v), p);
    if (!std::binary_search(edges.begin(), edges.end(), std::make_tuple(a, b, mcst_weight_key(weight[v])))) {
      problems.add("parent edge " + edge_name(static_cast<VertexId>(v), p, weight[v]) + " is not an edge of the graph");
    }
  }
  if (forest_edges != V - components) {
    problems.add(std::to_string(forest_edges) + " forest edges, expected V - components = " + std::to_string(V - components));
  }
  // Acyclic: following parents from any vertex reaches a root.
  std::vector<std::uint8_t> state(V, 0);  // 0 unseen, 1 on the current path, 2 reaches a root
  std::vector<VertexId> path;
  for (std::uint64_t start = 0; start < V && problems.empty(); ++start) {
    VertexId v = static_cast<VertexId>(start);
    path.clear();
    while (state[v] == 0 && parent[v] != v) {
      state[v] = 1;
      path.push_back(v);
      v = parent[v];
    }
    if (state[v] == 1) problems.add("parent pointers form a cycle through vertex " + std::to_string(v));
    for (const VertexId x : path) state[x] = 2;
    state[v] = 2;
  }
  // Equality with the reference.
  std::vector<VertexId> ref_parent;
  const std::vector<float> ref_weight = mcst_parent_weights(V, mcst_kruskal(g), &ref_parent);
  double ref_total = 0.0;
  for (std::uint64_t v = 0; v < V; ++v) {
    if (ref_parent[v] != v) ref_total += static_cast<double>(ref_weight[v]);
    if (ref_parent[v] != parent[v] || mcst_weight_key(ref_weight[v]) != mcst_weight_key(weight[v])) {
      problems.add("vertex " + std::to_string(v) + ": parent edge " + edge_name(static_cast<VertexId>(v), parent[v], weight[v]) +
                   ", Kruskal " + edge_name(static_cast<VertexId>(v), ref_parent[v], ref_weight[v]));
    }
  }
  if (!(ref_total == total) && !(std::isnan(ref_total) && std::isnan(total))) {
    problems.add("total weight " + format_double(total) + ", Kruskal " + format_double(ref_total));
  }
  set_verification(report, problems.finish(),
                   "parent edges are graph edges forming an acyclic forest rooted at each component's smallest id; "
                   "forest and total weight equal Kruskal's");
}

}  // namespace

Expected<AlgorithmReport> run_mcst(const AlgorithmRequest& request) {
  const GraphInfo& graph = request.graph;
  const std::uint64_t V = graph.vertices;
  if (V > std::uint64_t{McstProgram::kViaHook}) {
    return invalid_argument("-b mcst supports at most " + std::to_string(McstProgram::kViaHook) + " vertices; " +
                            graph.ini_path.string() + " has " + std::to_string(V));
  }
  VertexOutput output;
  ES_RETURN_IF_ERROR(output.open(request.output));

  // Scratch graph for the forest edges, on the run's scratch volume.
  std::vector<std::filesystem::path> volumes = request.engine.work_dirs;
  if (volumes.empty()) volumes = graph.volumes;
  if (volumes.empty()) volumes.push_back(graph.edge_path.parent_path().empty() ? "." : graph.edge_path.parent_path());
  ES_ASSIGN_OR_RETURN(ScratchDirectory scratch, ScratchDirectory::create(volumes));
  GraphInfo forest;
  forest.name = "mcst_forest";
  forest.edge_path = scratch.file(forest.name);
  forest.ini_path = scratch.file(forest.name + ".ini");
  forest.type = EdgeFileType::kWeighted;
  forest.vertices = V;

  // Pass 1: Borůvka rounds; each vertex that stopped being a root holds one forest edge.
  AlgorithmReport report;
  McstLog log;
  McstProgram boruvka;
  boruvka.log = &log;
  std::uint64_t boruvka_roots = 0;
  IoCounters forest_write;
  {
    ES_ASSIGN_OR_RETURN(File file, File::open(forest.edge_path, OpenMode::kCreate, request.engine.io.direct));
    IoOptions io = request.engine.io;
    io.depth = 1;  // a small writer: the engine's plan does not know about it
    io.write_chunk = std::min<std::size_t>(io.write_chunk, std::size_t{1} << 20);
    ES_ASSIGN_OR_RETURN(auto writer, SequentialWriter::open(file, io, &forest_write));
    FinalStateVisitor<McstProgram::Vertex> visit = [&](VertexId first, std::span<const McstProgram::Vertex> states) -> Status {
      std::byte record[12];
      for (std::size_t i = 0; i < states.size(); ++i) {
        const McstProgram::Vertex& s = states[i];
        const VertexId v = first + static_cast<VertexId>(i);
        if (s.comp == v) ++boruvka_roots;
        if (s.record_a == McstProgram::kNone) continue;
        encode_edge(record, Edge{s.record_a, s.record_b, s.record_weight}, EdgeFileType::kWeighted);
        ES_RETURN_IF_ERROR(writer->append(std::span<const std::byte>(record, sizeof record)));
        ++forest.edges;
      }
      return Status::ok();
    };
    ES_ASSIGN_OR_RETURN(report.stats, run_engine(graph, request.engine, boruvka, visit));
    ES_RETURN_IF_ERROR(writer->finish());
  }
  if (forest.edges + boruvka_roots != V) {
    return internal_error("mcst: " + std::to_string(forest.edges) + " recorded forest edges and " +
                          std::to_string(boruvka_roots) + " roots do not add up to " + std::to_string(V) + " vertices");
  }

  // Pass 2: root every tree at its smallest id; output and total weight in vertex order.
  std::vector<VertexId> parents;
  std::vector<float> weights;
  if (request.verify) {
    parents.resize(V);
    weights.resize(V);
  }
  double total = 0.0;
  std::uint64_t trees = 0;
  FinalStateVisitor<McstOrientProgram::Vertex> visit = [&](VertexId first, std::span<const McstOrientProgram::Vertex> states) -> Status {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const McstOrientProgram::Vertex& s = states[i];
      const VertexId v = first + static_cast<VertexId>(i);
      const bool root = s.label == v;
      const float w = root ? -1.0F : s.parent_weight;
      if (root) {
        ++trees;
      } else {
        total += static_cast<double>(s.parent_weight);
      }
      if (!parents.empty()) {
        parents[v] = root ? v : s.parent;
        weights[v] = w;
      }
      if (output.active()) {
        output.begin_line(v);
        output.add(w);
        output.end_line();
      }
    }
    return Status::ok();
  };
  ES_ASSIGN_OR_RETURN(const RunStats orient_stats, run_engine(forest, request.engine, McstOrientProgram{}, visit));
  scratch.remove();
  add_stats(report.stats, orient_stats);
  report.stats.edges_io += forest_write;
  if (trees != boruvka_roots) {
    return internal_error("mcst: rooting found " + std::to_string(trees) + " trees, Borůvka " + std::to_string(boruvka_roots));
  }
  ES_RETURN_IF_ERROR(output.commit());

  report.summary.emplace_back("MCST::WEIGHT", format_double(total));
  report.summary.emplace_back("MCST::TREES", std::to_string(trees));
  report.summary.emplace_back("MCST::EDGES", std::to_string(V - trees));
  report.summary.emplace_back("MCST::ROUNDS", std::to_string(log.rounds));
  report.summary.emplace_back("MCST::RELABEL_SUPERSTEPS", std::to_string(log.relabel_supersteps));
  report.summary.emplace_back("MCST::ORIENT_SUPERSTEPS", std::to_string(orient_stats.supersteps));
  // X-Stream's own lines, for scripts that parse them.
  report.summary.emplace_back("TREE_EDGES", std::to_string(V - trees));
  report.summary.emplace_back("CC_COUNT", std::to_string(trees));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(graph));
    verify(g, parents, weights, total, report);
  }
  return report;
}

// The one instantiation of the engine for McstProgram (algorithms/engine_instances.hpp declares it extern).
template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const McstProgram&,
                                       const FinalStateVisitor<McstProgram::Vertex>&);

}  // namespace edgestream
