// Non-template helpers of the engine: open-file limit and input validation messages.
#include "core/engine.hpp"

namespace edgestream {

Status ensure_open_file_limit(std::uint64_t needed) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return errno_status(errno, "getrlimit", "RLIMIT_NOFILE");
  if (limit.rlim_cur >= needed) return Status::ok();
  if (limit.rlim_max < needed) {
    return resource_exhausted("this many streaming partitions need about " + std::to_string(needed) +
                              " open files, but the hard limit (ulimit -Hn) is " + std::to_string(limit.rlim_max) +
                              "; give more --physical_memory or fewer partitions");
  }
  limit.rlim_cur = needed;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return errno_status(errno, "setrlimit", "RLIMIT_NOFILE");
  return Status::ok();
}

Status invalid_edge_error(const GraphInfo& graph, std::uint64_t record, const Edge& e, bool check_weights) {
  const std::string where = "edge file " + graph.edge_path.string() + ": record " + std::to_string(record) +
                            " (byte offset " + std::to_string(record * graph.record_size()) + ")";
  const std::string limit = " but the graph has " + std::to_string(graph.vertices) + " vertices (ids must be < " +
                            std::to_string(graph.vertices) + ", see " + graph.ini_path.string() + ")";
  if (e.src >= graph.vertices) return bad_input(where + " has source id " + std::to_string(e.src) + limit);
  if (e.dst >= graph.vertices) return bad_input(where + " has destination id " + std::to_string(e.dst) + limit);
  if (check_weights) {
    return bad_input(where + " has weight " + std::to_string(e.weight) +
                     "; this algorithm needs non-negative weights");
  }
  return bad_input(where + " is invalid");
}

}  // namespace edgestream
