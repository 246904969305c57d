// COST baselines: loading in vertex or Hilbert order, PageRank and union-find connectivity.
#include "benchmarks/cost_baseline.hpp"

#include <algorithm>
#include <numeric>

#include "compress/graph_input.hpp"
#include "io/file.hpp"
#include "utils/hilbert_curve.hpp"
#include "utils/radix_sort.hpp"

namespace edgestream {
namespace {

// Calls f(src, dst) for every edge of g in its stored order.
template <typename F>
void for_each_edge(const CostGraph& g, F&& f) {
  if (g.order == CostOrder::kVertex) {
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const auto u = static_cast<VertexId>(v);
      for (std::uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) f(u, g.targets[i]);
    }
  } else {
    for (std::uint64_t i = 0; i < g.edges; ++i) f(g.src[i], g.dst[i]);
  }
}

// Hilbert order from the edges' curve positions: one radix sort of the 2k-bit keys, then one decode.
CostGraph arrange_hilbert(std::uint64_t vertices, std::vector<std::uint64_t>&& keys) {
  CostGraph g;
  g.vertices = vertices;
  g.edges = keys.size();
  g.order = CostOrder::kHilbert;
  const unsigned k = hilbert_order_for(vertices);
  radix_sort_by_key(keys, 2 * k, [](std::uint64_t key) { return key; });
  g.src.resize(g.edges);
  g.dst.resize(g.edges);
  for (std::uint64_t i = 0; i < g.edges; ++i) {
    const auto [x, y] = hilbert_cell(k, keys[i]);
    g.src[i] = x;
    g.dst[i] = y;
  }
  return g;
}

CostGraph arrange(std::uint64_t vertices, std::vector<VertexId>&& src, std::vector<VertexId>&& dst, CostOrder order) {
  CostGraph g;
  g.vertices = vertices;
  g.edges = src.size();
  g.order = order;
  if (order == CostOrder::kVertex) {
    g.offsets.assign(vertices + 1, 0);
    for (const VertexId s : src) ++g.offsets[s + 1];
    for (std::uint64_t v = 0; v < vertices; ++v) g.offsets[v + 1] += g.offsets[v];
    g.targets.resize(g.edges);
    std::vector<std::uint64_t> cursor(g.offsets.begin(), g.offsets.end() - 1);
    for (std::uint64_t i = 0; i < g.edges; ++i) g.targets[cursor[src[i]]++] = dst[i];
    return g;
  }
  const unsigned k = hilbert_order_for(vertices);
  std::vector<std::uint64_t> keys(g.edges);
  for (std::uint64_t i = 0; i < g.edges; ++i) keys[i] = hilbert_index(k, src[i], dst[i]);
  std::vector<VertexId>().swap(src);
  std::vector<VertexId>().swap(dst);
  return arrange_hilbert(vertices, std::move(keys));
}

}  // namespace

const char* cost_order_name(CostOrder order) { return order == CostOrder::kVertex ? "vertex" : "hilbert"; }

Expected<CostGraph> load_cost_graph(const GraphInfo& graph, CostOrder order) {
  // Vertex order keeps src/dst for the counting sort; Hilbert order keeps only the curve positions,
  // computed while reading (8 B per edge instead of 16 before the sort).
  const bool hilbert = order == CostOrder::kHilbert;
  const unsigned k = hilbert_order_for(graph.vertices);
  std::vector<VertexId> src(hilbert ? 0 : graph.edges);
  std::vector<VertexId> dst(hilbert ? 0 : graph.edges);
  std::vector<std::uint64_t> keys(hilbert ? graph.edges : 0);
  ES_ASSIGN_OR_RETURN(auto file, InputEdgeReader::open(graph));  // raw or compressed (compress/graph_input.hpp)
  const std::size_t rs = graph.record_size();
  constexpr std::uint64_t kBatch = 1 << 18;
  std::vector<std::byte> buffer(rs * kBatch);
  for (std::uint64_t index = 0; index < graph.edges;) {
    const std::uint64_t n = std::min<std::uint64_t>(kBatch, graph.edges - index);
    ES_ASSIGN_OR_RETURN(const std::size_t got, file->read(std::span(buffer.data(), n * rs)));
    if (got != n * rs) {
      return corruption("edge file " + graph.edge_path.string() + " ended early: record " + std::to_string(index + got / rs) +
                        " of the " + std::to_string(graph.edges) + " its .ini announces is missing");
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      const Edge e = decode_edge(buffer.data() + i * rs, graph.type);
      if (e.src >= graph.vertices || e.dst >= graph.vertices) {
        return bad_input("edge file " + graph.edge_path.string() + ": record " + std::to_string(index + i) + " (byte offset " +
                         std::to_string((index + i) * rs) + ") has an id >= vertices=" + std::to_string(graph.vertices) + (graph.framed() ? " (decoded stream)" : ""));
      }
      if (hilbert) {
        keys[index + i] = hilbert_index(k, e.src, e.dst);
      } else {
        src[index + i] = e.src;
        dst[index + i] = e.dst;
      }
    }
    index += n;
  }
  if (hilbert) return arrange_hilbert(graph.vertices, std::move(keys));
  return arrange(graph.vertices, std::move(src), std::move(dst), order);
}

