// The program-independent half of the engine (core/engine.hpp): a run's plan, scratch files,
// partition states on storage, the input's one checked pass into memory and the edge grid's
// construction (in memory or on disk). Engine<P> derives from it and adds what depends on the
// program: vertex and update types, scatter, routing and gather. Compiled once here instead of
// once per program (28 instantiations: this code was about a third of each one's object code).
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <vector>

#include "core/block_schedule.hpp"
#include "core/checkpoint.hpp"
#include "core/engine_options.hpp"
#include "core/grid_codec.hpp"
#include "core/grid_window_reader.hpp"
#include "core/keyed_segments.hpp"
#include "core/memory_plan.hpp"
#include "core/run_stats.hpp"
#include "core/thread_pool.hpp"
#include "core/volume_set.hpp"
#include "compress/framed_stream.hpp"
#include "io/aligned_buffer.hpp"
#include "io/file.hpp"
#include "io/graph_format.hpp"

namespace edgestream {

/// Raises the soft open-file limit so that `needed` descriptors fit; errors when the hard limit
/// does not allow it.
Status ensure_open_file_limit(std::uint64_t needed);

/// An error naming the input record that breaks the format's rules.
Status invalid_edge_error(const GraphInfo& graph, std::uint64_t record, const Edge& e, bool check_weights);

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// How the in-memory grid stores one edge (EngineBase::build_grid).
enum class GridLayout : std::uint8_t {
  kFull,    // the input record as is (blocks of more than 2^16 vertices, or --full_grid_records)
  kLocal4,  // 16-bit block-local source and destination ids (the bucket tells the blocks)
  kLocal8,  // the same and the 4-byte weight (weighted graphs, programs that read weights)
};

/// What the program-independent code needs to know about the program (Engine<P> fills it in from
/// P's traits, core/program.hpp).
struct EngineProgramTraits {
  bool check_weights = false;     // P::kNonNegativeWeights: a negative weight is invalid input
  bool reads_weights = false;     // kProgramReadsWeights<P>: edge streams and grid keep the weight
  bool undirected = false;        // P::kUndirected: K > 1 edge streams get every edge reversed too
  bool two_way = false;           // every edge is scattered in both directions (undirected or reverse edges)
  bool reverse_edges = false;     // kHasReverseEdges<P>: K > 1 keeps a second set of edge streams, by destination
  std::size_t source_bytes = 0;   // sizeof(P::Source) for ProgramWithSource, else 0
  bool by_destination = false;    // the grid can be scattered by destination block (Engine::scatter_grid_lines_as)
  bool one_way_on_symmetric = false;  // program_one_way_on_symmetric<P>(): each edge once per direction on a symmetric input
  bool active_bits = false;       // Engine<P>::kActiveBits: a grid run keeps a bit per vertex (active_bits_)
  bool stream_active_bits = false;  // Engine<P>::kStreamActiveBits: so do keyed streams (K > 1)
  bool settled_bits = false;        // Engine<P>::kStreamSettled: keyed streams keep a bit per vertex of the graph
  bool grid_by_source = false;    // ProgramWithActive<P>: buckets by source (in memory: not with a Source)
};

class EngineBase {
 protected:
  EngineBase(GraphInfo graph, EngineOptions options, EngineProgramTraits traits);
  ~EngineBase();
  EngineBase(const EngineBase&) = delete;
  EngineBase& operator=(const EngineBase&) = delete;

  // ---- setup --------------------------------------------------------------------------------

  /// Completes `input` (the program's vertex, update and superstep figures are set by the caller),
  /// resolves the volumes, plans the memory and opens the input; sets K_, the keys, the thread pool.
  Status plan_run(MemoryPlanInput input);
  /// K > 1: creates the scratch directory, the vertex, edge and update streams and the update writers.
  Status open_streams();
  /// K > 1: one pass over the input (every record checked) into the partitions' edge streams.
  Status split_input();
  /// Every input record has been read and checked (input_validated_); with symmetric_one_way_,
  /// the error naming the .ini and the edge file unless every edge was stored in both directions
  /// (symmetry_sum_ == 0). Call once the pass that checked them ends, before any superstep.
  Status input_checked();
  /// Closes every scratch file and removes the scratch directory; collects the I/O counters.
  /// Called once at the end of a run, whatever its outcome.
  void close_run();

  /// The records the program needs: the input's type, without a weight it never reads. Written to
  /// K > 1 edge streams (8 bytes instead of 12) and deciding the grid's 4- or 8-byte records.
  EdgeFileType program_edge_type() const {
    return graph_.type == EdgeFileType::kWeighted && traits_.reads_weights ? EdgeFileType::kWeighted
                                                                            : EdgeFileType::kUnweighted;
  }

