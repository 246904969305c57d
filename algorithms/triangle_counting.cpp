// -b triangle_counting runner. Exact (default): out-of-core counting over a degree-oriented
// adjacency split into vertex-range blocks (see count_triangles_exact and
// docs/algorithms/triangle_counting.md). --triangle_counting::approximate: X-Stream's min-hash
// estimator (ApproxTriangleProgram) on the engine.
#include "algorithms/triangle_counting.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <memory>
#include <span>

#include "algorithms/runner_support.hpp"
#include "core/cancellation.hpp"
#include "core/engine.hpp"
#include "core/memory_plan.hpp"
#include "core/scratch_directory.hpp"
#include "core/thread_pool.hpp"
#include "io/aligned_buffer.hpp"
#include "io/file.hpp"
#include "io/record_stream.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"

namespace edgestream {

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kSlackBytes = 4 * kMiB;              // heap, code, small vectors
constexpr std::uint64_t kPerThreadSlackBytes = 512 * 1024;   // stacks and per-thread heaps
constexpr std::uint64_t kMaxBlockBytes = std::uint64_t{8} << 30;  // offsets are 32-bit per block

Status cancelled_status() { return {StatusCode::kCancelled, "stopped by signal " + std::to_string(cancel_signal())}; }

// A vertex-range block of the oriented adjacency: out-lists of [first, end), CSR with 32-bit
// offsets relative to the block. In memory (and in its scratch file) as
// [offsets: (end-first+1) x u32][targets: offsets[end-first] x u32].
struct Block {
  VertexId first = 0;
  VertexId end = 0;
  std::uint64_t raw_records = 0;  // oriented records before deduplication (an upper bound)
  std::uint64_t records = 0;      // after deduplication
  std::filesystem::path pairs_path;
  std::filesystem::path csr_path;
  std::uint64_t bytes() const { return 4 * (static_cast<std::uint64_t>(end - first) + 1) + 4 * records; }
  std::uint64_t raw_bytes() const { return 4 * (static_cast<std::uint64_t>(end - first) + 1) + 4 * raw_records; }
};

struct LoadedBlock {
  VertexId first = 0;
  VertexId end = 0;
  AlignedBuffer buffer;
  const std::uint32_t* offsets = nullptr;
  const std::uint32_t* targets = nullptr;
  std::span<const std::uint32_t> list(VertexId v) const {
    const std::size_t k = v - first;
    return {targets + offsets[k], offsets[k + 1] - offsets[k]};
  }
  bool holds(VertexId v) const { return v >= first && v < end; }
};

// The degree order: a before b when (deg[a], a) < (deg[b], b).
inline bool ranks_before(const std::vector<std::uint32_t>& deg, VertexId a, VertexId b) {
  return deg[a] < deg[b] || (deg[a] == deg[b] && a < b);
}

// Streams every record of the input, checking ids; fn(Edge).
template <typename Fn>
Status for_each_input_edge(const GraphInfo& graph, const IoOptions& io, IoCounters* counters, Fn&& fn) {
  ES_ASSIGN_OR_RETURN(File input, File::open(graph.edge_path, OpenMode::kReadOnly, io.direct));
  ES_ASSIGN_OR_RETURN(auto reader, open_input_edges(graph, input, io, 1, nullptr, counters, nullptr));
  const std::size_t record = graph.record_size();
  return for_each_record_run(*reader, record, graph.edge_path.string(),
                             [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
                               if (cancel_requested()) return cancelled_status();
                               const std::size_t n = run.size() / record;
                               for (std::size_t i = 0; i < n; ++i) {
                                 const Edge e = decode_edge(run.data() + i * record, graph.type);
                                 if (e.src >= graph.vertices || e.dst >= graph.vertices) {
                                   return invalid_edge_error(graph, first + i, e, false);
                                 }
                                 fn(e);
                               }
                               return Status::ok();
                             });
}

// Builds the CSR of `block` in a fresh buffer: cursor[v] holds v's raw out-count on entry; `feed`
// calls place(a, b) for every oriented record of the block. Lists are then sorted, deduplicated
// and compacted (in parallel over vertices). cursor[] of the block's range is clobbered.
template <typename Feed>
Expected<LoadedBlock> build_block(Block& block, std::vector<std::uint64_t>& cursor, ThreadPool& pool, Feed&& feed) {
  const std::size_t range = block.end - block.first;
  LoadedBlock out;
  out.first = block.first;
  out.end = block.end;
  out.buffer = AlignedBuffer(block.raw_bytes());
  auto* offsets = reinterpret_cast<std::uint32_t*>(out.buffer.data());
  std::uint32_t* targets = offsets + range + 1;
  std::uint64_t pos = 0;
  for (std::size_t k = 0; k < range; ++k) {
    offsets[k] = static_cast<std::uint32_t>(pos);
    const std::uint64_t count = cursor[block.first + k];
    cursor[block.first + k] = pos;
    pos += count;
  }
  offsets[range] = static_cast<std::uint32_t>(pos);
  auto place = [&](VertexId a, VertexId b) { targets[cursor[a]++] = b; };
  ES_RETURN_IF_ERROR(feed(place));
  // Sort and deduplicate each list in place; remember the new length in cursor[].
  constexpr std::size_t kChunk = 4096;
  pool.run((range + kChunk - 1) / kChunk, [&](std::size_t task, unsigned) {
    const std::size_t lo = task * kChunk;
    const std::size_t hi = std::min(range, lo + kChunk);
    for (std::size_t k = lo; k < hi; ++k) {
      std::uint32_t* b = targets + offsets[k];
      std::uint32_t* e = targets + offsets[k + 1];
      std::sort(b, e);
      cursor[block.first + k] = static_cast<std::uint64_t>(std::unique(b, e) - b);
    }
  });
  std::uint64_t write = 0;
  for (std::size_t k = 0; k < range; ++k) {
    const std::uint64_t start = offsets[k];
    const std::uint64_t len = cursor[block.first + k];
    if (write != start && len > 0) std::memmove(targets + write, targets + start, len * 4);
    offsets[k] = static_cast<std::uint32_t>(write);
    write += len;
  }
  offsets[range] = static_cast<std::uint32_t>(write);
  block.records = write;
  out.offsets = offsets;
  out.targets = targets;
  return out;
}

Expected<LoadedBlock> load_block(const Block& block, bool direct, IoCounters& io) {
  LoadedBlock out;
  out.first = block.first;
  out.end = block.end;
  const std::uint64_t bytes = block.bytes();
  out.buffer = AlignedBuffer(bytes);
  ES_ASSIGN_OR_RETURN(File file, File::open(block.csr_path, OpenMode::kReadOnly, direct));
  const auto start = monotonic_ns();
  ES_ASSIGN_OR_RETURN(const std::size_t got, file.read_at(0, out.buffer.span()));
  io.wait_ns += monotonic_ns() - start;
  io.bytes_read += got;
  ++io.requests;
  if (got != bytes) {
    return corruption(block.csr_path.string() + ": " + std::to_string(got) + " bytes, expected " + std::to_string(bytes));
  }
  out.offsets = reinterpret_cast<const std::uint32_t*>(out.buffer.data());
  out.targets = out.offsets + (block.end - block.first) + 1;
  return out;
}

Status store_block(const Block& block, LoadedBlock& built, bool direct, IoCounters& io) {
  ES_ASSIGN_OR_RETURN(File file, File::open(block.csr_path, OpenMode::kCreate, direct));
  const std::uint64_t range = block.end - block.first;
  // The compacted targets follow the offsets directly: the first bytes() of the buffer.
  auto* base = reinterpret_cast<std::uint32_t*>(built.buffer.data());
  if (built.targets != base + range + 1) return internal_error("block layout");
  const std::uint64_t bytes = block.bytes();
  const std::size_t padded = round_up(bytes, kIoAlignment);
  std::memset(built.buffer.data() + bytes, 0, padded - bytes);
  const auto start = monotonic_ns();
  ES_RETURN_IF_ERROR(file.write_at(0, std::span<const std::byte>(built.buffer.data(), padded)));
  ES_RETURN_IF_ERROR(file.truncate(bytes));
  io.wait_ns += monotonic_ns() - start;
  io.bytes_written += bytes;
  ++io.requests;
  return Status::ok();
}

// Number of common elements of two sorted lists, calling on_common(w) for each.
template <typename Fn>
std::uint64_t intersect(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, Fn&& on_common) {
  if (a.size() > b.size()) std::swap(a, b);
  std::uint64_t count = 0;
  if (a.empty()) return 0;
  if (a.size() * 32 < b.size()) {  // galloping: binary search each element of the short list
    const std::uint32_t* lo = b.data();
    const std::uint32_t* const hi = b.data() + b.size();
    for (const std::uint32_t x : a) {
      lo = std::lower_bound(lo, hi, x);
      if (lo == hi) break;
      if (*lo == x) {
        on_common(x);
        ++count;
        ++lo;
      }
    }
    return count;
  }
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      on_common(a[i]);
      ++count;
      ++i;
      ++j;
    }
  }
  return count;
}

