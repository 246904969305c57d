// -b reverse runner: streams the input edge file in chunks (direct I/O unless --no_dio), swaps
// source and destination of every record (weights kept) and writes the reversed graph to a
// temporary file renamed into place, then its .ini. X-Stream wrote "<name>-rev"; we write there by
// default and to --output PATH (+ PATH.ini) when given. --verify compares the edge multisets.
#include "algorithms/reverse.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "algorithms/reference_graph.hpp"
#include "algorithms/runner_support.hpp"
#include "core/cancellation.hpp"
#include "core/engine.hpp"
#include "io/file.hpp"
#include "io/record_stream.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"

namespace edgestream {

namespace {

// True when a and b name the same file (existing: same inode; otherwise the same normalised path).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) {
    const bool eq = std::filesystem::equivalent(a, b, ec);
    if (!ec) return eq;
  }
  const auto ca = std::filesystem::weakly_canonical(a, ec);
  const auto cb = std::filesystem::weakly_canonical(b, ec);
  return ca == cb;
}

}  // namespace

ReverseTarget reverse_target(const AlgorithmRequest& request) {
  ReverseTarget t;
  t.edge_path = request.output.empty() ? std::filesystem::path(request.graph.edge_path.string() + "-rev") : request.output;
  t.ini_path = std::filesystem::path(t.edge_path.string() + ".ini");
  return t;
}

Expected<std::uint64_t> write_reversed_graph(const GraphInfo& graph, const ReverseTarget& target,
                                             const IoOptions& options, IoCounters* read_io, IoCounters* write_io) {
  for (const auto& out : {target.edge_path, target.ini_path}) {
    for (const auto& in : {graph.edge_path, graph.ini_path}) {
      if (same_file(out, in)) {
        return invalid_argument("-b reverse: the target " + out.string() + " is the input file " + in.string() +
                                ", which is never overwritten (give --output PATH elsewhere)");
      }
    }
  }
  std::error_code ec;
  if (std::filesystem::is_directory(target.edge_path, ec) || std::filesystem::is_directory(target.ini_path, ec)) {
    return invalid_argument("-b reverse: the target " + target.edge_path.string() + " (or its .ini) is a directory");
  }
  const std::filesystem::path tmp = target.edge_path.string() + ".tmp-" + std::to_string(::getpid());
  ES_ASSIGN_OR_RETURN(File input, File::open(graph.edge_path, OpenMode::kReadOnly, options.direct));
  std::uint64_t written = 0;
  const Status status = [&]() -> Status {
    ES_ASSIGN_OR_RETURN(File output, File::open(tmp, OpenMode::kCreate, options.direct));
    // A compressed input is decoded (compress/graph_input.hpp); the reversed graph is written raw.
    ES_ASSIGN_OR_RETURN(auto reader, open_input_edges(graph, input, options, 1, nullptr, read_io, nullptr));
    ES_ASSIGN_OR_RETURN(auto writer, SequentialWriter::open(output, options, write_io));
    const std::size_t record = graph.record_size();
    const EdgeFileType type = graph.type;
    std::vector<std::byte> out(std::size_t{64} << 10);
    ES_RETURN_IF_ERROR(for_each_record_run(
        *reader, record, graph.edge_path.string(), [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
          if (cancel_requested()) return Status{StatusCode::kCancelled, "stopped by signal " + std::to_string(cancel_signal())};
          const std::size_t n = run.size() / record;
          std::size_t i = 0;
          while (i < n) {
            const std::size_t take = std::min(n - i, out.size() / record);
            for (std::size_t k = 0; k < take; ++k) {
              Edge e = decode_edge(run.data() + (i + k) * record, type);
              if (e.src >= graph.vertices || e.dst >= graph.vertices) {
                return invalid_edge_error(graph, first + i + k, e, false);
              }
              std::swap(e.src, e.dst);
              encode_edge(out.data() + k * record, e, type);
            }
            ES_RETURN_IF_ERROR(writer->append(std::span<const std::byte>(out.data(), take * record)));
            i += take;
            written += take;
          }
          return Status::ok();
        }));
    ES_RETURN_IF_ERROR(writer->finish());
    ES_RETURN_IF_ERROR(output.sync());
    output.close();
    std::filesystem::rename(tmp, target.edge_path, ec);
    if (ec) return errno_status(ec.value(), "rename to", target.edge_path.string());
    GraphInfo info;
    info.ini_path = target.ini_path;
    info.name = target.edge_path.filename().string();
    info.edge_path = target.edge_path;
    info.type = graph.type;
    info.vertices = graph.vertices;
    info.edges = written;
    const Status ini = write_graph_ini(info);
    if (!ini.is_ok()) {
      std::filesystem::remove(target.edge_path, ec);  // never a reversed edge file without its .ini
      return ini;
    }
    return Status::ok();
  }();
  if (!status.is_ok()) {
    std::filesystem::remove(tmp, ec);
    return status;
  }
  return written;
}

