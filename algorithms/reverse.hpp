// -b reverse: writes the reversed graph (every edge u->v becomes v->u, weights kept, same type and
// vertex count) with its .ini, streaming the input in chunks with the io/ classes (any size).
#pragma once

#include <filesystem>

#include "algorithms/algorithm.hpp"

namespace edgestream {

/// Where -b reverse writes: --output PATH (edge file PATH, property file PATH.ini) when given,
/// else "<input edge file>-rev" beside the input (+ ".ini").
struct ReverseTarget {
  std::filesystem::path edge_path;
  std::filesystem::path ini_path;
};
ReverseTarget reverse_target(const AlgorithmRequest& request);

/// Writes the reversed graph of request.graph to `target`: the edge file is written under a
/// temporary name beside it and renamed into place, then the .ini (also renamed into place).
/// Refuses (invalid_argument) a target that is the input's edge file or .ini. Every id is checked
/// against the vertex count. Returns the number of edges written; `io` accumulates the traffic.
Expected<std::uint64_t> write_reversed_graph(const GraphInfo& graph, const ReverseTarget& target,
                                             const IoOptions& options, IoCounters* read_io, IoCounters* write_io);

}  // namespace edgestream
