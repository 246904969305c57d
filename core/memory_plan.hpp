// The autotuner: from the memory budget, the graph and the program's record sizes, choose the number
// of streaming partitions K (equal ranges of ceil(V/K) vertex ids), the cache-sized second-level
// partitions, per-worker batch sizes and the buffer sizes, so that the process's peak RSS stays
// within --physical_memory. Every byte the engine allocates is one of the terms below.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/engine_options.hpp"
#include "io/status.hpp"

namespace edgestream {

/// Autotuned K > 1: when the fewest partitions that fit leave the update stream writers requests
/// smaller than this (or than --write_chunk, if smaller), more partitions are taken (each
/// partition's state is smaller, so the writers get the room), up to kMaxExtraPartitionsFactor times
/// the fewest: the fewest whose requests are this large, else those with the largest requests when
/// at least 1.5 times the fewest's (core/memory_plan.cpp, with_efficient_writes). Small writes cost
/// more than the extra partitions' updates: rmat22 PageRank at 32 MiB, K = 4 with 76 KiB writes
/// took 2.40 s per superstep, K = 5 (164 KiB) 1.51 s, K = 8 (296 KiB) 1.40 s, K = 16 (236 KiB)
/// 1.66 s; bfs at 32 MiB, K = 2 with 128 KiB writes 9.9 s, K = 3 (416 KiB) 5.9 s
/// (docs/performance.md, session 19).
inline constexpr std::uint64_t kEfficientWriteChunk = std::uint64_t{512} * 1024;
inline constexpr std::uint64_t kMaxExtraPartitionsFactor = 8;

struct MemoryPlanInput {
  std::uint64_t vertices = 0;
  std::size_t vertex_bytes = 0;   // sizeof(Program::Vertex)
  std::size_t entry_bytes = 0;    // bytes of one routed update (target + payload)
  std::size_t record_bytes = 0;   // bytes of one edge record in the input
  std::uint64_t edges = 0;        // records in the input
  bool undirected = false;        // each edge scattered in both directions
  // An undirected program that uses each edge once per direction on this symmetric input
  // (core/program.hpp kOneWayOnSymmetricInput): K > 1 streams get no reversed copies (a grid keeps
  // about half the records, how many is known once the input is read: the plan counts them all).
  bool symmetric_one_way = false;
  std::uint64_t split_streams = 1;  // streams per partition the split pass writes at once (2: reverse edges)
  std::uint64_t baseline_rss = 0; // bytes the process already uses (code, libraries, heap)
  // Striped scratch (core/volume_set.hpp): options.io is then the volumes' envelope (largest chunks,
  // depths summed over the volumes); a reduced plan keeps at least this depth, one per volume.
  unsigned min_depth = 1;
  // A compressed input (the .ini's codec=): raw bytes per frame; its reader decodes one stored and
  // one decoded frame per worker at a time (compress/graph_input.hpp). 0 = raw input.
  std::uint64_t input_frame_bytes = 0;
  // The block grid's bytes per edge with block-local ids (4, or 8 with the weight; core/engine.hpp
  // GridLayout) and the program's per-vertex Source (0 = none): what an on-disk grid costs.
  std::size_t grid_record_bytes = 4;
  std::size_t source_bytes = 0;
  std::size_t stream_record_bytes = 8;   // bytes of one K > 1 edge stream record (8, or 12 with the weight)
  std::uint64_t planned_supersteps = 0;  // known in advance (fixed iteration counts); 0 = not known
  bool active_bits = false;              // the program tells active vertices: K = 1 keeps a bit per vertex
  bool stream_active_bits = false;       // ... and K > 1 (keyed streams) keeps one per vertex of a partition
  bool settled_bits = false;             // K > 1 (keyed streams) also keeps one per vertex of the graph (settled)
};

struct MemoryPlan {
  std::uint64_t budget = 0;
  std::uint64_t partitions = 1;         // K
  std::uint64_t partition_size = 1;     // vertices per partition (the last may hold fewer)
  std::uint64_t partition_magic = 0;    // ceil(2^64 / partition_size), for partition_of()
  unsigned cache_shift = 0;             // vertices per cache partition = 1 << cache_shift
  std::uint64_t cache_partitions = 1;   // per streaming partition
  std::uint64_t batch_records = 0;      // records per worker per parallel step
  IoOptions io;                         // with chunk sizes possibly reduced to fit
  unsigned threads = 1;
  std::uint64_t combiner_slots = 0;     // direct-mapped combining table entries per worker