// Counts the triangles (u -> v -> w, u -> w) with u in block `ub` and v in block `vb`. Each worker
// marks N+(u) in its bitmap (one bit per vertex) and scans N+(v) for marked ids; when N+(v) is much
// longer than N+(u), the short list is searched in the long one instead (galloping).
void count_pair(const LoadedBlock& ub, const LoadedBlock& vb, std::vector<std::uint64_t>& tri,
                std::vector<std::uint64_t>& worker_totals, std::vector<std::vector<std::uint64_t>>& marks,
                ThreadPool& pool) {
  const std::size_t range = ub.end - ub.first;
  constexpr std::size_t kChunk = 256;
  pool.run((range + kChunk - 1) / kChunk, [&](std::size_t task, unsigned worker) {
    std::uint64_t* mark = marks[worker].data();
    const std::size_t lo = task * kChunk;
    const std::size_t hi = std::min(range, lo + kChunk);
    std::uint64_t total = 0;
    for (std::size_t k = lo; k < hi; ++k) {
      const VertexId u = ub.first + static_cast<VertexId>(k);
      const std::span<const std::uint32_t> nu = ub.list(u);
      if (nu.size() < 2) continue;
      // The out-neighbours of u that lie in vb: a contiguous run (lists are sorted by id).
      const std::uint32_t* b = std::lower_bound(nu.data(), nu.data() + nu.size(), vb.first);
      const std::uint32_t* e = std::lower_bound(b, nu.data() + nu.size(), vb.end);
      if (b == e) continue;
      for (const std::uint32_t w : nu) mark[w >> 6] |= std::uint64_t{1} << (w & 63);
      std::uint64_t through_u = 0;
      for (const std::uint32_t* p = b; p != e; ++p) {
        const VertexId v = *p;
        const std::span<const std::uint32_t> nv = vb.list(v);
        auto found = [&](std::uint32_t w) {
          std::atomic_ref<std::uint64_t>(tri[w]).fetch_add(1, std::memory_order_relaxed);
        };
        std::uint64_t c = 0;
        if (nu.size() * 16 < nv.size()) {
          c = intersect(nu, nv, found);
        } else {
          for (const std::uint32_t w : nv) {
            if ((mark[w >> 6] >> (w & 63)) & 1U) {
              found(w);
              ++c;
            }
          }
        }
        if (c > 0) std::atomic_ref<std::uint64_t>(tri[v]).fetch_add(c, std::memory_order_relaxed);
        through_u += c;
      }
      for (const std::uint32_t w : nu) mark[w >> 6] = 0;
      if (through_u > 0) std::atomic_ref<std::uint64_t>(tri[u]).fetch_add(through_u, std::memory_order_relaxed);
      total += through_u;
    }
    worker_totals[worker * 8] += total;  // 8 apart: one cache line per worker
  });
}

}  // namespace

