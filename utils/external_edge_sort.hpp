// External (out-of-core) sort of edges by (src, dst, weight) in bounded memory, on the generic
// utils/external_sort.hpp: sorted runs in a scratch directory, k-way merged (several passes when
// there are more runs than the fan-in). With no run written everything stays in memory. The order
// is a total order (weight ties broken by bit pattern), so the output is identical whatever the
// budget. Run files are removed as soon as they are merged, the scratch directory by its owner.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "io/graph_format.hpp"
#include "utils/external_sort.hpp"

namespace edgestream {

/// The sort order: src, then dst, then weight (then weight bits, so -0 and +0 are ordered too).
bool edge_sort_less(const Edge& a, const Edge& b);

struct EdgeSortLess {
  bool operator()(const Edge& a, const Edge& b) const { return edge_sort_less(a, b); }
};

/// The external sort of edges in edge_sort_less order (utils/external_sort.hpp with run files
/// "run-N" of raw Edge records in `scratch`).
class ExternalEdgeSorter : public ExternalSorter<Edge, EdgeSortLess> {
 public:
  /// `memory_bytes`: the budget for buffered edges (at least 4 KiB), also used for merge buffers.
  /// `scratch`: an existing directory for run files.
  ExternalEdgeSorter(std::uint64_t memory_bytes, std::filesystem::path scratch)
      : ExternalSorter(memory_bytes, std::move(scratch), "run") {}
};

}  // namespace edgestream
