// SCC runner (output: label = smallest id of the SCC), the sizes pass, the reference (iterative
// Tarjan) and the verifier.
//
// The sizes (ALGORITHM::SCC::LARGEST) are counted out of core too: while the final labels stream
// by, every vertex that is not its SCC's smallest id writes one record "v -> label" into a scratch
// edge file; a one-superstep engine pass then counts the in-degree of every label (its SCC size
// minus one) within the same memory budget. No per-vertex table is held outside the engine.
#include "algorithms/scc.hpp"

#include <algorithm>
#include <cstring>

#include "algorithms/engine_instances.hpp"
#include "algorithms/runner_support.hpp"
#include "core/scratch_directory.hpp"
#include "io/file.hpp"

namespace edgestream {

std::vector<VertexId> scc_reference(const InMemoryGraph& g) {
  const Csr out = build_csr(g, CsrDirection::kOut);
  const std::uint64_t n = g.vertices;
  constexpr std::uint32_t kUnvisited = UINT32_MAX;
  std::vector<std::uint32_t> index(n, kUnvisited);
  std::vector<std::uint32_t> low(n, 0);
  std::vector<std::uint8_t> on_stack(n, 0);
  std::vector<VertexId> label(n, 0);
  std::vector<VertexId> stack;                                       // Tarjan's vertex stack
  std::vector<std::pair<VertexId, std::uint64_t>> call;              // (vertex, next edge) = the recursion
  std::uint32_t next_index = 0;
  for (std::uint64_t root = 0; root < n; ++root) {
    if (index[root] != kUnvisited) continue;
    call.emplace_back(static_cast<VertexId>(root), out.offsets[root]);
    index[root] = low[root] = next_index++;
    stack.push_back(static_cast<VertexId>(root));
    on_stack[root] = 1;
    while (!call.empty()) {
      auto& [v, edge] = call.back();
      if (edge < out.offsets[v + 1]) {
        const VertexId w = out.targets[edge++];
        if (index[w] == kUnvisited) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          on_stack[w] = 1;
          call.emplace_back(w, out.offsets[w]);
        } else if (on_stack[w] != 0) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const VertexId done = v;
      call.pop_back();
      if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[done]);
      if (low[done] != index[done]) continue;
      // `done` roots an SCC: pop it, label with its smallest id.
      const auto begin = std::find(stack.rbegin(), stack.rend(), done).base() - 1;
      const VertexId smallest = *std::min_element(begin, stack.end());
      for (auto it = begin; it != stack.end(); ++it) {
        label[*it] = smallest;
        on_stack[*it] = 0;
      }
      stack.erase(begin, stack.end());
    }
  }
  return label;
}

namespace {

// Counts, for every vertex, the records that point at it (one superstep).
struct InDegreeProgram {
  struct Vertex {
    std::uint32_t count;
  };
  struct Update {
    std::uint32_t count;
  };
  static constexpr bool kUndirected = false;
  static constexpr bool kCombinable = true;
  static constexpr bool kHasPrepare = false;
  static constexpr bool kNonNegativeWeights = false;
  static constexpr unsigned kMaxEmitsPerEdge = 1;
  void init(VertexId, Vertex& s) const { s.count = 0; }
  template <typename Emit>
  void scatter(const Vertex&, const Edge& e, std::uint32_t, Emit&& emit) const {
    emit(e.dst, Update{1});
  }
  bool gather(VertexId, Vertex& s, const Update& u, std::uint32_t) const {
    s.count += u.count;
    return true;
  }
  static void combine(Update& into, const Update& from) { into.count += from.count; }
  bool done(const SuperstepStats&) const { return true; }
};

// Appends type-2 records to a scratch file through a 1 MiB buffer.
class RecordWriter {
 public:
  Status open(const std::filesystem::path& path) {
    ES_ASSIGN_OR_RETURN(file_, File::open(path, OpenMode::kCreate, /*direct=*/false));
    buffer_.resize(std::size_t{1} << 20);
    return Status::ok();
  }
  void add(VertexId src, VertexId dst) {
    if (!status_.is_ok()) return;
    if (used_ + 8 > buffer_.size()) flush();
    encode_edge(buffer_.data() + used_, Edge{src, dst, 1.0F}, EdgeFileType::kUnweighted);
    used_ += 8;
    ++records_;
  }
  Status finish() {
    flush();
    return status_;
  }
  std::uint64_t records() const { return records_; }

 private:
  void flush() {
    if (used_ == 0 || !status_.is_ok()) return;
    status_ = file_.write_at(offset_, std::span<const std::byte>(buffer_.data(), used_));
    offset_ += used_;
    used_ = 0;
  }
  File file_;
  std::vector<std::byte> buffer_;
  std::size_t used_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t records_ = 0;
  Status status_;
};

}  // namespace