Expected<TriangleCounts> count_triangles_exact(const GraphInfo& graph, const EngineOptions& options, RunStats& stats,
                                               ExactTriangleStats& detail) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t n_vertices = graph.vertices;
  if (n_vertices > UINT32_MAX) {
    // Block ends are 32-bit ids; a graph with 2^32 vertices would wrap the last one to 0.
    return invalid_argument("triangle_counting: " + graph.ini_path.string() + " has " + std::to_string(n_vertices) +
                            " vertices; at most 4294967295 are supported");
  }
  const unsigned threads = std::max(1U, options.threads);
  IoOptions io = options.io;
  io.read_chunk = std::min<std::size_t>(io.read_chunk, kMiB);
  io.write_chunk = std::min<std::size_t>(io.write_chunk, kMiB);
  io.depth = std::max(1U, std::min(io.depth, 4U));
  const std::uint64_t stream_bytes = std::uint64_t{io.depth} * io.read_chunk;
  const std::uint64_t baseline = current_rss_bytes() + kSlackBytes + threads * kPerThreadSlackBytes;
  // 4 B degrees + 8 B counters per vertex, and one bit per vertex per worker for the marks.
  const std::uint64_t mark_words = n_vertices / 64 + 1;
  detail.fixed_bytes = 12 * n_vertices + std::uint64_t{threads} * 8 * mark_words;
  const std::uint64_t need = baseline + detail.fixed_bytes + stream_bytes;
  if (need + kMiB > options.physical_memory) {
    return resource_exhausted("triangle_counting needs more than " + std::to_string((need + kMiB) >> 20) +
                              " MiB (process baseline " + std::to_string(baseline >> 20) + " MiB, 12 bytes per vertex (+ 1 bit per thread) for " +
                              std::to_string(n_vertices) + " vertices, stream buffers " +
                              std::to_string(stream_bytes >> 20) + " MiB); --physical_memory is " +
                              std::to_string(options.physical_memory >> 20) + " MiB");
  }
  const std::uint64_t avail = options.physical_memory - need;
  detail.budget_left = avail;
  stats.vertices = n_vertices;
  stats.edges = graph.edges;
  stats.plan.budget = options.physical_memory;
  stats.plan.threads = threads;
  stats.plan.io = io;
  stats.plan.baseline_bytes = baseline;
  stats.plan.state_bytes = detail.fixed_bytes;
  stats.plan.reader_bytes = stream_bytes;

  ES_ASSIGN_OR_RETURN(const std::unique_ptr<ThreadPool> pool_owner, ThreadPool::create(threads));
  ThreadPool& pool = *pool_owner;
  TriangleCounts result;
  // Pass 1: degrees (every listed non-loop record counts at both ends; only the order matters).
  std::vector<std::uint32_t> deg(n_vertices, 0);
  ES_RETURN_IF_ERROR(for_each_input_edge(graph, io, &stats.input_io, [&](const Edge& e) {
    if (e.src == e.dst) return;
    deg[e.src] += deg[e.src] == UINT32_MAX ? 0 : 1;
    deg[e.dst] += deg[e.dst] == UINT32_MAX ? 0 : 1;
  }));
  // Pass 2: raw oriented out-counts (an upper bound of each out-list), kept in the counter array.
  std::vector<std::uint64_t>& count = result.per_vertex;
  count.assign(n_vertices, 0);
  ES_RETURN_IF_ERROR(for_each_input_edge(graph, io, &stats.input_io, [&](const Edge& e) {
    if (e.src == e.dst) return;
    ++count[ranks_before(deg, e.src, e.dst) ? e.src : e.dst];
  }));
  // Blocks: consecutive id ranges whose adjacency (4 bytes per vertex and per raw record) fits half
  // of what is left, so that two blocks fit at once; -k asks for (at least about) k blocks.
  std::uint64_t total_raw = 0;
  for (std::uint64_t v = 0; v < n_vertices; ++v) total_raw += 4 * count[v] + 4;
  const std::uint64_t memory_cap = std::min(avail / 2, kMaxBlockBytes);  // each of two loaded blocks
  std::uint64_t cap = memory_cap;
  // One block needs no partner: it may use all that is left.
  if (options.forced_partitions <= 1 && total_raw + 4 <= std::min(avail, kMaxBlockBytes)) cap = total_raw + 4;
  if (options.forced_partitions > 1) cap = std::min(cap, (total_raw + options.forced_partitions - 1) / options.forced_partitions);
  cap = std::max<std::uint64_t>(cap, 8);
  std::vector<Block> blocks;
  {
    Block cur;
    std::uint64_t cost = 4;
    for (std::uint64_t v = 0; v < n_vertices; ++v) {
      const std::uint64_t c = 4 * count[v] + 4;
      if (v > cur.first && cost + c > cap) {
        cur.end = static_cast<VertexId>(v);
        blocks.push_back(cur);
        cur = Block{};
        cur.first = static_cast<VertexId>(v);
        cost = 4;
      }
      cost += c;
      cur.raw_records += count[v];
    }
    cur.end = static_cast<VertexId>(n_vertices);
    blocks.push_back(cur);
  }
  detail.blocks = blocks.size();
  stats.plan.partitions = blocks.size();
  stats.plan.set_partition_size(std::max<std::uint64_t>(1, (n_vertices + blocks.size() - 1) / blocks.size()));
  for (const Block& b : blocks) {
    // Two blocks are loaded at once: a block larger than its share (one vertex with more records
    // than half of what the budget leaves) would break --physical_memory.
    if (b.raw_bytes() > kMaxBlockBytes || (blocks.size() > 1 && b.raw_bytes() > memory_cap)) {
      return resource_exhausted("triangle_counting: vertex " + std::to_string(b.first) + " has " +
                                std::to_string(b.raw_records) + " oriented records, more than one block holds (" +
                                std::to_string(memory_cap) + " bytes under this --physical_memory)");
    }
  }
  auto orient = [&](const Edge& e, auto&& place) {
    if (e.src == e.dst) return;
    if (ranks_before(deg, e.src, e.dst)) {
      place(e.src, e.dst);
    } else {
      place(e.dst, e.src);
    }
  };

  std::vector<std::uint64_t>& tri = result.per_vertex;
  std::vector<std::uint64_t> worker_totals(std::size_t{threads} * 8, 0);
  std::vector<std::vector<std::uint64_t>> marks(threads, std::vector<std::uint64_t>(mark_words, 0));
  if (blocks.size() == 1) {
    // Everything fits: pass 3 places the oriented records straight into the one block.
    Block& b = blocks[0];
    ES_ASSIGN_OR_RETURN(LoadedBlock block, build_block(b, count, pool, [&](auto&& place) {
      return for_each_input_edge(graph, io, &stats.input_io, [&](const Edge& e) { orient(e, place); });
    }));
    std::vector<std::uint32_t>().swap(deg);
    std::fill(tri.begin(), tri.end(), 0);
    detail.oriented_edges = b.records;
    detail.block_bytes = b.raw_bytes();
    if (cancel_requested()) return cancelled_status();
    count_pair(block, block, tri, worker_totals, marks, pool);
  } else {
    std::vector<std::filesystem::path> volumes = options.work_dirs;
    if (volumes.empty()) volumes = graph.volumes;
    if (volumes.empty()) volumes.push_back(graph.edge_path.parent_path().empty() ? "." : graph.edge_path.parent_path());
    ES_ASSIGN_OR_RETURN(ScratchDirectory scratch, ScratchDirectory::create(volumes));
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      blocks[i].pairs_path = scratch.file("tc-pairs." + std::to_string(i), i);
      blocks[i].csr_path = scratch.file("tc-adjacency." + std::to_string(i), i);
    }
    ES_RETURN_IF_ERROR(ensure_open_file_limit(blocks.size() + 64));
    // Pass 3: the oriented records, by block of their source, one writer per block sharing `avail`.
    {
      IoOptions wio = io;
      wio.depth = 2;
      wio.write_chunk = round_down(std::min<std::uint64_t>(io.write_chunk, avail / (2 * blocks.size())), kIoAlignment);
      if (wio.write_chunk < kIoAlignment) {
        return resource_exhausted("triangle_counting: " + std::to_string(blocks.size()) +
                                  " blocks need at least " + std::to_string(blocks.size() * 2 * kIoAlignment >> 20) +
                                  " MiB of write buffers beyond the per-vertex arrays; raise --physical_memory");
      }
      std::vector<File> files;
      std::vector<std::unique_ptr<SequentialWriter>> writers;
      for (const Block& b : blocks) {
        ES_ASSIGN_OR_RETURN(File f, File::open(b.pairs_path, OpenMode::kCreate, io.direct));
        files.push_back(std::move(f));
      }
      for (const File& f : files) {
        ES_ASSIGN_OR_RETURN(auto w, SequentialWriter::open(f, wio, &stats.edges_io));
        writers.push_back(std::move(w));
      }
      std::vector<VertexId> firsts;
      for (const Block& b : blocks) firsts.push_back(b.first);
      Status write_status;
      ES_RETURN_IF_ERROR(for_each_input_edge(graph, io, &stats.input_io, [&](const Edge& e) {
        orient(e, [&](VertexId a, VertexId b) {
          const std::size_t k = static_cast<std::size_t>(std::upper_bound(firsts.begin(), firsts.end(), a) - firsts.begin()) - 1;
          const VertexId pair[2] = {a, b};
          const Status s = writers[k]->append(std::as_bytes(std::span<const VertexId>(pair, 2)));
          if (!s.is_ok() && write_status.is_ok()) write_status = s;
        });
      }));
      ES_RETURN_IF_ERROR(write_status);
      for (auto& w : writers) ES_RETURN_IF_ERROR(w->finish());
    }
    std::vector<std::uint32_t>().swap(deg);
    // Build each block's sorted, deduplicated adjacency from its pairs and store it.
    for (Block& b : blocks) {
      if (cancel_requested()) return cancelled_status();
      ES_ASSIGN_OR_RETURN(LoadedBlock built, build_block(b, count, pool, [&](auto&& place) -> Status {
        ES_ASSIGN_OR_RETURN(File f, File::open(b.pairs_path, OpenMode::kReadOnly, io.direct));
        ES_ASSIGN_OR_RETURN(const std::uint64_t size, f.size());
        ES_ASSIGN_OR_RETURN(auto reader, SequentialReader::open(f, 0, size, io, &stats.edges_io));
        return for_each_record_run(*reader, 8, b.pairs_path.string(), [&](std::span<const std::byte> run, std::uint64_t) {
          for (std::size_t i = 0; i + 8 <= run.size(); i += 8) {
            VertexId pair[2];
            std::memcpy(pair, run.data() + i, 8);
            place(pair[0], pair[1]);
          }
          return Status::ok();
        });
      }));
      ES_RETURN_IF_ERROR(store_block(b, built, io.direct, stats.edges_io));
      std::error_code ec;
      std::filesystem::remove(b.pairs_path, ec);
      detail.oriented_edges += b.records;
    }
    std::fill(tri.begin(), tri.end(), 0);
    // Intersections: block j (the middle vertices v) stays while every block i (the u) passes.
    std::uint64_t largest = 0;
    std::uint64_t second = 0;
    for (const Block& b : blocks) {
      if (b.bytes() > largest) {
        second = largest;
        largest = b.bytes();
      } else if (b.bytes() > second) {
        second = b.bytes();
      }
    }
    detail.block_bytes = largest + second;
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      if (blocks[j].records == 0) continue;  // no vertex of j has an out-list: no middle vertex here
      ES_ASSIGN_OR_RETURN(LoadedBlock vb, load_block(blocks[j], io.direct, stats.edges_io));
      ++detail.block_loads;
      for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (cancel_requested()) return cancelled_status();
        if (blocks[i].records == 0) continue;
        if (i == j) {
          count_pair(vb, vb, tri, worker_totals, marks, pool);
          continue;
        }
        ES_ASSIGN_OR_RETURN(LoadedBlock ub, load_block(blocks[i], io.direct, stats.edges_io));
        ++detail.block_loads;
        count_pair(ub, vb, tri, worker_totals, marks, pool);
      }
    }
  }
  for (std::size_t w = 0; w < worker_totals.size(); w += 8) result.total += worker_totals[w];
  stats.engine_seconds = seconds_since(start);
  stats.peak_rss = peak_rss_bytes();
  return result;
}