  /// An input record the engine accepts: both ids below `vertices`, and (check_weights) a weight
  /// >= 0. Static so that per-record loops can pass the bounds as locals (check_run).
  static bool edge_is_valid(const Edge& e, std::uint64_t vertices, bool check_weights) {
    if (e.src >= vertices || e.dst >= vertices) return false;
    return !check_weights || e.weight >= 0.0F;
  }
  bool edge_is_valid(const Edge& e) const { return edge_is_valid(e, graph_.vertices, traits_.check_weights); }

  /// K = 1 with room for the edges: reads and checks the whole input once, then builds the grid when
  /// the plan has room for it.
  Status load_edge_cache();
  /// K = 1 without room for the edges, with a grid_window_bytes plan: the grid in a scratch file.
  Status build_disk_grid();

  // ---- supersteps ---------------------------------------------------------------------------

  static Status cancelled();
  /// Makes partition p the current one (partition_, base_, count_).
  void select_partition(std::uint64_t p);
  /// K > 1: reads / writes partition p's states (state_) from / to the vertex file, crc32-checked.
  Status load_partition(std::uint64_t p);
  Status save_partition(std::uint64_t p);
  /// One synchronous request on `counters`: its bytes, and the time since `start` as waiting.
  static void count_request(IoCounters& counters, std::chrono::steady_clock::time_point start, std::uint64_t read,
                            std::uint64_t written);
  /// Runs the pool's workers for FramedReader's parallel decoding.
  ParallelFor parallel_for();
  /// The input's records as a stream (decoded when the input is compressed).
  Expected<std::unique_ptr<FramedReader>> open_input();

  /// The block-local part of a vertex id (grid records hold two of them).
  std::uint32_t grid_local_mask() const {
    return plan_.grid_shift >= 32 ? UINT32_MAX : (std::uint32_t{1} << plan_.grid_shift) - 1;
  }
  /// Vertices rounded up to whole grid blocks: the on-disk grid's states and sources cover them.
  std::uint64_t grid_padded_vertices() const;

  /// The grid's records [lo, hi) a superstep's scatter can reach now: all of them (in memory, or
  /// the on-disk grid once resident), or of the on-disk grid one streamed window (the next one is
  /// read while this one is scattered) or a run of windows kept in memory. On disk, each window's
  /// records are as they are or, with --grid_codec ef, its pieces (core/grid_codec.hpp).
  struct GridView {
    const std::byte* bytes = nullptr;      // in memory: record r at bytes + (r - lo) * record size;
                                           // on disk: windows[0]'s bytes (the others follow at their file offsets)
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    std::span<const GridWindow> windows;   // on disk: the windows in view (one streamed, or consecutive kept
                                           // ones, or all when resident)
  };
  /// The first view of a pass over the grid (streaming from disk: window 0's, reading ahead).
  Expected<GridView> start_grid_pass();
  /// The view of the window(s) after `view`'s; an internal error past the last one (a task waiting
  /// for records the grid does not have).
  Status next_grid_window(GridView& view);
  /// Where (x -> d) begins and ends: the records from block x to block d (a side of cell {x, d}),
  /// in the pair layout or, for grid_by_column_, the column layout.
  std::pair<std::uint64_t, std::uint64_t> grid_records_of(std::uint32_t x, std::uint32_t d) const;