CostGraph make_cost_graph(std::uint64_t vertices, const std::vector<Edge>& edges, CostOrder order) {
  std::vector<VertexId> src(edges.size());
  std::vector<VertexId> dst(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    src[i] = edges[i].src;
    dst[i] = edges[i].dst;
  }
  return arrange(vertices, std::move(src), std::move(dst), order);
}

std::vector<float> cost_pagerank(const CostGraph& g, std::uint32_t iterations) {
  const std::uint64_t n = g.vertices;
  std::vector<std::uint32_t> degree(n, 0);
  if (g.order == CostOrder::kVertex) {
    for (std::uint64_t v = 0; v < n; ++v) degree[v] = static_cast<std::uint32_t>(g.offsets[v + 1] - g.offsets[v]);
  } else {
    for (const VertexId s : g.src) ++degree[s];
  }
  std::vector<float> rank(n, 1.0F);
  std::vector<float> contribution(n);  // rank / out-degree, in float like the engine's updates
  std::vector<double> sum(n);
  for (std::uint32_t it = 0; it < iterations; ++it) {
    for (std::uint64_t v = 0; v < n; ++v) contribution[v] = degree[v] != 0 ? rank[v] / static_cast<float>(degree[v]) : 0.0F;
    std::fill(sum.begin(), sum.end(), 0.0);
    if (g.order == CostOrder::kVertex) {
      for (std::uint64_t v = 0; v < n; ++v) {
        const double c = contribution[v];
        for (std::uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) sum[g.targets[i]] += c;
      }
    } else {
      const VertexId* src = g.src.data();
      const VertexId* dst = g.dst.data();
      for (std::uint64_t i = 0; i < g.edges; ++i) sum[dst[i]] += contribution[src[i]];
    }
    for (std::uint64_t v = 0; v < n; ++v) rank[v] = static_cast<float>(0.15 + 0.85 * sum[v]);
  }
  return rank;
}

std::vector<VertexId> cost_connected_components(const CostGraph& g) {
  const std::uint64_t n = g.vertices;
  std::vector<VertexId> parent(n);
  std::iota(parent.begin(), parent.end(), VertexId{0});
  std::vector<std::uint8_t> rank(n, 0);
  auto find = [&](VertexId v) {
    while (parent[v] != v) {
      parent[v] = parent[parent[v]];  // path halving
      v = parent[v];
    }
    return v;
  };
  for_each_edge(g, [&](VertexId a, VertexId b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (rank[a] < rank[b]) std::swap(a, b);
    parent[b] = a;  // union by rank
    if (rank[a] == rank[b]) ++rank[a];
  });
  // Label each component by its smallest id: scanning ids upwards, the first member seen is it.
  constexpr VertexId kUnset = ~VertexId{0};
  std::vector<VertexId> smallest(n, kUnset);
  std::vector<VertexId> label(n);
  for (std::uint64_t v = 0; v < n; ++v) {
    const VertexId root = find(static_cast<VertexId>(v));
    if (smallest[root] == kUnset) smallest[root] = static_cast<VertexId>(v);
    label[v] = smallest[root];
  }
  return label;
}

}  // namespace edgestream
