// External (out-of-core) sort of edges by (src, dst, weight) in bounded memory: edges are buffered
// up to a byte budget, each full buffer is sorted and written as a run file in a scratch directory,
// and the runs are k-way merged (in several passes when there are more runs than the merge fan-in
// allows). With no run written everything stays in memory. The order is a total order (weight ties
// broken by bit pattern), so the output is identical whatever the budget. Polls
// core/cancellation between chunks; run files are removed as soon as they are merged, the scratch
// directory by its owner.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "io/graph_format.hpp"

namespace edgestream {

/// The sort order: src, then dst, then weight (then weight bits, so -0 and +0 are ordered too).
bool edge_sort_less(const Edge& a, const Edge& b);

class ExternalEdgeSorter {
 public:
  /// `memory_bytes`: the budget for buffered edges (at least 4 KiB), also used for merge buffers.
  /// `scratch`: an existing directory for run files.
  ExternalEdgeSorter(std::uint64_t memory_bytes, std::filesystem::path scratch);
  ExternalEdgeSorter(const ExternalEdgeSorter&) = delete;
  ExternalEdgeSorter& operator=(const ExternalEdgeSorter&) = delete;
  ~ExternalEdgeSorter();  // removes any run file left

  Status add(const Edge& e);
  /// Calls `fn` for every edge in sorted order (fn may return an error, which stops the merge).
  /// Call once.
  Status finish(const std::function<Status(const Edge&)>& fn);

  std::uint64_t runs_written() const { return runs_written_; }
  std::uint64_t merge_passes() const { return merge_passes_; }

 private:
  Status spill();
  Status merge(const std::vector<std::filesystem::path>& inputs, const std::function<Status(const Edge&)>& fn);

  std::uint64_t memory_bytes_;
  std::filesystem::path scratch_;
  std::vector<Edge> buffer_;
  std::size_t capacity_;
  std::vector<std::filesystem::path> runs_;
  std::uint64_t runs_written_ = 0;
  std::uint64_t merge_passes_ = 0;
};

}  // namespace edgestream