 private:
  void collect_io_counters();
  /// With the input kept in memory (plan_.edge_cache_bytes > 0), faults in task t of T's share of
  /// the vertex states' pages that input records [first, first + records) stand for (state_ in
  /// proportion to the edges); the states' contents are not kept. Otherwise nothing.
  void touch_state_pages(std::uint64_t first, std::uint64_t records, std::size_t t, std::size_t T);
  /// Checks every record of `run` (input records from `first` on) on the pool, one contiguous range
  /// per task, calling on_edge(task, record index, edge) for each valid one; the earliest invalid record is the error.
  /// With `copy_to`, each task also copies its range there (copy_to must have room for the run).
  /// Each task also faults in its share of the states' pages (touch_state_pages).
  template <typename OnEdge>
  Status check_run(std::span<const std::byte> run, std::uint64_t first, OnEdge&& on_edge, std::byte* copy_to = nullptr);
  void init_grid();
  std::vector<std::uint32_t> grid_bucket_order() const;
  template <typename Total>
  std::uint64_t place_buckets(Total&& total);
  void place_counted_buckets(const std::vector<std::vector<std::uint64_t>>& counts);
  void allocate_sources(std::uint64_t room);
  void build_grid();
  Status load_grid_records();
  void finish_grid();
  template <bool kFirstRunOnly, typename Stage, typename OnRun>
  Status check_count_and(Stage&& stage, OnRun&& on_run);
  Status check_and_count();
  std::vector<std::uint8_t> bucket_owners() const;
  Status place_from_input(std::uint64_t lo, std::uint64_t slab, std::byte* out);
  Expected<std::byte*> grid_slab_buffer(std::uint64_t slab);
  std::span<std::byte> grid_free_room();
  Status write_grid_window(GridWindow& window, std::span<const std::byte> bytes);
  std::uint64_t grid_spread_room() const;
  bool grid_spread_keeps(const GridWindow& window, std::uint64_t built_bytes, std::uint64_t built_records);
  Status spread_kept_windows();
  Status keep_or_write_grid_window(GridWindow& window, std::byte* data, bool keep);
  Status grid_view_from(std::uint64_t w, GridView& view);
  std::uint64_t grid_slab_records() const;
  std::vector<std::uint64_t> grid_slab_bounds(std::span<const std::uint64_t> cuts = {}) const;
  Status write_grid_slab(std::uint64_t lo, std::uint64_t slab, std::byte* records);
  Status append_grid_window(std::uint64_t first, std::uint64_t count, std::byte* data, std::uint64_t used, std::uint64_t first_piece);
  Status load_resident_grid();
  void mark_grid_resident();
  Status build_staged(std::uint64_t groups, std::uint64_t block);