Expected<AlgorithmReport> run_scc(const AlgorithmRequest& request) {
  std::vector<std::filesystem::path> volumes = request.engine.work_dirs;
  if (volumes.empty()) volumes = request.graph.volumes;
  if (volumes.empty()) {
    volumes.push_back(request.graph.edge_path.parent_path().empty() ? "." : request.graph.edge_path.parent_path());
  }
  ES_ASSIGN_OR_RETURN(ScratchDirectory scratch, ScratchDirectory::create(volumes));
  const std::filesystem::path members_path = scratch.file("scc-members");
  RecordWriter members;
  ES_RETURN_IF_ERROR(members.open(members_path));

  std::uint32_t rounds = 0;
  SccProgram program;
  program.rounds_out = &rounds;
  std::vector<VertexId> labels;
  if (request.verify) labels.resize(request.graph.vertices);
  std::uint64_t components = 0;
  bool unassigned = false;
  auto on_partition = [&](VertexId first, std::span<const SccProgram::Vertex> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      const VertexId v = first + static_cast<VertexId>(i);
      const VertexId label = states[i].fw;
      unassigned |= states[i].cls != SccProgram::kAssigned;
      if (label == v) {
        ++components;
      } else {
        members.add(v, label);
      }
      if (!labels.empty()) labels[v] = label;
      if (out.active()) {
        out.begin_line(v);
        out.add_unsigned(label);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  ES_RETURN_IF_ERROR(members.finish());
  if (unassigned) return Status{StatusCode::kInternal, "scc: the engine stopped with vertices unassigned"};

  // Sizes: one pass over the "member -> label" records.
  std::uint64_t largest = request.graph.vertices > 0 ? 1 : 0;
  if (members.records() > 0) {
    GraphInfo sizes_graph;
    sizes_graph.ini_path = scratch.file("scc-members.ini");
    sizes_graph.name = "scc-members";
    sizes_graph.edge_path = members_path;
    sizes_graph.type = EdgeFileType::kUnweighted;
    sizes_graph.vertices = request.graph.vertices;
    sizes_graph.edges = members.records();
    EngineOptions options = request.engine;
    options.work_dirs = scratch.directories();
    std::uint32_t most_members = 0;
    FinalStateVisitor<InDegreeProgram::Vertex> visit = [&](VertexId, std::span<const InDegreeProgram::Vertex> states) {
      for (const auto& s : states) most_members = std::max(most_members, s.count);
      return Status::ok();
    };
    ES_ASSIGN_OR_RETURN(const RunStats sizes_stats, run_engine(sizes_graph, options, InDegreeProgram{}, visit));
    largest = std::uint64_t{most_members} + 1;
    report.stats.supersteps += sizes_stats.supersteps;
  }
  scratch.remove();

  report.summary.emplace_back("SCC::COMPONENTS", std::to_string(components));
  report.summary.emplace_back("SCC::LARGEST", std::to_string(largest));
  report.summary.emplace_back("SCC::ROUNDS", std::to_string(rounds));
  report.summary.emplace_back("SCC_COUNT", std::to_string(components));  // X-Stream's line
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const std::vector<VertexId> expected = scc_reference(g);
    ProblemList problems;
    std::vector<std::uint64_t> size(g.vertices, 0);
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      const VertexId l = labels[v];
      // Properties of the engine's own labels: a label is a vertex of its own SCC and its smallest.
      if (l > v || labels[l] != l) {
        problems.add("vertex " + std::to_string(v) + ": label " + std::to_string(l) + " is not a smallest-id root");
        continue;
      }
      ++size[l];
      if (l != expected[v]) {
        problems.add("vertex " + std::to_string(v) + ": label " + std::to_string(l) + ", Tarjan " + std::to_string(expected[v]));
      }
    }
    std::uint64_t expected_components = 0;
    for (std::uint64_t v = 0; v < g.vertices; ++v) expected_components += expected[v] == v ? 1 : 0;
    const std::uint64_t expected_largest = g.vertices == 0 ? 0 : *std::max_element(size.begin(), size.end());
    if (components != expected_components) {
      problems.add("SCC::COMPONENTS " + std::to_string(components) + ", Tarjan " + std::to_string(expected_components));
    }
    if (largest != expected_largest) {
      problems.add("SCC::LARGEST " + std::to_string(largest) + ", labels give " + std::to_string(expected_largest));
    }
    set_verification(report, problems.finish(),
                     "labels equal iterative Tarjan's smallest-id labels; every label is the smallest id of its SCC; "
                     "component count and largest size agree");
  }
  return report;
}

// The one instantiation of the engine for SccProgram (algorithms/engine_instances.hpp declares it extern).
template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const SccProgram&,
                                       const FinalStateVisitor<SccProgram::Vertex>&);

}  // namespace edgestream