Expected<AlgorithmReport> run_reverse(const AlgorithmRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const ReverseTarget target = reverse_target(request);
  AlgorithmReport report;
  report.stats.vertices = request.graph.vertices;
  report.stats.edges = request.graph.edges;
  report.stats.plan.threads = 1;
  // Stay within --physical_memory: the reader and the writer hold depth x chunk each; shrink the
  // chunks (to 4 KiB at least) when the process baseline leaves less.
  IoOptions io = request.engine.io;
  const std::uint64_t baseline = current_rss_bytes() + (std::uint64_t{4} << 20);
  const std::uint64_t left = request.engine.physical_memory > baseline ? request.engine.physical_memory - baseline : 0;
  // The reader holds depth + 1 chunks, the writer depth.
  const std::uint64_t per_chunk = left / (2 * std::uint64_t{std::max(1U, io.depth)} + 1);
  io.read_chunk = std::max<std::size_t>(kIoAlignment, std::min<std::size_t>(io.read_chunk, round_down(per_chunk, kIoAlignment)));
  io.write_chunk = std::max<std::size_t>(kIoAlignment, std::min<std::size_t>(io.write_chunk, round_down(per_chunk, kIoAlignment)));
  report.stats.plan.io = io;
  report.stats.plan.budget = request.engine.physical_memory;
  ES_ASSIGN_OR_RETURN(const std::uint64_t edges,
                      write_reversed_graph(request.graph, target, io, &report.stats.input_io,
                                           &report.stats.edges_io));
  report.stats.engine_seconds = seconds_since(start);
  report.stats.peak_rss = peak_rss_bytes();
  report.files_written = {target.edge_path, target.ini_path};
  report.summary.emplace_back("REVERSE::EDGES", std::to_string(edges));
  report.summary.emplace_back("REVERSE::OUTPUT", target.ini_path.string());
  if (request.verify) {
    ProblemList problems;
    ES_ASSIGN_OR_RETURN(InMemoryGraph original, load_graph_in_memory(request.graph));
    auto reversed_info = read_graph_ini(target.ini_path);
    if (!reversed_info) {
      problems.add("cannot read the reversed graph: " + reversed_info.status().message());
    } else {
      if (reversed_info->type != request.graph.type) problems.add("type differs");
      if (reversed_info->vertices != request.graph.vertices) problems.add("vertex count differs");
      ES_ASSIGN_OR_RETURN(InMemoryGraph reversed, load_graph_in_memory(*reversed_info));
      if (reversed.edges.size() != original.edges.size()) {
        problems.add("edge count " + std::to_string(reversed.edges.size()) + ", input " +
                     std::to_string(original.edges.size()));
      } else {
        // Record by record: the reversed file keeps the input's order.
        for (std::size_t i = 0; i < original.edges.size(); ++i) {
          const Edge& a = original.edges[i];
          const Edge& b = reversed.edges[i];
          if (a.src != b.dst || a.dst != b.src || std::memcmp(&a.weight, &b.weight, sizeof(float)) != 0) {
            problems.add("record " + std::to_string(i) + ": " + std::to_string(b.src) + "->" + std::to_string(b.dst) +
                         ", expected " + std::to_string(a.dst) + "->" + std::to_string(a.src));
          }
        }
      }
    }
    set_verification(report, problems.finish(), "every record is the input's record reversed, weight and order kept");
  }
  return report;
}

}  // namespace edgestream