  // The terms of the estimate (bytes).
  std::uint64_t baseline_bytes = 0;
  std::uint64_t state_bytes = 0;        // one partition's vertex state
  std::uint64_t reader_bytes = 0;       // the one stream being read
  std::uint64_t writer_bytes = 0;       // all update (or edge) stream writers together
  std::uint64_t worker_bytes = 0;       // per-worker batch and routing buffers, combiner tables
  std::uint64_t edge_cache_bytes = 0;   // K = 1 and room to spare: the input kept in memory (to build
                                        // a grid of block-local records: each edge as its grid record and bucket)
  std::uint64_t codec_bytes = 0;        // compressed streams (K > 1): per-worker frame buffers
  // K = 1 with the edge cache: the block grid (core/block_schedule.hpp) is built from the cache, so
  // for a moment both are held: grid_bytes = the grid's copy of the records + its cell offsets and
  // per-thread counters. 0 = no grid (streamed from the cache in input order).
  // K = 1 without room for the edges: the grid on disk (a scratch file of compact records, read in
  // windows of grid_window_bytes): grid_bytes = grid_memory_bytes + the counters + the Source array.
  std::uint64_t grid_bytes = 0;
  std::uint64_t grid_window_bytes = 0;  // > 0: the grid is on disk
  // The on-disk grid's buffer: all the room the budget leaves (or two windows with --stream_grid).
  // The grid stays there when it fits once built (resident: supersteps read nothing), else a set
  // of its windows spread over it does (kept) and the rest is read every superstep through two
  // windows after them.
  std::uint64_t grid_memory_bytes = 0;
  bool grid_resident = false;           // the whole on-disk grid stays in memory (set by the engine)
  std::uint64_t grid_kept_bytes = 0;    // the part of it that stays in memory (all when resident; set by the engine)
  unsigned grid_shift = 0;              // vertices per grid block = 1 << grid_shift
  std::size_t grid_record_bytes = 0;    // bytes per edge in the built grid (set by the engine when it builds it)
  std::uint64_t grid_records = 0;       // records in the built grid: the input's, about half when halved (set by the engine)
  std::uint64_t grid_file_bytes = 0;    // the on-disk grid as built (its windows, padded; its file's size unless kept in memory as built)
  GridCodec grid_codec = GridCodec::kNone;  // the on-disk grid's codec (--grid_codec, auto resolved)
  // K > 1, keyed edge streams (core/keyed_segments.hpp): each edge stream is cut into segments of
  // segment_records records, each grouped by its records' destination key (the destination's cache
  // partition when it lies in the stream's partition, cache_partitions + its partition otherwise), so
  // the scatter emits updates already grouped by key. 0 = streams in input order.
  // segment_index_bytes: every segment's key ends (4 bytes per key) and one partly used block of
  // them per stream (KeyedStreamIndex), kept for the whole run.
  // segment_split_bytes: what the split pass's segments (one per stream it writes, one sorted copy
  // per thread) take beyond the vertex state buffer, which is not touched before the first superstep.
  std::uint64_t segment_records = 0;
  std::uint64_t segment_index_bytes = 0;
  std::uint64_t segment_split_bytes = 0;
  // K = 1, a program that tells its active vertices: one bit per vertex (padded to whole grid
  // blocks), the grid scatters' filter (Engine::mark_active_vertices).
  std::uint64_t active_bytes = 0;
  std::uint64_t settled_bytes = 0;      // K > 1, ProgramWithSettled: a bit per vertex of the graph
  /// One term of the estimate, named as --stats_json's `memory_plan` gives it.
  struct Term {
    const char* name;
    std::uint64_t bytes;
  };
  /// Every term of the estimate; estimated_peak() is their sum.
  std::array<Term, 12> terms() const {
    return {{{"baseline", baseline_bytes},
             {"vertex_state", state_bytes},
             {"stream_reader", reader_bytes},
             {"stream_writers", writer_bytes},
             {"worker_buffers", worker_bytes},
             {"edge_cache", edge_cache_bytes},
             {"codec_buffers", codec_bytes},
             {"edge_grid", grid_bytes},
             {"keyed_stream_index", segment_index_bytes},
             {"split_segments", segment_split_bytes},
             {"active_bits", active_bytes},
             {"settled_bits", settled_bytes}}};
  }
  std::uint64_t estimated_peak() const {
    std::uint64_t sum = 0;
    for (const Term& term : terms()) sum += term.bytes;
    return sum;
  }
  std::uint64_t partition_vertices() const { return partition_size; }
  /// The streaming partition holding vertex v: v / partition_size, computed with one multiply
  /// (exact for every 32-bit v: Lemire, Kaser, Kurz, "Faster remainder by direct computation").
  std::uint64_t partition_of(std::uint32_t v) const { return divide(v, partition_size, partition_magic); }
  /// v / size given size's magic number (set_partition_size); for loops that keep both in registers.
  static std::uint64_t divide(std::uint32_t v, std::uint64_t size, std::uint64_t magic) {
    if (size == 1) return v;
    __extension__ using Wide = unsigned __int128;  // GCC/Clang extension; -Wpedantic knows it is intended
    return static_cast<std::uint64_t>((static_cast<Wide>(magic) * v) >> 64);
  }
  /// Sets partition_size (>= 1) and the matching magic number.
  void set_partition_size(std::uint64_t size) {
    partition_size = size;
    partition_magic = size <= 1 ? 0 : UINT64_MAX / size + 1;
  }
  /// One line per term, for logs and error messages.
  std::string describe() const;
};

/// Chooses the plan. Errors (kResourceExhausted) when even the smallest configuration exceeds the
/// budget, saying how much would be needed; (kInvalidArgument) for impossible options.
Expected<MemoryPlan> plan_memory(const MemoryPlanInput& input, const EngineOptions& options);

/// Resident set size of this process now (bytes), from /proc/self/statm.
std::uint64_t current_rss_bytes();
/// Peak resident set size of this process so far (bytes), from /proc/self/status VmHWM.
std::uint64_t peak_rss_bytes();

}  // namespace edgestream
