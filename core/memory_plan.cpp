// The autotuner: searches the fewest streaming partitions whose memory terms fit the budget (more
// when the fewest would leave the update writers small requests: kEfficientWriteChunk).
#include "core/memory_plan.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <fstream>
#include <optional>
#include <sstream>

#include "compress/framed_stream.hpp"
#include "core/block_schedule.hpp"
#include "core/grid_codec.hpp"
#include "core/grid_window_reader.hpp"
#include "core/keyed_segments.hpp"
#include "io/aligned_buffer.hpp"

namespace edgestream {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
// Keyed edge streams need segments of at least this many records (smaller ones: more parallel steps
// per edge than routing the updates costs).
constexpr std::uint64_t kMinSegmentRecords = 1024;
constexpr std::uint64_t kMinWriteChunk = std::uint64_t{64} * 1024;
constexpr std::uint64_t kCombinerSlots = 4096;
// Allowance for what the plan cannot see exactly: allocator slack, thread stacks, small vectors.
constexpr std::uint64_t kSlackBytes = 4 * kMiB;
constexpr std::uint64_t kPerThreadSlackBytes = std::uint64_t{512} * 1024;
// Windows of the on-disk grid are whole MiB (at most options.grid_window, default 64 MiB: many tasks
// of a round per window, and two leave room in small budgets); a smaller --grid_window is taken as is.
constexpr std::uint64_t kMinGridWindow = kMiB;
// --disk_grid auto: the on-disk grid unless the program announces fewer supersteps than this
// (rmat22 at 256M, session 10: PageRank with 3 and 4 supersteps ties with the streamed input,
// degree_cnt's one superstep takes 2.2 s on the grid against 0.8 s streamed).
constexpr std::uint64_t kDiskGridMinSupersteps = 4;

unsigned ceil_log2(std::uint64_t n) { return n <= 1 ? 0 : static_cast<unsigned>(std::bit_width(n - 1)); }

std::string mib(std::uint64_t bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << static_cast<double>(bytes) / static_cast<double>(kMiB) << " MiB";
  return s.str();
}

struct Attempt {
  std::size_t read_chunk;
  std::size_t write_chunk;
  unsigned depth;
  std::uint64_t batch;
};

// What the on-disk grid holds besides its two window buffers (core/grid_codec.hpp), for windows
// of at least `window` bytes: the window list; with --grid_codec ef the pieces' descriptions, each
// worker's decoded piece and key scratch, and one slab's encoding tables (its portions, their
// first pieces and order by size, each piece's stored size).
std::uint64_t grid_codec_bytes(GridCodec codec, std::uint64_t edges, std::uint64_t buckets, std::size_t record_bytes,
                               std::uint64_t window, unsigned threads) {
  const std::uint64_t slab = std::max<std::uint64_t>(window / record_bytes, 1);
  std::uint64_t bytes = 2 * grid_windows_bound(edges, slab) * sizeof(GridWindow);  // an uncompressed slab is two windows
  if (codec == GridCodec::kEliasFano) {
    const std::uint64_t slab_pieces = buckets + 1 + (slab + kGridPieceRecords - 1) / kGridPieceRecords;
    bytes += grid_pieces_bound(edges, buckets, slab) * sizeof(GridPiece) +
             threads * (round_up(kGridPieceBufferBytes, kIoAlignment) + kGridPieceRecords * 4) +
             (buckets + 1) * (sizeof(GridPortion) + 8 + 4) + slab_pieces * 8;
  }
  return bytes;
}

}  // namespace