TriangleCounts reference_triangle_counts(const InMemoryGraph& g) {
  TriangleCounts out;
  out.per_vertex.assign(g.vertices, 0);
  Csr csr = build_csr(g, CsrDirection::kBoth);
  // Simple undirected adjacency: sorted, no duplicates, no self-loops.
  std::vector<std::vector<VertexId>> adj(g.vertices);
  for (std::uint64_t v = 0; v < g.vertices; ++v) {
    auto& a = adj[v];
    for (std::uint64_t k = csr.offsets[v]; k < csr.offsets[v + 1]; ++k) {
      if (csr.targets[k] != v) a.push_back(csr.targets[k]);
    }
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  std::vector<std::uint8_t> mark(g.vertices, 0);
  for (std::uint64_t u = 0; u < g.vertices; ++u) {
    for (const VertexId w : adj[u]) mark[w] = 1;
    for (const VertexId v : adj[u]) {
      if (v <= u) continue;
      for (const VertexId w : adj[v]) {
        if (w <= v || mark[w] == 0) continue;
        ++out.total;
        ++out.per_vertex[u];
        ++out.per_vertex[v];
        ++out.per_vertex[w];
      }
    }
    for (const VertexId w : adj[u]) mark[w] = 0;
  }
  return out;
}

namespace {

template <unsigned kRounds>
Expected<AlgorithmReport> run_approximate(const AlgorithmRequest& request, unsigned rounds) {
  ApproxTriangleProgram<kRounds> program;
  program.rounds = rounds;
  using V = typename ApproxTriangleProgram<kRounds>::Vertex;
  // Fixed-point sums: deterministic whatever the order of the gathers.
  std::uint64_t sum_fixed = 0;
  auto on_partition = [&](VertexId first, std::span<const V> states, VertexOutput& out) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      sum_fixed += states[i].sum_fixed;
      if (out.active()) {
        out.begin_line(first + i);
        out.add(static_cast<double>(states[i].sum_fixed) / ApproxTriangleProgram<kRounds>::kFixedPoint / 2.0);
        out.end_line();
      }
    }
  };
  AlgorithmReport report;
  ES_ASSIGN_OR_RETURN(report.stats, run_program(request, program, on_partition));
  const double total = static_cast<double>(sum_fixed) / ApproxTriangleProgram<kRounds>::kFixedPoint / 2.0 / 3.0;
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", total);
  report.summary.emplace_back("TRIANGLE_COUNTING::TRIANGLES", text);
  report.summary.emplace_back("TRIANGLE_COUNTING::MODE", "approximate");
  report.summary.emplace_back("TRIANGLE_COUNTING::ROUNDS", std::to_string(rounds));
  if (request.verify) {
    // An estimate has no exact answer to meet: check it is finite and non-negative, and report the
    // exact count beside it.
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const TriangleCounts exact = reference_triangle_counts(g);
    ProblemList problems;
    if (!(total >= 0) || !std::isfinite(total)) problems.add("estimate " + std::string(text) + " is not a count");
    set_verification(report, problems.finish(),
                     "estimate finite and non-negative; exact count " + std::to_string(exact.total));
  }
  return report;
}

}  // namespace