 protected:
  GraphInfo graph_;
  EngineOptions options_;
  EngineProgramTraits traits_;
  MemoryPlan plan_;
  RunStats stats_;
  SuperstepStats current_;
  std::uint64_t K_ = 1;
  std::uint64_t cache_keys_ = 1;
  std::uint64_t keys_ = 1;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<FrameScratch> frame_scratch_;  // one per worker: the frames it compresses
  AlignedBuffer state_;
  AlignedBuffer edge_cache_;   // the input's records (K = 1, when the plan has room for them)
  bool edges_cached_ = false;  // edge_cache_ holds every record (after the first superstep)
  AlignedBuffer grid_;         // the cached records grouped by block-pair cell (replaces edge_cache_)
  GridLayout grid_layout_ = GridLayout::kFull;
  AlignedBuffer sources_;      // ProgramWithSource: each vertex's Source for the current superstep (grid only)
  std::vector<std::uint64_t> bucket_begin_;  // first record of each bucket (cells in schedule order)
  std::vector<std::uint64_t> cell_end_;      // one past the last record of each cell
  std::uint32_t grid_blocks_ = 1;
  GridBucketing bucketing_;
  unsigned grid_bucket_bits_ = 1;            // buckets per cell = 1 << grid_bucket_bits_
  std::size_t grid_record_bytes_ = 0;
  std::vector<std::vector<BlockTask>> schedule_;
  bool grid_ready_ = false;
  bool grid_on_disk_ = false;                // the grid is in grid_file_ (K = 1 without room for the edges)
  bool grid_resident_ = false;               // the whole grid file is in grid_windows_, at its file offsets
  // While building: grid_keep_, windows may stay in grid_windows_ and not be written (the plan gave
  // the grid more room than two windows); grid_keep_all_ (only with grid_keep_), every window so far
  // did, at its file offset (the grid may stay resident). A grid too large for the room is kept in part: a set of
  // its windows spread evenly over it (EngineBase::grid_spread_keeps) stays in grid_windows_, packed
  // in grid order (GridWindow::memory; grid_kept_bytes_ in all) and never written; the others are
  // read every superstep into the two window buffers after them, each while the windows before it
  // are scattered.
  bool grid_keep_ = false;
  bool grid_keep_all_ = false;
  std::uint64_t grid_kept_bytes_ = 0;
  double grid_keep_credit_ = 0;              // grid_spread_keeps: the kept bytes owed to the windows so far
  // The on-disk grid is laid out by destination block (traits_.by_destination): (x -> d) for x =
  // 0, 1, ... for d = 0, 1, ...; otherwise cell by cell in schedule order (the pair layout).
  bool grid_by_column_ = false;
  File grid_file_;
  std::uint64_t grid_file_bytes_ = 0;        // the grid file's bytes: its windows, each padded to the I/O alignment
  AlignedBuffer grid_windows_;               // plan_.grid_memory_bytes: the grid's kept windows (all of them when
                                             // resident), then two window buffers for the streamed ones
  std::vector<GridWindow> grid_disk_windows_;  // the grid file's windows (one or two per slab), in order
  std::vector<GridPiece> grid_pieces_;       // --grid_codec ef: every window's pieces, in order
  GridKeys grid_keys_;                       // the compact records' sort keys (core/grid_codec.hpp)
  // Every bucket's records are ordered by source (traits_.grid_by_source: the Elias-Fano grid's
  // keys, or the in-memory grid sorted once placed): the grid scatter reads the sources' states (or
  // Source) in order; the scatter by destination block prefetches nothing then.
  bool grid_by_source_ = false;
  // The in-memory grid sorted by source (load_grid_records): a bucket larger than this many records
  // is sorted in pieces of this many, each piece by source (0: the in-memory grid is not sorted).
  std::uint64_t grid_sorted_piece_records_ = 0;
  std::vector<std::uint32_t> grid_order_;    // while the on-disk grid is built: grid_bucket_order()
  bool input_validated_ = false;           // every input record has been read and checked once
  // A program that uses each edge once per direction on a symmetric input (traits_.one_way_on_symmetric,
  // the .ini's symmetric=1), with a grid (K = 1) or edge streams (K > 1): check_run and the split
  // sum a signed hash of every record (+ for src < dst, - for its reverse), and input_checked()
  // refuses the input unless the sum is 0, before any superstep.
  bool symmetric_one_way_ = false;
  std::uint64_t symmetry_sum_ = 0;
  // The grid of block-local records of such a program (on disk or in memory) keeps only the records
  // with src <= dst (the others are the reverses of those), scattered both ways: half the grid to
  // build, store and read every superstep. (The in-memory grid of whole records keeps every record
  // and scatters each one way.)
  bool grid_halved_ = false;
  std::uint64_t grid_records_ = 0;  // records in the grid (place_buckets): the input's, or fewer when halved
  std::vector<std::uint8_t> block_active_; // ProgramWithActive: per block of the current partition
  // Engine<P>::kActiveBits with the grid (K = 1), kStreamActiveBits with keyed streams (K > 1): bit
  // v = vertex base_ + v may emit in this superstep (active at its start, or changed since by a
  // gather of the task that owns it). The scatters skip the records whose vertices' bits are clear
  // without reading their states (Engine::active_bit).
  std::vector<std::uint64_t> active_bits_;
  // Bit w = word w of active_bits_ is not zero: 1/64 of its size (16 KiB for 8 Mi vertices), what the
  // keyed scatter tests first (a cache-resident test; most records of a sparse superstep stop there).
  std::vector<std::uint64_t> active_words_;
  std::uint64_t active_vertices_ = 0;  // set bits of active_bits_ at the superstep's start (mark_active_vertices)
  std::uint64_t partition_ = 0;
  std::uint64_t base_ = 0;
  std::uint64_t count_ = 0;
  unsigned set_out_ = 0;
  VolumeSet volumes_;  // scratch volumes, stripe layouts and per-volume counters (declared before the files)
  File input_file_;
  File vertex_file_;
  std::vector<std::uint32_t> state_crc_;      // crc32 of each partition's saved state (scratch checksums)
  std::vector<File> edge_files_;
  std::vector<std::uint64_t> edge_bytes_;     // raw (decoded) bytes per edge stream
  std::vector<std::uint64_t> edge_stored_;    // bytes in the file (frames when compressed)
  // Keyed streams (plan_.segment_records > 0): where each key's records end in every segment of
  // each forward / reverse edge stream (core/keyed_segments.hpp); empty otherwise.
  std::vector<KeyedStreamIndex> edge_index_;
  // Keyed forward streams of programs with active vertices, when framed: each frame's stored offset
  // (FramedWriter::frame_offsets), per partition; frames of edge_frame_bytes_ raw bytes.
  std::vector<std::vector<std::uint64_t>> edge_frames_;
  std::size_t edge_frame_bytes_ = 0;
  std::vector<KeyedStreamIndex> redge_index_;
  std::vector<File> redge_files_;            // reverse-edge programs: edges by destination
  std::vector<std::uint64_t> redge_bytes_;
  std::vector<std::uint64_t> redge_stored_;
  std::vector<File> update_files_[2];
  std::vector<IoCounters> update_counters_[2];
  std::vector<std::unique_ptr<FramedWriter>> writers_[2];
  IoCounters edge_read_counters_;
  IoCounters update_read_counters_;
  std::unique_ptr<CheckpointSession> checkpoint_;  // --checkpoint / --resume
  // The on-disk grid's staging files being removed in the background (build_staged; close_run
  // waits). Declared after volumes_: destroyed (so waited for) before the scratch directory goes.
  std::future<void> staging_removal_;
  // One pass over grid_file_ per superstep; last, so it goes before the buffers and counters it uses.
  std::unique_ptr<GridWindowReader> grid_reader_;
};

}  // namespace edgestream