std::uint64_t current_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size_pages = 0;
  std::uint64_t resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t peak_rss_bytes() {
  // VmHWM is the high-water mark of this address space. getrusage's ru_maxrss is not used: Linux
  // carries the pre-exec high-water mark of the parent's memory into it (posix_spawn/vfork), so a
  // small tool started from a large process would report the parent's peak.
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // "VmHWM:   1234 kB"
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

std::string MemoryPlan::describe() const {
  std::ostringstream s;
  s << "budget " << mib(budget) << " = process baseline " << mib(baseline_bytes) << " + vertex state of one partition "
    << mib(state_bytes) << " + stream reader " << mib(reader_bytes) << " + stream writers " << mib(writer_bytes)
    << " + worker buffers " << mib(worker_bytes) << " + edges kept in memory " << mib(edge_cache_bytes)
    << " + codec buffers " << mib(codec_bytes)
    << (grid_window_bytes > 0 ? " + edge grid on disk (windows, counters) " : " + edge grid (while built) ") << mib(grid_bytes)
    << " + keyed stream index " << mib(segment_index_bytes) << " + split segments beyond the state " << mib(segment_split_bytes)
    << " + active vertex bits " << mib(active_bytes) << " + settled vertex bits " << mib(settled_bytes) << " (estimated peak " << mib(estimated_peak()) << ")";
  return s.str();
}

Expected<MemoryPlan> plan_memory(const MemoryPlanInput& input, const EngineOptions& options) {
  if (options.threads == 0) return invalid_argument("-p/--processors must be at least 1");
  if (options.io.read_chunk == 0 || options.io.read_chunk % kIoAlignment != 0) {
    return invalid_argument("--read_chunk must be a positive multiple of 4096 bytes, got " +
                            std::to_string(options.io.read_chunk));
  }
  if (options.io.write_chunk == 0 || options.io.write_chunk % kIoAlignment != 0) {
    return invalid_argument("--write_chunk must be a positive multiple of 4096 bytes, got " +
                            std::to_string(options.io.write_chunk));
  }
  if (options.io.depth == 0 || options.io.depth > 1024) {
    return invalid_argument("--io_depth must be between 1 and 1024, got " + std::to_string(options.io.depth));
  }
  if (options.forced_partitions > std::max<std::uint64_t>(input.vertices, 1)) {
    return invalid_argument("cannot make " + std::to_string(options.forced_partitions) + " partitions of " +
                            std::to_string(input.vertices) + " vertices");
  }
  const std::uint64_t vertices = std::max<std::uint64_t>(input.vertices, 1);
  const unsigned threads = options.threads;
  const std::uint64_t directions = input.undirected ? 2 : 1;
  const std::uint64_t baseline = input.baseline_rss + kSlackBytes + threads * kPerThreadSlackBytes;

  const std::uint64_t user_batch = options.batch_records;
  // Buffer sizes to try, largest first. Stream buffers shrink before batches do: small batches
  // multiply the parallel steps (and thread wake-ups) per edge, which costs more than small requests.
  const std::size_t mib_read = std::min<std::size_t>(options.io.read_chunk, kMiB);
  const std::size_t mib_write = std::min<std::size_t>(options.io.write_chunk, kMiB);
  const unsigned shallow = std::min(options.io.depth, std::max(2U, input.min_depth));
  std::vector<Attempt> attempts = {
      {options.io.read_chunk, options.io.write_chunk, options.io.depth, user_batch ? user_batch : 65536},
      {mib_read, mib_write, shallow, user_batch ? user_batch : 65536},
      {mib_read, mib_write, shallow, user_batch ? user_batch : 16384},
      {std::min<std::size_t>(options.io.read_chunk, std::size_t{256} * 1024), kMinWriteChunk, shallow, user_batch ? user_batch : 4096},
      {std::min<std::size_t>(options.io.read_chunk, std::size_t{256} * 1024), kMinWriteChunk, shallow, user_batch ? user_batch : 1024},
  };

  // Candidate partition counts, fewest first (each extra partition means update traffic on
  // storage): the forced count, or 1, 2, 4, ... and, once a power of two fits, the counts between it
  // and its half, so the smallest count that fits is found.
  // The keyed streams' index (core/keyed_segments.hpp) at `segment` records per segment: every
  // segment's key ends, and one partly used block per stream. Every stream's records: each edge
  // once, or twice (undirected: both ways, unless the input holds the reverses itself; reverse
  // edges: by source and by destination); each stream's last segment may be partial.
  const auto keyed_index_bytes = [&](std::uint64_t partitions, std::uint64_t cache_partitions, std::uint64_t segment) {
    const std::uint64_t records = input.edges * (input.symmetric_one_way ? 1 : directions);
    const std::uint64_t streams = partitions * input.split_streams;
    const std::uint64_t keys = cache_partitions + partitions;
    // + each segment's reading-vertex range; + each frame's stored offset (edge writers keep them,
    // in vectors that may double: frames of at least half of kMinWriteChunk, EngineBase::split_input).
    const std::uint64_t frames = records * input.stream_record_bytes / (kMinWriteChunk / 2) + streams;
    return (records / segment + streams * (1 + KeyedStreamIndex::kSegmentsPerBlock)) * (keys + 2) * 4 + 2 * frames * 8;
  };
  std::uint64_t smallest_need = UINT64_MAX;
  MemoryPlan smallest;
  auto try_partitions = [&](std::uint64_t wanted) -> std::optional<MemoryPlan> {
    const std::uint64_t size = (vertices + wanted - 1) / wanted;
    for (const Attempt& attempt : attempts) {
      MemoryPlan plan;
      plan.budget = options.physical_memory;
      plan.threads = threads;
      plan.io = options.io;
      plan.io.read_chunk = attempt.read_chunk;
      plan.io.write_chunk = attempt.write_chunk;
      plan.io.depth = attempt.depth;
      plan.batch_records = attempt.batch;
      plan.combiner_slots = kCombinerSlots;
      plan.baseline_bytes = baseline;
      plan.reader_bytes = std::uint64_t{attempt.depth + 1} * attempt.read_chunk + std::uint64_t{2} * threads * input.input_frame_bytes;
      // Per worker: the emitted updates of one batch and their routed copy, plus a combining table.
      // (K > 1: before they exist, the split pass's staging areas use this room; EngineBase::split_input.)
      plan.worker_bytes = threads * (2 * attempt.batch * directions * input.entry_bytes +
                                     kCombinerSlots * (input.entry_bytes + 4) + std::uint64_t{64} * 1024);
      // Compressed streams (K > 1): each active writer also holds the raw frame it fills; each
      // worker a compression output buffer and, while a framed stream is read, one stored and one
      // decoded frame (compress/framed_stream.hpp). Frames are write_chunk raw bytes.
      // With codec none and scratch checksums the streams carry raw frames: the writer's frame
      // buffer, and one decoded (= stored) frame per worker while reading; no compression output.
      const bool codecs = options.edges_codec.enabled() || options.updates_codec.enabled();
      const bool framed = codecs || options.scratch_checksums;
      const std::uint64_t frame_buffers = framed ? 1 : 0;
      auto set_write_chunk = [&](std::size_t chunk) {
        plan.io.write_chunk = chunk;
        // The split pass writes split_streams streams per partition at once; supersteps one.
        plan.writer_bytes =
            plan.partitions == 1 ? 0 : plan.partitions * input.split_streams * (attempt.depth + frame_buffers) * chunk;
        plan.codec_bytes = plan.partitions == 1 || !framed ? 0
                           : codecs ? threads * (frame_bytes_bound(chunk) + 2 * std::uint64_t{chunk})
                                    : threads * std::uint64_t{chunk};
      };
      plan.set_partition_size(size);
      plan.partitions = (vertices + size - 1) / size;
      plan.state_bytes = round_up(size * input.vertex_bytes, kIoAlignment);
      // One bit per vertex of a partition (the grid's: of whole blocks, at most 2^16 vertices of
      // padding), and one per 64 of them (Engine::active_words_).
      const std::uint64_t bit_bytes = (size + (std::uint64_t{1} << 16)) / 8 + 8;
      plan.active_bytes = (plan.partitions == 1 ? input.active_bits : input.stream_active_bits) ? round_up(bit_bytes + bit_bytes / 64 + 8, kIoAlignment) : 0;
      // The keyed streams' settled vertices (Engine::settled_bits_): a bit per vertex of the graph;
      // none without keyed streams (--segment_records 0), as for their index below.
      plan.settled_bytes = plan.partitions > 1 && options.segment_records > 0 && input.settled_bits
                               ? round_up(vertices / 8 + 16, kIoAlignment)
                               : 0;
      set_write_chunk(attempt.write_chunk);
      // Second level: cache partitions of at most half the CPU cache, and enough of them to keep
      // every worker busy.
      unsigned cache_shift = ceil_log2(size);
      const std::uint64_t cache_target = std::max<std::uint64_t>(options.cpu_cache_size / 2, 4096);
      while (cache_shift > 6 && ((std::uint64_t{1} << cache_shift) * input.vertex_bytes > cache_target ||
                                 (size >> cache_shift) < 8ULL * threads)) {
        --cache_shift;
      }
      const std::uint64_t cache_partitions = (size + (std::uint64_t{1} << cache_shift) - 1) >> cache_shift;
      // Shrunk write requests leave room for the keyed streams' index at full-size segments
      // (with_keyed_streams), which would otherwise be planned away for a few KiB of requests.
      const std::uint64_t keyed_index = plan.partitions > 1 && options.segment_records > 0 && input.edges > 0
                                            ? keyed_index_bytes(plan.partitions, cache_partitions, std::min(attempt.batch, options.segment_records))
                                            : 0;
      const std::uint64_t others =
          plan.baseline_bytes + plan.state_bytes + plan.reader_bytes + plan.worker_bytes + plan.active_bytes + plan.settled_bytes + keyed_index;
      const std::uint64_t codec_fixed = framed ? threads * 1024 : 0;  // frame headers and codec slack
      if (plan.partitions > 1 && others + plan.writer_bytes + plan.codec_bytes > plan.budget && others + codec_fixed < plan.budget) {
        // Shrink the write requests (and frames) so that one per partition (times the depth, plus
        // the frame buffers) fits. Per byte of chunk: K (depth + frame) + T (bound ~7/6 + 2).
        const std::uint64_t per_chunk_x6 =
            6 * plan.partitions * input.split_streams * (attempt.depth + frame_buffers) + (codecs ? 20 * threads : framed ? 6 * threads : 0);
        const std::uint64_t fit = round_down((plan.budget - others - codec_fixed) * 6 / per_chunk_x6, kIoAlignment);
        if (fit >= kMinWriteChunk) set_write_chunk(static_cast<std::size_t>(std::min<std::uint64_t>(fit, attempt.write_chunk)));
      }
      if (plan.estimated_peak() < smallest_need) {
        smallest_need = plan.estimated_peak();
        smallest = plan;
      }
      if (plan.estimated_peak() <= plan.budget) {
        plan.cache_shift = cache_shift;
        plan.cache_partitions = cache_partitions;
        return plan;
      }
    }
    return std::nullopt;
  };
  // With one partition and room to spare, the input is read from storage once and then streamed
  // from memory (a budget that holds the whole graph should not re-read it every superstep).
  constexpr std::uint64_t kMinKeptWindow = std::uint64_t{16} << 20;
  // The streamed windows of a grid kept in part: rmat22 sssp at 256M, 8 / 16 / 32 MiB windows kept
  // 168 / 151 / 101 MB and took 9.7-10.2 / 9.3-9.5 / 9.2-9.5 s (docs/performance.md, session 14).
  constexpr std::uint64_t kStreamedWindow = std::uint64_t{16} << 20;
  const auto with_edge_cache = [&](MemoryPlan plan) {
    const std::uint64_t input_bytes = round_up(input.edges * input.record_bytes, kIoAlignment);
    const unsigned shift = grid_block_shift(vertices, plan.cache_shift, options.compact_grid);
    const std::uint64_t blocks = vertices == 0 ? 1 : ((vertices - 1) >> shift) + 1;
    const auto b32 = static_cast<std::uint32_t>(blocks);
    const std::uint64_t buckets = grid_buckets(b32, grid_sub_bucket_bits(b32, shift));
    const std::uint64_t bucket_array = buckets * 8;
    // The in-memory grid of block-local records is built from a copy of the input kept as grid
    // records and their buckets' ids (core/engine_base.cpp, load_grid_records): grid_record_bytes
    // + 2 (or 4) per edge, then the grid's own copy and 3 bucket arrays of 8 bytes (and each id's
    // bucket and group, 4 bytes each), for the moment both are held; while the input is read, one
    // run checked, to group (then the buckets' sort scratch), every share's group offsets (runs:
    // the input's read chunks, and a record across two) and each thread's count of every id.
    const std::uint64_t id_bytes = GridPairIds::of(b32, GridBucketing::of(b32, shift)).id_bytes();
    const std::uint64_t compact_cache = round_up(input.edges * (input.grid_record_bytes + id_bytes), kIoAlignment);
    const std::uint64_t run_bytes = std::max<std::uint64_t>({plan.io.read_chunk, input.input_frame_bytes, 1});
    const std::uint64_t runs = 2 * (input_bytes / run_bytes + 1);
    const std::uint64_t grouping = threads * ((run_bytes / input.record_bytes + 1) / threads + 1) * (input.grid_record_bytes + id_bytes) +
                                   runs * threads * (kGridPlacementGroups + 3) * 8 + buckets * 8 + threads * (buckets + 1) * 8;
    const std::uint64_t compact_grid =
        round_up(input.edges * input.grid_record_bytes, kIoAlignment) + 3 * bucket_array + grouping;
    if (plan.partitions == 1 && options.cache_edges && options.edge_grid && options.compact_grid &&
        shift <= kMaxLocalIdBits && input_bytes > 0 && plan.estimated_peak() + compact_cache + compact_grid <= plan.budget) {
      plan.edge_cache_bytes = compact_cache;
      plan.grid_bytes = compact_grid;
      plan.grid_shift = shift;
    } else if (plan.partitions == 1 && options.cache_edges && input_bytes > 0 &&
        plan.estimated_peak() + input_bytes <= plan.budget) {
      plan.edge_cache_bytes = input_bytes;
      // The block grid of whole records, when the budget holds a second copy for the moment it is built.
      const std::uint64_t grid = input_bytes + (threads + 1) * bucket_array;
      const bool compact = options.compact_grid && shift <= kMaxLocalIdBits;  // then only as above
      if (options.edge_grid && !compact && plan.estimated_peak() + grid <= plan.budget) {
        plan.grid_bytes = grid;
        plan.grid_shift = shift;
      }
    } else if (plan.partitions == 1 && options.edge_grid && options.compact_grid && input_bytes > 0 &&
               (options.disk_grid == DiskGrid::kOn ||
                (options.disk_grid == DiskGrid::kAuto &&
                 (input.planned_supersteps == 0 || input.planned_supersteps >= kDiskGridMinSupersteps)))) {
      // No room for the edges: the grid of compact records goes to a scratch file once, and every
      // superstep reads it back in windows (two: one scattered while the next is read). Only with
      // block-local ids (blocks of at most 2^16 vertices): 4 or 8 bytes per edge instead of the
      // input's 8 or 12, and records grouped by block pair, so the scatter hits the CPU cache.
      // Building it costs about two streamed supersteps (rmat22: ~1.7-2.2 s for bfs, whose streamed
      // supersteps take ~0.8 s and grid supersteps ~0.25 s), so by default programs that announce
      // fewer than kDiskGridMinSupersteps (one-pass counts) stream the input instead; programs that
      // run to convergence (unknown count: bfs, cc, sssp...) get the grid (docs/performance.md).
      // (shift, blocks and buckets as above: options.compact_grid holds here.)
      // Counters (8 bytes per bucket and thread, and one more set of cursors), bucket order, groups,
      // ranks and owners, each staging task's sort counts, cell ends, the sources, the states'
      // padding to whole blocks, and one run of staged records (and of the check's entries) while
      // the grid is built (engine_base.cpp build_staged).
      const std::uint64_t padded = blocks << shift;
      // (Every record, also on a symmetric input whose grid keeps about half; --grid_codec auto's
      // estimate of the compressed grid below counts the half.)
      const std::uint64_t grid_file = round_up(input.edges * input.grid_record_bytes, kIoAlignment);
      const std::uint64_t largest = std::max<std::uint64_t>(round_down(options.grid_window, kIoAlignment), kIoAlignment);
      const std::uint64_t step = std::min(kMinGridWindow, largest);
      const std::uint64_t run_bytes = std::max<std::uint64_t>(plan.io.read_chunk, input.input_frame_bytes);
      // A run's staged records (no more bytes than the run: a staged record, 8 or 12 bytes, is no
      // larger than its input record), or the run's entries and groups from the check instead
      // (staged record + 2 bytes a record).
      const std::uint64_t check_entries = run_bytes / std::max<std::size_t>(input.record_bytes, 1) * (4 + input.grid_record_bytes + 2);
      const std::uint64_t fixed = (3 * threads + 8) * buckets * 4 + block_cells(b32) * 8 +
                                  round_up(padded * input.source_bytes, kIoAlignment) +
                                  round_up((padded - vertices) * input.vertex_bytes, kIoAlignment) + std::max(run_bytes, check_entries) +
                                  grid_codec_bytes(options.grid_codec == GridCodec::kNone ? GridCodec::kNone : GridCodec::kEliasFano,
                                                   input.edges, buckets, input.grid_record_bytes, step, threads);
      const std::uint64_t used = plan.estimated_peak() + fixed;
      // The grid's room: what the budget leaves (at most --grid_memory).
      const std::uint64_t avail = std::min(plan.budget - std::min(plan.budget, used), options.grid_memory);
      if (shift <= kMaxLocalIdBits && 2 * step <= avail) {
        std::uint64_t window = round_down(avail / 2, step);
        window = std::min({window, largest, round_up(grid_file, step)});
        plan.grid_window_bytes = window;
        // The grid stays in the room left when it fits there once built (uncompressed it does
        // when the records do; Elias-Fano coded grids of skewed graphs take about half): resident,
        // no storage traffic after the build. Otherwise windows spread over it do (below). Only what
        // is touched counts in RSS: staging blocks and the windows, the kept part of the grid.
        // --grid_codec auto: Elias-Fano when that likely keeps the grid in memory (no storage
        // traffic after the build, which sorting and encoding cost ~5 ns of CPU per edge once) or
        // the records carry weights (below), the records as they are otherwise: on a fast local
        // disk with few cores a streamed compressed grid of 4-byte records saves less I/O time
        // than its decoding and its build cost (cc on rmat22 at 256M, docs/performance.md);
        // configs/ for slower volumes ask for ef.
        // Weighted records (8 bytes) take Elias-Fano even when streamed: the keys and the weights
        // both shrink (GridWeights: RMAT's weights 3 bytes of 4), rmat22 sssp at 256M read 3.6
        // instead of 6.1 GB and took 7.2-7.4 s instead of 8.4-8.9 (docs/performance.md, session 21).
        // Their compressed grid is likely 3/4 of the records' bytes (the keys about half, the
        // weights as they are), the others' half; of half the records for a grid halved on a
        // symmetric input (symmetric_one_way: cc, mis, checkbip). (Session 16 counted every record
        // there, since rmat22-sym cc at 256M was slower resident with Elias-Fano; since the staged
        // blocks are read while slabs are encoded (session 47) it is faster: 5 pairs, 4.44-5.59 ->
        // 4.06-5.12 s, each pair -8 to -11%; rmat24-sym cc at 1G even, 2 pairs. docs/performance.md.)
        const std::uint64_t room = round_down(avail, kIoAlignment);
        const bool weighted = input.grid_record_bytes == 8;
        const std::uint64_t likely_compressed = (weighted ? grid_file / 4 * 3 : grid_file / 2) / (input.symmetric_one_way ? 2 : 1);
        const bool fits_compressed = options.grid_resident && likely_compressed <= room;
        plan.grid_codec = options.grid_codec != GridCodec::kAuto ? options.grid_codec
                          : fits_compressed || weighted           ? GridCodec::kEliasFano
                                                                  : GridCodec::kNone;
        const std::uint64_t likely = plan.grid_codec == GridCodec::kEliasFano ? likely_compressed : grid_file;
        // All the room for the grid (unless --stream_grid): what does not fit stays on disk and
        // streams through two windows after the windows that stay in memory, spread over the grid
        // (EngineBase::grid_spread_keeps). Windows of kStreamedWindow leave most of the room to
        // those (rmat22 cc at 256M: 151 MB of its 537 MB grid are read no more every superstep).
        if (options.grid_resident && likely > room) {
          window = std::min(window, std::max(step, kStreamedWindow));
          plan.grid_window_bytes = window;
        }
        plan.grid_memory_bytes = options.grid_resident ? room : 2 * window;
        if (options.grid_resident && likely <= room && plan.grid_codec == GridCodec::kEliasFano) {
          // A grid that is to stay in memory is encoded in place, slab by slab, next to the slab
          // being encoded and its output (two windows; EngineBase::grid_slab_buffer): windows small
          // enough to leave that room beside the likely grid, unless that makes them smaller than
          // kMinKeptWindow (more slabs and staging groups than building in place saves: rmat22
          // PageRank at 256M would get 3 MiB windows). The build then writes the grid after all
          // when the room runs short, and reads it back.
          const std::uint64_t beside = round_down((room - likely) / 2, step);
          if (beside >= std::min(window, kMinKeptWindow)) window = std::min(window, beside);
          plan.grid_window_bytes = window;
        }
        plan.grid_bytes = fixed + plan.grid_memory_bytes;
        plan.grid_shift = shift;
      }
    }
    return plan;
  };
  // K > 1: keyed edge streams, with segments of a batch (the scatter's per-step output buffer holds
  // one segment's updates) or fewer records when the budget asks for it; none when even
  // kMinSegmentRecords do not fit (the split's segments beyond the state buffer, and the index).
  const auto with_keyed_streams = [&](MemoryPlan plan) {
    if (plan.partitions <= 1 || options.segment_records == 0 || input.edges == 0) return plan;
    const std::uint64_t rs = input.stream_record_bytes;
    const std::uint64_t buffers = plan.partitions * input.split_streams + threads;
    std::uint64_t segment = std::min(plan.batch_records, options.segment_records);
    for (; segment >= std::min(kMinSegmentRecords, options.segment_records); segment /= 2) {
      const std::uint64_t split = buffers * segment * rs;
      const std::uint64_t index = keyed_index_bytes(plan.partitions, plan.cache_partitions, segment);
      const std::uint64_t beyond_state = split > plan.state_bytes ? split - plan.state_bytes : 0;
      if (plan.estimated_peak() + index + beyond_state <= plan.budget) {
        plan.segment_records = segment;
        plan.segment_index_bytes = index;
        plan.segment_split_bytes = beyond_state;
        break;
      }
    }
    return plan;
  };
  // Autotuned K > 1 whose update writers got small requests (the budget left after one partition's
  // state, shared by K writers): more partitions leave them more room. The fewest partitions, up to
  // kMaxExtraPartitionsFactor times as many, whose write requests reach kEfficientWriteChunk (or
  // --write_chunk if smaller); when none does, the count with the largest requests if they are at
  // least half as large again (requests grow with K while the states shrink, then fall as the
  // writers multiply).
  const auto with_efficient_writes = [&](const MemoryPlan& fewest) {
    const std::uint64_t efficient = std::min<std::uint64_t>(kEfficientWriteChunk, options.io.write_chunk);
    if (fewest.partitions <= 1 || fewest.io.write_chunk >= efficient) return fewest;
    std::optional<MemoryPlan> widest;
    const std::uint64_t most = std::min(vertices, fewest.partitions * kMaxExtraPartitionsFactor);
    for (std::uint64_t k = fewest.partitions + 1; k <= most; ++k) {
      const std::optional<MemoryPlan> plan = try_partitions(k);
      if (!plan) continue;
      if (plan->io.write_chunk >= efficient) return *plan;
      if (!widest || plan->io.write_chunk > widest->io.write_chunk) widest = plan;
    }
    return widest && 2 * widest->io.write_chunk >= 3 * fewest.io.write_chunk ? *widest : fewest;
  };
  if (options.forced_partitions > 0) {
    if (auto plan = try_partitions(options.forced_partitions)) return with_keyed_streams(with_edge_cache(*plan));
  } else {
    std::uint64_t previous = 0;
    for (std::uint64_t k = 1;; k *= 2) {
      const std::uint64_t wanted = std::min(k, vertices);
      if (auto plan = try_partitions(wanted)) {
        // The smallest count in (previous, wanted] that fits (memory need falls with the count).
        std::uint64_t lo = previous + 1;
        std::uint64_t hi = wanted;
        MemoryPlan best = *plan;
        while (lo < hi) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          if (auto p = try_partitions(mid)) {
            best = *p;
            hi = mid;
          } else {
            lo = mid + 1;
          }
        }
        return with_keyed_streams(with_edge_cache(with_efficient_writes(best)));
      }
      if (wanted == vertices) break;
      previous = wanted;
    }
  }
  std::string what = options.forced_partitions > 0
                         ? std::to_string(options.forced_partitions) + " partitions"
                         : std::string("any number of partitions");
  return resource_exhausted("--physical_memory " + std::to_string(options.physical_memory) + " bytes (" +
                            mib(options.physical_memory) + ") is too small for this graph with " + what +
                            ": the smallest configuration needs about " + mib(smallest_need) + ": " +
                            smallest.describe());
}

}  // namespace edgestream