Expected<AlgorithmReport> run_triangle_counting(const AlgorithmRequest& request) {
  if (request.params.triangle_counting_approximate) {
    const std::uint64_t rounds = request.params.triangle_counting_iterations;
    if (rounds == 0 || rounds > 16) {
      return invalid_argument("--triangle_counting::niters must be 1..16 with --triangle_counting::approximate, got " +
                              std::to_string(rounds));
    }
    if (rounds == 1) return run_approximate<1>(request, 1);
    if (rounds <= 4) return run_approximate<4>(request, static_cast<unsigned>(rounds));
    return run_approximate<16>(request, static_cast<unsigned>(rounds));
  }
  AlgorithmReport report;
  ExactTriangleStats detail;
  VertexOutput output;
  ES_RETURN_IF_ERROR(output.open(request.output));
  ES_ASSIGN_OR_RETURN(const TriangleCounts counts,
                      count_triangles_exact(request.graph, request.engine, report.stats, detail));
  if (output.active()) {
    for (std::uint64_t v = 0; v < counts.per_vertex.size(); ++v) {
      output.begin_line(v);
      output.add_unsigned(counts.per_vertex[v]);
      output.end_line();
    }
  }
  ES_RETURN_IF_ERROR(output.commit());
  report.summary.emplace_back("TRIANGLE_COUNTING::TRIANGLES", std::to_string(counts.total));
  report.summary.emplace_back("TRIANGLE_COUNTING::MODE", "exact");
  report.summary.emplace_back("TRIANGLE_COUNTING::UNDIRECTED_EDGES", std::to_string(detail.oriented_edges));
  report.summary.emplace_back("TRIANGLE_COUNTING::BLOCKS", std::to_string(detail.blocks));
  report.summary.emplace_back("TRIANGLE_COUNTING::BLOCK_LOADS", std::to_string(detail.block_loads));
  if (request.verify) {
    ES_ASSIGN_OR_RETURN(const InMemoryGraph g, load_graph_in_memory(request.graph));
    const TriangleCounts ref = reference_triangle_counts(g);
    ProblemList problems;
    if (counts.total != ref.total) {
      problems.add("total " + std::to_string(counts.total) + ", reference " + std::to_string(ref.total));
    }
    std::uint64_t sum = 0;
    for (std::uint64_t v = 0; v < g.vertices; ++v) {
      sum += counts.per_vertex[v];
      if (counts.per_vertex[v] != ref.per_vertex[v]) {
        problems.add("vertex " + std::to_string(v) + ": " + std::to_string(counts.per_vertex[v]) + ", reference " +
                     std::to_string(ref.per_vertex[v]));
      }
    }
    if (sum != 3 * counts.total) {
      problems.add("per-vertex counts sum to " + std::to_string(sum) + ", not 3 x " + std::to_string(counts.total));
    }
    set_verification(report, problems.finish(),
                     "total and every per-vertex count equal the in-memory reference; per-vertex sum = 3 x total");
  }
  return report;
}

}  // namespace edgestream
