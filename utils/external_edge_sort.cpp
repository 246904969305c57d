// ExternalEdgeSorter: sorted runs + k-way merge (see external_edge_sort.hpp).
#include "utils/external_edge_sort.hpp"

#include <algorithm>
#include <bit>
#include <queue>

#include "core/cancellation.hpp"
#include "utils/edge_record_file.hpp"

namespace edgestream {
namespace {


Status cancelled() { return {StatusCode::kCancelled, "interrupted by a signal while sorting"}; }

}  // namespace

bool edge_sort_less(const Edge& a, const Edge& b) {
  if (a.src != b.src) return a.src < b.src;
  if (a.dst != b.dst) return a.dst < b.dst;
  if (a.weight != b.weight) return a.weight < b.weight;
  return std::bit_cast<std::uint32_t>(a.weight) < std::bit_cast<std::uint32_t>(b.weight);
}

ExternalEdgeSorter::ExternalEdgeSorter(std::uint64_t memory_bytes, std::filesystem::path scratch)
    : memory_bytes_(std::max<std::uint64_t>(memory_bytes, 4096)),
      scratch_(std::move(scratch)),
      capacity_(static_cast<std::size_t>(memory_bytes_ / sizeof(Edge))) {}

ExternalEdgeSorter::~ExternalEdgeSorter() {
  std::error_code ec;
  for (const auto& run : runs_) std::filesystem::remove(run, ec);
}

Status ExternalEdgeSorter::add(const Edge& e) {
  if (buffer_.size() == capacity_) ES_RETURN_IF_ERROR(spill());
  if (buffer_.capacity() == 0) buffer_.reserve(std::min<std::size_t>(capacity_, 1 << 16));
  buffer_.push_back(e);
  return Status::ok();
}

Status ExternalEdgeSorter::spill() {
  std::sort(buffer_.begin(), buffer_.end(), edge_sort_less);
  const auto path = scratch_ / ("run-" + std::to_string(runs_written_++));
  runs_.push_back(path);
  ES_ASSIGN_OR_RETURN(auto writer, EdgeRecordWriter::create(path, EdgeFileType::kWeighted, 1 << 16));
  for (std::size_t i = 0; i < buffer_.size(); ++i) {
    if ((i & 0xFFFF) == 0 && cancel_requested()) return cancelled();
    ES_RETURN_IF_ERROR(writer.write(buffer_[i]));
  }
  ES_RETURN_IF_ERROR(writer.close());
  buffer_.clear();
  return Status::ok();
}

Status ExternalEdgeSorter::merge(const std::vector<std::filesystem::path>& inputs,
                                 const std::function<Status(const Edge&)>& fn) {
  // Each input gets an equal share of the budget as its read buffer.
  const std::size_t share = std::max<std::size_t>(4096, memory_bytes_ / (inputs.size() + 1));
  std::vector<EdgeRecordReader> readers;
  readers.reserve(inputs.size());
  for (const auto& path : inputs) {
    ES_ASSIGN_OR_RETURN(auto reader, EdgeRecordReader::open(path, EdgeFileType::kWeighted, share));
    readers.push_back(std::move(reader));
  }
  struct Head {
    Edge edge;
    std::size_t source;
  };
  auto greater = [](const Head& a, const Head& b) {
    if (edge_sort_less(b.edge, a.edge)) return true;
    if (edge_sort_less(a.edge, b.edge)) return false;
    return a.source > b.source;
  };
  std::priority_queue<Head, std::vector<Head>, decltype(greater)> heap(greater);
  for (std::size_t i = 0; i < readers.size(); ++i) {
    Edge e{};
    ES_ASSIGN_OR_RETURN(const bool got, readers[i].next(e));
    if (got) heap.push(Head{e, i});
  }
  std::uint64_t n = 0;
  while (!heap.empty()) {
    if ((++n & 0xFFFF) == 0 && cancel_requested()) return cancelled();
    const Head head = heap.top();
    heap.pop();
    ES_RETURN_IF_ERROR(fn(head.edge));
    Edge e{};
    ES_ASSIGN_OR_RETURN(const bool got, readers[head.source].next(e));
    if (got) heap.push(Head{e, head.source});
  }
  return Status::ok();
}

Status ExternalEdgeSorter::finish(const std::function<Status(const Edge&)>& fn) {
  if (runs_.empty()) {  // everything fit in memory
    std::sort(buffer_.begin(), buffer_.end(), edge_sort_less);
    for (std::size_t i = 0; i < buffer_.size(); ++i) {
      if ((i & 0xFFFF) == 0 && cancel_requested()) return cancelled();
      ES_RETURN_IF_ERROR(fn(buffer_[i]));
    }
    std::vector<Edge>().swap(buffer_);
    return Status::ok();
  }
  if (!buffer_.empty()) ES_RETURN_IF_ERROR(spill());
  std::vector<Edge>().swap(buffer_);  // the merge reuses the budget for read buffers
  // Fan-in: runs merged at once, each with a read buffer of at least 16 KiB.
  const std::size_t fan_in = static_cast<std::size_t>(std::clamp<std::uint64_t>(memory_bytes_ / (16 << 10), 2, 256));
  while (runs_.size() > fan_in) {
    ++merge_passes_;
    std::vector<std::filesystem::path> next;
    for (std::size_t begin = 0; begin < runs_.size(); begin += fan_in) {
      const std::size_t end = std::min(runs_.size(), begin + fan_in);
      const std::vector<std::filesystem::path> group(runs_.begin() + static_cast<std::ptrdiff_t>(begin),
                                                     runs_.begin() + static_cast<std::ptrdiff_t>(end));
      if (group.size() == 1) {
        next.push_back(group.front());
        continue;
      }
      const auto path = scratch_ / ("run-" + std::to_string(runs_written_++));
      next.push_back(path);
      ES_ASSIGN_OR_RETURN(auto writer, EdgeRecordWriter::create(path, EdgeFileType::kWeighted, 1 << 16));
      ES_RETURN_IF_ERROR(merge(group, [&](const Edge& e) { return writer.write(e); }));
      ES_RETURN_IF_ERROR(writer.close());
      std::error_code ec;
      for (const auto& run : group) std::filesystem::remove(run, ec);
    }
    runs_ = std::move(next);
  }
  ++merge_passes_;
  ES_RETURN_IF_ERROR(merge(runs_, fn));
  std::error_code ec;
  for (const auto& run : runs_) std::filesystem::remove(run, ec);
  runs_.clear();
  return Status::ok();
}

}  // namespace edgestream
