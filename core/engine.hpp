// The out-of-core edge-centric engine (X-Stream's model, ARCHITECTURE.md §1 and §3):
//
//  * Vertices are split into K streaming partitions (equal id ranges) chosen by the
//    memory plan; one partition's state is in memory at a time when K > 1.
//  * Setup (K > 1): one pass splits the unordered input into per-partition edge streams by source
//    (undirected programs also get each edge reversed into the destination's stream; programs with
//    direction-aware reverse edges get a second set of streams, by destination). Each stream is
//    written in segments whose records are grouped by the key of the vertex their updates go to
//    (core/keyed_segments.hpp), so the scatter's updates come out grouped: applied or spilled per
//    key without routing (scatter_keyed_piece). --segment_records 0 keeps input order.
//    With K = 1 the input file itself is streamed every superstep: no copy at all.
//  * Superstep s, for each partition p: load state(p), gather the updates emitted for p in s-1
//    from its update stream, prepare, then scatter p's edges. Updates whose target is in memory
//    (partition p; everything when K = 1) are applied at once instead of being written; the others
//    are combined per destination (when the program allows) and appended to the target
//    partition's update stream. Two sets of update streams alternate between supersteps.
//  * Inside a partition, updates are routed by cache-sized second-level partitions so that
//    gathers hit the CPU cache; worker threads take routing and gather tasks dynamically.
//  * All storage traffic is sequential, in chunks, direct I/O through io_uring.
//  * Scratch streams may be compressed (--edges_codec, --updates_codec; compress/framed_stream.hpp):
//    frames are compressed by the worker that fills them (spill tasks; the split pass runs one task
//    per worker, each owning a share of the partitions) and decoded in parallel batches, one frame
//    per worker, while the reader keeps its requests in flight.
//
// Engine<P> holds what depends on the program (scatter, routing, gather, the supersteps); the rest
// (planning, scratch files, the input split, the edge cache and grid construction, partition states
// on storage) is EngineBase (core/engine_base.hpp), compiled once for all programs.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstring>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <filesystem>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/block_schedule.hpp"
#include "core/cancellation.hpp"
#include "core/checkpoint.hpp"
#include "core/engine_base.hpp"
#include "core/engine_options.hpp"
#include "core/grid_window_reader.hpp"
#include "core/memory_plan.hpp"
#include "core/program.hpp"
#include "core/run_stats.hpp"
#include "core/volume_set.hpp"
#include "core/thread_pool.hpp"
#include "compress/framed_stream.hpp"
#include "compress/graph_input.hpp"
#include "io/aligned_buffer.hpp"
#include "io/file.hpp"
#include "io/graph_format.hpp"
#include "io/timeline.hpp"
#include "io/record_stream.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"

namespace edgestream {

/// Receives the final vertex states, one partition at a time in vertex-id order:
/// (first vertex id of the partition, its states).
template <typename Vertex>
using FinalStateVisitor = std::function<Status(VertexId first, std::span<const Vertex> states)>;

template <EdgeProgram P>
class Engine : private EngineBase {
 public:
  using Vertex = typename P::Vertex;
  using Update = typename P::Update;
  using Entry = RoutedUpdate<Update>;
  static constexpr bool kReverse = kHasReverseEdges<P>;
  static constexpr bool kTwoWay = P::kUndirected || kReverse;  // every edge scattered twice
  // The grid scatters skip records by a bit per vertex (mark_active_vertices) for programs that tell
  // their active vertices and scatter from their states. (A narrow Source, bfs's one byte, is that
  // snapshot already: a bit test there only added an unpredictable branch, bfs at 4G 0.60 -> 0.75 s
  // of supersteps; docs/performance.md, session 21.)
  static constexpr bool kActiveBits = ProgramWithActive<P> && !ProgramWithSource<P>;
  // Keyed edge streams (K > 1) scatter from the states (no Source there): every program that tells
  // its active vertices skips records by the bits, instead of reading a state at random per record.
  static constexpr bool kStreamActiveBits = ProgramWithActive<P>;
  // ... and a program whose active sources emit without their states (scatter_active: bfs) reads
  // no state there at all: the bit decides (one-way programs: a stream's reading vertex is the
  // record's source).
  static constexpr bool kStreamBitScatter = ProgramWithActiveScatter<P> && !kReverse;
  // Keyed streams of a program that tells its settled vertices (bfs) drop the updates to the ones
  // known settled (settled_bits_).
  static constexpr bool kStreamSettled = ProgramWithSettled<P> && kStreamActiveBits;
  // route_and_apply groups updates by key with 1 + kExtraHistograms interleaved counter tables
  // when there are at most kMaxInterleavedKeys keys (24 KiB per worker: with the offsets and the
  // spill staging inside the memory plan's 64 KiB per-worker slack).
  static constexpr std::size_t kExtraHistograms = 3;
  static_assert(kExtraHistograms == 3, "route_and_apply steps 4 updates (tables) at a time: i % 4 is i & 3");
  static constexpr std::size_t kMaxInterleavedKeys = 2048;
  static_assert(!ProgramWithDirections<P> || kReverse, "directions() needs kReverseEdges");
  static_assert(sizeof(Entry) == sizeof(VertexId) + sizeof(Update), "an update must pack without padding");

  Engine(GraphInfo graph, EngineOptions options, P program)
      : EngineBase(std::move(graph), with_edges_codec(std::move(options)), program_traits()), program_(std::move(program)) {}

  /// `options` with --edges_codec auto resolved for P: delta when P's keyed scatter skips records
  /// by the active bits (kStreamActiveBits: bfs, cc, sssp), none otherwise. For those the bytes
  /// saved (reads, waits, checksums, copies) outweigh the decoding, also on the local disk:
  /// rmat24 bfs at 96M 15.6 -> 14.1 s (median of 6 pairs, session 50); rmat24-sym cc at 96M
  /// 40.9 -> 38.0 s (means of 5 pairs), rmat22-sym cc at 32M 13.0 -> 11.6 s (3 pairs); sssp about
  /// even to better at a higher CPU cost (rmat24 at 96M 73.6 / 62.2 -> 65.4 / 64.8 s, rmat22 at 32M
  /// 22.0 / 22.7 -> 21.1 / 19.2 s; docs/performance.md, session 56), and much better on slow
  /// volumes (107 -> 70 s at 150 MB/s, session 23).
  /// PageRank reads a state per record of every superstep: delta cost it 8% (session 48).
  /// Options without edges_codec_auto come back as they are.
  static EngineOptions with_edges_codec(EngineOptions options) {
    if (options.edges_codec_auto) {
      options.edges_codec = kStreamActiveBits ? CodecSpec{CodecId::kDelta, 0} : CodecSpec{};
      options.edges_codec_auto = false;
    }
    return options;
  }

  /// Runs the program to completion and hands the final states to `visit`. Scratch files are
  /// removed before returning, whatever the outcome.
  Expected<RunStats> run(const FinalStateVisitor<Vertex>& visit) {
    const auto start = std::chrono::steady_clock::now();
    Status status = Status::ok();
    {
      const timeline::Span span("setup", "engine");
      status = setup();
    }
    stats_.setup_seconds = seconds_since(start);
    if (status.is_ok()) status = iterate(visit);
    close_run();
    ES_RETURN_IF_ERROR(status);
    stats_.engine_seconds = seconds_since(start);
    stats_.peak_rss = peak_rss_bytes();
    if (checkpoint_) stats_.checkpoint = checkpoint_->counters();
    return stats_;
  }

 private:
  static EngineProgramTraits program_traits() {
    EngineProgramTraits traits;
    traits.check_weights = P::kNonNegativeWeights;
    traits.reads_weights = kProgramReadsWeights<P>;
    traits.undirected = P::kUndirected;
    traits.two_way = kTwoWay;
    traits.reverse_edges = kReverse;
    if constexpr (ProgramWithSource<P>) traits.source_bytes = sizeof(typename P::Source);
    traits.by_destination = ProgramWithSource<P> && ProgramWithTargets<P> && !kTwoWay;
    traits.one_way_on_symmetric = program_one_way_on_symmetric<P>();
    traits.active_bits = kActiveBits;
    traits.stream_active_bits = kStreamActiveBits;
    traits.settled_bits = kStreamSettled;
    // A program that tells its active vertices scatters from some sources only: the grid orders
    // each bucket by source (a source's records consecutive, its state or Source read once per run,
    // in order). PageRank (every source scatters) keeps its order: by source its supersteps were
    // 5-10% slower. rmat22 at 4G, supersteps: sssp ~2.1 -> ~1.5 s (docs/performance.md, sessions
    // 25-26). The in-memory grid of a program with a narrow Source (bfs) keeps input order all the
    // same (EngineBase::load_grid_records: there the sort cost more set-up than it saved).
    traits.grid_by_source = ProgramWithActive<P>;
    return traits;
  }

  struct CombinerSlot {
    Entry entry;
    std::uint32_t stamp;
  };
  // Per-task (phase 1/2) and per-worker (phase 3) scratch memory; padded against false sharing.
  struct alignas(64) Worker {
    std::vector<Entry> emitted;         // phase 1 output
    std::size_t emitted_count = 0;
    const Entry* input = nullptr;       // route_and_apply's updates when not emitted (gather_run's run in place)
    std::vector<Entry> routed;          // phase 2 output: emitted, grouped by key
    std::vector<std::uint32_t> offsets; // keys + 1 entries; after routing, key -> end of its range in routed
    std::vector<std::uint32_t> counts;  // kExtraHistograms more key counters (route_and_apply), or empty
    std::uint64_t bad_record = UINT64_MAX;
    Edge bad_edge{};
    std::uint64_t changed = 0;
    std::uint64_t spilled = 0;
    std::uint64_t active = 0;
    std::uint64_t direct = 0;           // grid: updates applied straight from scatter
    Status error;
    std::vector<CombinerSlot> combiner;
    std::uint32_t combiner_stamp = 0;
    std::vector<Entry> staging;         // combined updates waiting to be appended
    std::vector<std::uint32_t> touched; // combiner slots in use by the current spill
    FrameScratch* frame_scratch = nullptr;  // frame_scratch_[worker]: compression output of the frames it fills
    AlignedBuffer decoded;              // on-disk grid, --grid_codec ef: the piece being scattered, decoded
  };

  // ---- setup ------------------------------------------------------------------------------

  Status setup() {
    ES_RETURN_IF_ERROR(start_checkpoints());
    MemoryPlanInput input;
    input.vertex_bytes = sizeof(Vertex);
    input.entry_bytes = sizeof(Entry);
    if constexpr (ProgramWithPlannedSupersteps<P>) input.planned_supersteps = program_.planned_supersteps();
    ES_RETURN_IF_ERROR(plan_run(input));
    std::uint64_t state_vertices = std::min<std::uint64_t>(graph_.vertices, plan_.partition_vertices());
    if (plan_.grid_window_bytes > 0) state_vertices = grid_padded_vertices();  // whole blocks (scatter_grid_as)
    state_ = AlignedBuffer::huge(std::max<std::uint64_t>(plan_.state_bytes, state_vertices * sizeof(Vertex)));
    if (K_ == 1) {
      make_workers();
      // With room for the input, read (and check) it once now; supersteps then stream memory.
      if (plan_.edge_cache_bytes > 0 && graph_.edges > 0) {
        const timeline::Span span("load edge cache", "setup");
        return load_edge_cache();
      }
      // Without room for them, as a grid on disk when the plan has one (read back every superstep).
      if (plan_.grid_window_bytes > 0 && graph_.edges > 0) return build_disk_grid();
      return Status::ok();
    }

    // K > 1: the split pass stages records in the workers' planned room (EngineBase::split_input);
    // their buffers are made after it.
    ES_RETURN_IF_ERROR(open_streams());
    {
      const timeline::Span span("split input", "setup");
      ES_RETURN_IF_ERROR(split_input());
    }
    make_workers();
    return input_checked();
  }

  // Each worker's batch buffers (the plan's worker term), and its frame buffer.
  void make_workers() {
    workers_.resize(plan_.threads);
    const std::size_t per_task = plan_.batch_records * (kTwoWay ? 2 : 1) * P::kMaxEmitsPerEdge;
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      w.frame_scratch = &frame_scratch_[i];
      w.emitted.resize(per_task);
      w.routed.resize(per_task);
      w.offsets.resize(keys_ + 1);
      if (keys_ + 1 <= kMaxInterleavedKeys) w.counts.resize(kExtraHistograms * (keys_ + 1));
      if (plan_.grid_window_bytes > 0 && plan_.grid_codec == GridCodec::kEliasFano) {
        w.decoded = AlignedBuffer(kGridPieceBufferBytes);
      }
      if (K_ > 1) {
        w.combiner.resize(plan_.combiner_slots);
        w.staging.reserve(1024);
        w.touched.reserve(plan_.combiner_slots);
      }
    }
  }

  // ---- supersteps -------------------------------------------------------------------------

  Status iterate(const FinalStateVisitor<Vertex>& visit) {
    std::uint32_t s = 0;
    if (checkpoint_) ES_RETURN_IF_ERROR(resume_checkpoint(s));
    const std::uint32_t first = s;
    for (;; ++s) {
      const auto superstep_start = std::chrono::steady_clock::now();
      const timeline::Span superstep_span("superstep", "engine", s);
      current_ = SuperstepStats{};
      current_.superstep = s;
      if (s == first && s > 0) current_.changed = checkpoint_->resumed_changed();
      set_out_ = s & 1U;
      for (auto& writer : writers_[set_out_]) writer->restart();
      // A checkpoint of the boundary before s: the states after s - 1's updates, before prepare.
      const bool checkpointing = checkpoint_ && checkpoint_->due(s);
      std::uint64_t pending_changed = 0;  // vertices changed by s - 1's updates
      if (checkpointing) ES_RETURN_IF_ERROR(begin_checkpoint(s));
      for (std::uint64_t p = 0; p < K_; ++p) {
        if (cancel_requested()) return cancelled();
        select_partition(p);
        if (s == 0) {
          for_each_vertex([&](VertexId v, Vertex& state) { program_.init(v, state); });
        } else if (s == first) {  // resumed: the checkpoint holds exactly these states
          ES_RETURN_IF_ERROR(checkpoint_->read_state(base_, std::span(state_.data(), count_ * sizeof(Vertex))));
        } else {
          const timeline::Span gather_span("gather", "engine", static_cast<std::int64_t>(p));
          ES_RETURN_IF_ERROR(load_partition(p));
          const std::uint64_t before = current_.changed;
          ES_RETURN_IF_ERROR(gather_pending(p, (s - 1) & 1U, s - 1));
          pending_changed += current_.changed - before;
        }
        if (checkpointing) ES_RETURN_IF_ERROR(checkpoint_->add_state(std::span(state_.data(), count_ * sizeof(Vertex))));
        if constexpr (P::kHasPrepare) current_.active += prepare_partition(s);
        // Programs that tell which vertices can emit: a partition with none is not scattered
        // (once every input record has been checked), and grid cells of inactive blocks are skipped.
        bool idle = false;
        if constexpr (ProgramWithActive<P>) idle = mark_active_blocks(s) == 0 && input_validated_;
        if (!idle) {
          const timeline::Span scatter_span("scatter", "engine", static_cast<std::int64_t>(p));
          ES_RETURN_IF_ERROR(scatter_partition(p, s));
        }
        ES_RETURN_IF_ERROR(save_partition(p));
      }
      {
        const timeline::Span finish_span("finish writes", "engine");
        for (auto& writer : writers_[set_out_]) ES_RETURN_IF_ERROR(writer->finish(frame_scratch_[0]));
      }
      if (s == first && checkpoint_) checkpoint_->end_resume();
      if (checkpointing) ES_RETURN_IF_ERROR(checkpoint_->commit(pending_changed));
      stats_.updates_emitted += current_.emitted;
      stats_.updates_in_memory += current_.in_memory;
      stats_.updates_spilled += current_.spilled;
      stats_.per_superstep.push_back(current_);
      ++stats_.supersteps;
      if (options_.heartbeat) {
        std::cerr << "HEARTBEAT superstep " << s << " emitted " << current_.emitted << " spilled " << current_.spilled
                  << " changed " << current_.changed << " seconds " << seconds_since(superstep_start) << std::endl;
      }
      if (program_.done(current_)) break;
    }
    // Final pass: deliver what the last superstep spilled, finish, and hand the states over.
    for (std::uint64_t p = 0; p < K_; ++p) {
      if (cancel_requested()) return cancelled();
      const timeline::Span gather_span("final gather", "engine", static_cast<std::int64_t>(p));
      select_partition(p);
      ES_RETURN_IF_ERROR(load_partition(p));
      ES_RETURN_IF_ERROR(gather_pending(p, s & 1U, s));
      if constexpr (P::kHasPrepare) prepare_partition(s + 1);
      ES_RETURN_IF_ERROR(visit(static_cast<VertexId>(base_), std::span<const Vertex>(states(), count_)));
    }
    return Status::ok();
  }

  // ---- checkpoints (core/checkpoint.hpp) -----------------------------------------------------------

  // With --checkpoint/--resume: the session (a resume is verified and checked against this run, and
  // fixes the plan's partition count, batch and request sizes before planning).
  Status start_checkpoints() {
    if (!options_.checkpoint.enabled()) return Status::ok();
    if constexpr (!kCheckpointable<P>) {
      return Status{StatusCode::kUnsupported, "--checkpoint/--resume: this algorithm's engine program does not support checkpoints"};
    } else {
      ES_ASSIGN_OR_RETURN(CheckpointIdentity id, CheckpointIdentity::of_run(graph_, options_, sizeof(Vertex), sizeof(Update)));
      ES_ASSIGN_OR_RETURN(checkpoint_, CheckpointSession::start(options_.checkpoint, std::move(id), options_));
      return Status::ok();
    }
  }

  // Resuming: the program's members and the statistics as they were; `s` = the superstep to run.
  Status resume_checkpoint(std::uint32_t& s) {
    if constexpr (kCheckpointable<P>) {
      if (!checkpoint_->resuming()) return Status::ok();
      StateReader program(checkpoint_->resumed_program(), "checkpoint " + checkpoint_->resumed_file() + " (program fields)");
      ES_RETURN_IF_ERROR(load_program_state(program_, program));
      ES_RETURN_IF_ERROR(program.expect_end());
      StateReader progress(checkpoint_->resumed_progress(), "checkpoint " + checkpoint_->resumed_file() + " (statistics)");
      ES_RETURN_IF_ERROR(load_progress(progress, stats_));
      s = checkpoint_->first_superstep();
    }
    return Status::ok();
  }

  Status begin_checkpoint(std::uint32_t s) {
    if constexpr (kCheckpointable<P>) {
      StateWriter program;
      save_program_state(program_, program);
      StateWriter progress;
      save_progress(stats_, progress);
      return checkpoint_->begin(s, program.bytes(), progress.bytes());
    } else {
      return Status::ok();
    }
  }


  Vertex* states() { return reinterpret_cast<Vertex*>(state_.data()); }


  // Calls fn(v, state) for every vertex of the current partition, in parallel by cache partition.
  template <typename Fn>
  void for_each_vertex(Fn&& fn) {
    Vertex* st = states();
    const std::uint64_t per_task = std::uint64_t{1} << plan_.cache_shift;
    const std::size_t tasks = (count_ + per_task - 1) / per_task;
    pool_->run(tasks, [&](std::size_t task, unsigned) {
      const std::uint64_t end = std::min(count_, (task + 1) * per_task);
      for (std::uint64_t i = task * per_task; i < end; ++i) fn(static_cast<VertexId>(base_ + i), st[i]);
    });
  }

  // prepare() on every vertex of the current partition; returns how many returned true (0 when
  // prepare returns void). A program with a narrow Source gets each vertex's Source for superstep s
  // in the same pass, when the grid's sources array holds the partition (sources_prepared_: the
  // grid's scatter then does not compute them again; rmat22 PageRank at 4G, one pass over 64 MiB of
  // states per superstep instead of two).
  std::uint64_t prepare_partition(std::uint32_t s) {
    if constexpr (ProgramWithSource<P>) {
      if (sources_.size() >= count_ * sizeof(typename P::Source)) {
        sources_prepared_ = true;
        return prepare_pass<true>(s);
      }
    }
    sources_prepared_ = false;
    return prepare_pass<false>(s);
  }
  template <bool kSources>
  std::uint64_t prepare_pass(std::uint32_t s) {
    using Result = decltype(program_.prepare(VertexId{}, std::declval<Vertex&>(), s));
    for (Worker& w : workers_) w.active = 0;
    Vertex* st = states();
    std::byte* const sources = sources_.data();
    const std::uint64_t per_task = std::uint64_t{1} << plan_.cache_shift;
    const std::size_t tasks = (count_ + per_task - 1) / per_task;
    pool_->run(tasks, [&](std::size_t task, unsigned worker) {
      const std::uint64_t end = std::min(count_, (task + 1) * per_task);
      std::uint64_t active = 0;
      for (std::uint64_t i = task * per_task; i < end; ++i) {
        if constexpr (std::is_same_v<Result, bool>) {
          active += program_.prepare(static_cast<VertexId>(base_ + i), st[i], s) ? 1 : 0;
        } else {
          program_.prepare(static_cast<VertexId>(base_ + i), st[i], s);
        }
        if constexpr (kSources) reinterpret_cast<typename P::Source*>(sources)[i] = program_.source(st[i], s);
      }
      workers_[worker].active += active;
    });
    std::uint64_t total = 0;
    for (const Worker& w : workers_) total += w.active;
    return total;
  }

  // block_active_[b] = some vertex of block b (of the current partition) is active in superstep s;
  // blocks are grid blocks once the grid exists, cache partitions otherwise. Returns how many are.
  std::uint64_t mark_active_blocks(std::uint32_t s) {
    const unsigned shift = grid_ready_ ? plan_.grid_shift : plan_.cache_shift;
    const std::uint64_t per_block = std::uint64_t{1} << shift;
    const std::size_t blocks = (count_ + per_block - 1) / per_block;
    block_active_.assign(blocks, 0);
    active_vertices_ = count_;  // (unknown: as if all; mark_active_vertices counts them)
    // The grid (K = 1) and keyed streams (K > 1) test a bit per vertex instead of its state.
    if constexpr (kActiveBits) {
      if (grid_ready_ && K_ == 1) return mark_active_vertices(s, shift, blocks);
    }
    if constexpr (kStreamActiveBits) {
      if (K_ > 1 && plan_.segment_records > 0) return mark_active_vertices(s, shift, blocks);
    }
    const Vertex* st = states();
    pool_->run(blocks, [&](std::size_t b, unsigned) {
      const std::uint64_t end = std::min(count_, (b + 1) * per_block);
      for (std::uint64_t i = b * per_block; i < end; ++i) {
        if (program_.active(st[i], s)) {
          block_active_[b] = 1;
          return;
        }
      }
    });
    return static_cast<std::uint64_t>(std::count(block_active_.begin(), block_active_.end(), 1));
  }

  // The grid (K = 1) or keyed streams (K > 1): active_bits_ for superstep s (bit v = vertex base_ + v
  // is active: program_.active(state v, s); the states past the vertices, padding whole blocks of the
  // on-disk grid, never), and block_active_ from them. Every state of the partition is read (~8 ms
  // per superstep for rmat22's 4 Mi states on 2 threads); the scatter then tests a bit in the
  // cache instead of reading a state at random per record (rmat24's 8 Mi-vertex partitions: 1 MiB
  // of bits against 64 MiB of states).
  std::uint64_t mark_active_vertices(std::uint32_t s, unsigned shift, std::size_t blocks) {
    // On disk, a damaged record can name any vertex of its blocks (whole blocks of at most 2^16).
    const std::uint64_t covered = grid_on_disk_ ? std::uint64_t{blocks} << shift : count_;
    const std::uint64_t words = (covered + 63) / 64;
    active_bits_.resize(words);  // every word is written below
    active_words_.assign((words + 63) / 64, 0);
    const Vertex* st = states();
    const std::uint64_t n = count_;
    constexpr std::uint64_t kWordsPerTask = 4096;  // whole words of active_words_ per task
    const std::uint64_t tasks = (words + kWordsPerTask - 1) / kWordsPerTask;
    std::vector<std::uint64_t> task_active(tasks, 0);
    // kStreamSettled: the keyed streams' filter learns this partition's settled vertices here, in
    // whole words (partitions of whole words: all of them, or none).
    bool settled = false;
    if constexpr (kStreamSettled) {
      settled = K_ > 1 && plan_.segment_records > 0 && base_ % 64 == 0 && covered == count_;
      if (settled && settled_bits_.empty()) settled_bits_.assign((graph_.vertices + 63) / 64, 0);
    }
    pool_->run(tasks, [&](std::size_t t, unsigned) {
      const std::uint64_t last = std::min(words, (t + 1) * kWordsPerTask);
      std::uint64_t active = 0;
      for (std::uint64_t w = t * kWordsPerTask; w < last; ++w) {
        const std::uint64_t first = w * 64;
        const std::uint64_t end = std::min(n, first + 64);
        std::uint64_t bits = 0;
        for (std::uint64_t v = first; v < end; ++v) bits |= std::uint64_t{program_.active(st[v], s) ? 1U : 0U} << (v - first);
        active_bits_[w] = bits;
        if constexpr (kStreamSettled) {
          if (settled) {
            std::uint64_t done = 0;
            for (std::uint64_t v = first; v < end; ++v) done |= std::uint64_t{program_.settled(st[v], s) ? 1U : 0U} << (v - first);
            settled_bits_[base_ / 64 + w] |= done;
          }
        }
        active_words_[w / 64] |= std::uint64_t{bits != 0 ? 1U : 0U} << (w % 64);
        active += static_cast<std::uint64_t>(std::popcount(bits));
      }
      task_active[t] = active;
    });
    active_vertices_ = std::accumulate(task_active.begin(), task_active.end(), std::uint64_t{0});
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::uint64_t lo = std::uint64_t{b} << shift;
      const std::uint64_t hi = std::min(lo + (std::uint64_t{1} << shift), words * 64);
      for (std::uint64_t w = lo / 64; w * 64 < hi; ++w) {
        // The bits of [lo, hi) in word w.
        const std::uint64_t from = std::max(lo, w * 64) - w * 64;
        const std::uint64_t to = std::min(hi, w * 64 + 64) - w * 64;
        const std::uint64_t mask = (to - from == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (to - from)) - 1)) << from;
        if ((active_bits_[w] & mask) != 0) {
          block_active_[b] = 1;
          break;
        }
      }
    }
    return static_cast<std::uint64_t>(std::count(block_active_.begin(), block_active_.end(), 1));
  }
  // Bit v of active_bits_ (a grid scatter's filter: clear = v cannot emit now).
  static bool active_bit(const std::uint64_t* bits, VertexId v) { return ((bits[v >> 6] >> (v & 63)) & 1U) != 0; }




  // Streams the updates emitted for partition p in superstep `emitted` (set `set`) and applies them.
  Status gather_pending(std::uint64_t p, unsigned set, std::uint32_t emitted) {
    if (K_ == 1) return Status::ok();
    const FramedWriter& writer = *writers_[set][p];
    const std::uint64_t bytes = writer.bytes_appended();
    if (bytes == 0) return Status::ok();
    const File& file = update_files_[set][p];
    ES_ASSIGN_OR_RETURN(auto reader, FramedReader::open(file, writer.bytes_stored(), bytes, plan_.io, writer.framed(),
                                                        plan_.io.write_chunk, plan_.threads, parallel_for(),
                                                        &update_read_counters_, &stats_.updates_codec_io));
    return for_each_record_run(*reader, sizeof(Entry), "update stream " + file.path(),
                               [&](std::span<const std::byte> run, std::uint64_t) -> Status {
      if (cancel_requested()) return cancelled();
      return gather_run(run, emitted, file);
    });
  }

  Status gather_run(std::span<const std::byte> run, std::uint32_t emitted, const File& file) {
    const std::size_t n = run.size() / sizeof(Entry);
    const std::size_t T = workers_.size();
    const std::size_t step = workers_[0].emitted.size() * T;
    for (std::size_t begin = 0; begin < n; begin += step) {
      const std::size_t count = std::min(step, n - begin);
      pool_->run(T, [&](std::size_t t, unsigned) {
        Worker& w = workers_[t];
        const std::size_t lo = begin + count * t / T;
        const std::size_t hi = begin + count * (t + 1) / T;
        // The run is routed where it lies when its entries are aligned (a frame's payload is), else
        // from a copy in the worker's buffer: one copy of every update fewer.
        const std::byte* const first = run.data() + lo * sizeof(Entry);
        if (reinterpret_cast<std::uintptr_t>(first) % alignof(Entry) == 0) {
          w.input = reinterpret_cast<const Entry*>(first);
        } else {
          std::memcpy(static_cast<void*>(w.emitted.data()), first, (hi - lo) * sizeof(Entry));
          w.input = w.emitted.data();
        }
        w.emitted_count = hi - lo;
        w.bad_record = UINT64_MAX;
        for (std::size_t i = 0; i < w.emitted_count; ++i) {
          if (w.input[i].target - base_ >= count_) {
            w.bad_record = lo + i;
            break;
          }
        }
      });
      for (Worker& w : workers_) {
        if (w.bad_record != UINT64_MAX) {
          for (Worker& other : workers_) other.input = nullptr;
          return corruption("update stream " + file.path() + " holds an update for a vertex outside partition " +
                            std::to_string(partition_));
        }
      }
      ES_RETURN_IF_ERROR(route_and_apply(emitted, /*count_emitted=*/false));
    }
    return Status::ok();
  }

  StreamDirections directions_of(std::uint32_t s) const {
    if constexpr (ProgramWithDirections<P>) {
      return program_.directions(s);
    } else {
      return StreamDirections{};
    }
  }

  // Scatters partition p's edges: with K = 1 the input (both directions from one read); with K > 1
  // its forward stream and, for reverse-edge programs, its reverse stream (each only if needed).
  Status scatter_partition(std::uint64_t p, std::uint32_t s) {
    const StreamDirections d = directions_of(s);
    if (K_ == 1) {
      if (!d.forward && !(kReverse && d.reverse)) return Status::ok();
      const std::uint64_t bytes = graph_.edges * graph_.record_size();
      return scatter_stream(input_file_, bytes, bytes, s, ScatterMode{d.forward, d.reverse, true});
    }
    if (d.forward) {
      ES_RETURN_IF_ERROR(scatter_stream(edge_files_[p], edge_bytes_[p], edge_stored_[p], s, ScatterMode{true, false, false},
                                        edge_index_.empty() ? nullptr : &edge_index_[p]));
    }
    if constexpr (kReverse) {
      if (d.reverse) {
        ES_RETURN_IF_ERROR(
            scatter_stream(redge_files_[p], redge_bytes_[p], redge_stored_[p], s, ScatterMode{false, true, false},
                           redge_index_.empty() ? nullptr : &redge_index_[p]));
      }
    }
    return Status::ok();
  }

  // What scatter_run does with each record: forward = scatter from the source; reverse = the
  // reverse direction (undirected programs: flipped scatter; reverse-edge programs:
  // scatter_reverse from the destination); from_input = the records are the raw input (K = 1).
  struct ScatterMode {
    bool forward;
    bool reverse;
    bool from_input;
  };


  // `bytes` of records, stored in `stored` bytes of `file` (a scratch stream is framed when the edge
  // codec is on or scratch checksums are; the input as its .ini says, compress/graph_input.hpp).
  // `index`: the stream is keyed (core/keyed_segments.hpp), scattered segment by segment.
  Status scatter_stream(const File& file, std::uint64_t bytes, std::uint64_t stored, std::uint32_t s, ScatterMode mode,
                        const KeyedStreamIndex* index = nullptr) {
    const bool from_input = mode.from_input;
    const EdgeFileType type = from_input ? graph_.type : program_edge_type();
    const std::size_t rs = edge_record_size(type);
    if (bytes == 0) return Status::ok();
    if (grid_ready_) return scatter_grid(s, mode);
    if (edges_cached_) {
      // Every record was checked when it was first read; stream the copy in read_chunk runs.
      const std::uint64_t run_bytes = plan_.io.read_chunk / rs * rs;
      for (std::uint64_t offset = 0; offset < bytes; offset += run_bytes) {
        if (cancel_requested()) return cancelled();
        const std::uint64_t n = std::min(run_bytes, bytes - offset);
        ES_RETURN_IF_ERROR(scatter_run(std::span<const std::byte>(edge_cache_.data() + offset, n), type, offset / rs, s,
                                       mode, /*validate=*/false, /*scratch=*/nullptr));
      }
      return Status::ok();
    }
    IoCounters* counters = from_input ? &stats_.input_io : &edge_read_counters_;  // reverse streams count as edges
    const bool framed = !from_input && (options_.edges_codec.enabled() || options_.scratch_checksums);
    if constexpr (kStreamActiveBits) {
      if (index != nullptr && mode.forward && !from_input && keyed_scatter_pays(s, mode)) {
        std::vector<FrameExtent> extents;
        if (active_frames(*index, bytes, stored, framed, extents)) return scatter_frames(file, std::move(extents), framed, s, mode, *index);
      }
    }
    ES_ASSIGN_OR_RETURN(auto reader, from_input ? open_input_edges(graph_, file, plan_.io, plan_.threads, parallel_for(),
                                                                   counters, &stats_.input_codec_io)
                                                : FramedReader::open(file, stored, bytes, plan_.io, framed, plan_.io.write_chunk,
                                                                     plan_.threads, parallel_for(), counters, &stats_.edges_codec_io));
    ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, from_input ? "edge file " + file.path() : "edge stream " + file.path(),
                                           [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
      if (cancel_requested()) return cancelled();
      if (index != nullptr && keyed_scatter_pays(s, mode)) return scatter_keyed_run(run, first, s, mode, *index, file);
      return scatter_run(run, type, first, s, mode, /*validate=*/from_input, from_input ? nullptr : &file);
    }));
    if (from_input) return input_checked();  // every record was read and checked
    return Status::ok();
  }



  // The frames of the current partition's keyed forward stream (`bytes` raw, `stored` in its file;
  // framed or not) that hold a segment whose reading-vertex range (KeyedStreamIndex::readers) has an
  // active vertex, as extents of consecutive frames: the rest cannot emit in this superstep. False
  // when every frame does (the stream is read whole) or the frames are not known.
  // (rmat24 bfs at 96M, K = 2: superstep 0 has one active vertex and reads 110 MB of frames instead
  // of the 1.6 GB stream; all edge reads 12.9 -> 10.4 GB; docs/performance.md, session 49.)
  bool active_frames(const KeyedStreamIndex& index, std::uint64_t bytes, std::uint64_t stored, bool framed,
                     std::vector<FrameExtent>& extents) const {
    const std::size_t rs = edge_record_size(program_edge_type());
    const std::uint64_t frame = edge_frame_bytes_;
    const std::uint64_t S = index.segment_records();
    if (frame == 0 || frame % rs != 0 || S == 0 || partition_ >= edge_frames_.size()) return false;
    const std::uint64_t frames = (bytes + frame - 1) / frame;
    const std::vector<std::uint64_t>& offsets = edge_frames_[partition_];
    if (framed && offsets.size() != frames) return false;
    const std::uint64_t* const bits = active_bits_.data();
    const std::uint64_t* const words = active_words_.data();
    std::uint64_t needed = 0;
    for (std::uint64_t f = 0; f < frames; ++f) {
      const std::uint64_t raw_begin = f * frame;
      const std::uint64_t raw_end = std::min(bytes, raw_begin + frame);
      bool need = false;
      for (std::uint64_t g = raw_begin / rs / S; g <= (raw_end / rs - 1) / S && !need; ++g) {
        if (g >= index.segments()) return false;  // not what the split wrote: read it all (the scatter reports it)
        const auto [first, last] = index.readers(g);
        if (first > last) continue;
        if (first < base_ || last - base_ >= count_) return false;
        need = next_active_vertex(bits, words, first - base_, std::uint64_t{last} - base_ + 1) <= std::uint64_t{last} - base_;
      }
      if (!need) continue;
      ++needed;
      const std::uint64_t stored_begin = framed ? offsets[f] : raw_begin;
      const std::uint64_t stored_end = framed ? (f + 1 < frames ? offsets[f + 1] : stored) : raw_end;
      if (!extents.empty() && extents.back().raw_end == raw_begin) {
        extents.back().stored_end = stored_end;
        extents.back().raw_end = raw_end;
      } else {
        extents.push_back(FrameExtent{stored_begin, stored_end, raw_begin, raw_end});
      }
    }
    return needed < frames;
  }

  // Scatters the frames `extents` (active_frames) of keyed stream `file`: its records numbered as in
  // the whole stream.
  Status scatter_frames(const File& file, std::vector<FrameExtent> extents, bool framed, std::uint32_t s, ScatterMode mode,
                        const KeyedStreamIndex& index) {
    const std::size_t rs = edge_record_size(program_edge_type());
    // Extent k's records: [starts[k], starts[k + 1]) of those read, from record raw_begin / rs on.
    std::vector<std::uint64_t> starts{0};
    std::vector<std::uint64_t> firsts;
    for (const FrameExtent& e : extents) {
      starts.push_back(starts.back() + (e.raw_end - e.raw_begin) / rs);
      firsts.push_back(e.raw_begin / rs);
    }
    ES_ASSIGN_OR_RETURN(auto reader, FramedReader::open(file, std::move(extents), plan_.io, framed, plan_.io.write_chunk, plan_.threads,
                                                        parallel_for(), &edge_read_counters_, &stats_.edges_codec_io));
    std::size_t k = 0;
    return for_each_record_run(*reader, rs, "edge stream " + file.path(), [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
      if (cancel_requested()) return cancelled();
      while (!run.empty()) {
        while (k + 1 < firsts.size() && first >= starts[k + 1]) ++k;
        const std::uint64_t n = std::min<std::uint64_t>(run.size() / rs, starts[k + 1] - std::min(first, starts[k + 1]));
        if (n == 0) return internal_error("edge stream " + file.path() + ": more records read than its frames hold");
        ES_RETURN_IF_ERROR(scatter_keyed_run(run.first(n * rs), firsts[k] + (first - starts[k]), s, mode, index, file));
        run = run.subspan(n * rs);
        first += n;
      }
      return Status::ok();
    });
  }

  // One superstep's scatter over the grid: round after round, the disjoint block pairs of a round
  // in parallel. An update whose target lies in the task's two blocks is gathered at once; any
  // other (a program may emit to any vertex) waits in the worker's buffer. A task whose buffer
  // fills stops where it is; the buffered updates are then routed and applied after the round's
  // barrier and the unfinished tasks continue, so memory stays within the plan.
  Status scatter_grid(std::uint32_t s, ScatterMode mode) {
    if constexpr (ProgramWithSource<P>) {
      if (sources_.size() > 0) {
        // Programs with a narrow Source: each vertex's, once, before any of this superstep's
        // gathers (unless prepare_partition computed them just now).
        if (!std::exchange(sources_prepared_, false)) {
          auto* src = reinterpret_cast<typename P::Source*>(sources_.data());
          const Vertex* st = states();
          const std::uint64_t n = count_;
          const std::size_t T = workers_.size();
          pool_->run(T, [&](std::size_t t, unsigned) {
            for (std::uint64_t v = n * t / T; v < n * (t + 1) / T; ++v) src[v] = program_.source(st[v], s);
          });
        }
        if constexpr (ProgramWithTargets<P> && !kTwoWay) {
          // The on-disk grid of such a program is laid out by destination block: scattered by
          // destination block (emits elsewhere are buffered and routed) while it is streamed.
          // With the whole grid in memory (built there, or resident after an on-disk build), a
          // superstep whose updates go to the sources (PageRank's degree count): by source block,
          // the same way (the pair schedule's rounds wait for their largest cell; on the grid laid
          // out by column, every such update would be buffered and routed).
          if ((!grid_on_disk_ || grid_resident_) && emits_to_sources(s, mode)) return scatter_grid_lines<kBySource>(s);
          if (grid_by_column_ || (!grid_on_disk_ && mode.forward && program_.emits_to_destination(s))) {
            return scatter_grid_lines<kByDestination>(s);
          }
        }
        return scatter_grid_layout<true>(s, mode);
      }
    }
    if (grid_by_column_) return Status{StatusCode::kInternal, "edge grid: laid out by destination block without a sources array"};
    return scatter_grid_layout<false>(s, mode);
  }

  // A compact grid record's block-local ids, and the edge they stand for (decode_grid_record's).
  struct GridLocals {
    std::uint32_t src;
    std::uint32_t dst;
    Edge edge;
  };
  template <GridLayout kLayout>
  static GridLocals decode_grid_locals(const std::byte* record, VertexId src_base, VertexId dst_base, std::uint32_t local_mask) {
    static_assert(kLayout != GridLayout::kFull);
    std::uint32_t local;
    std::memcpy(&local, record, 4);
    GridLocals at;
    at.src = local & local_mask;
    at.dst = (local >> 16) & local_mask;
    at.edge.src = src_base + at.src;
    at.edge.dst = dst_base + at.dst;
    at.edge.weight = 1.0F;
    if constexpr (kLayout == GridLayout::kLocal8) std::memcpy(&at.edge.weight, record + 4, 4);
    return at;
  }

  // One grid record as an edge: a whole input record (kFull), or the block-local ids of the task's
  // source and destination blocks (and the weight for kLocal8). Masked: even a damaged record
  // (scratch checksums off) names vertices of those two blocks, whose states exist (padded to whole
  // blocks on disk).
  template <GridLayout kLayout>
  static Edge decode_grid_record(const std::byte* record, EdgeFileType type, VertexId src_base, VertexId dst_base,
                                 std::uint32_t local_mask) {
    if constexpr (kLayout == GridLayout::kFull) {
      return decode_edge(record, type);
    } else {
      return decode_grid_locals<kLayout>(record, src_base, dst_base, local_mask).edge;
    }
  }

  // Before a parallel step of a grid scatter: every worker's buffer empty, its counts zero.
  void begin_grid_step() {
    for (Worker& w : workers_) {
      w.emitted_count = 0;
      w.changed = 0;
      w.direct = 0;
    }
  }
  // After it: the updates the tasks applied themselves are counted, the buffered ones routed and applied.
  Status end_grid_step(std::uint32_t s) {
    std::uint64_t buffered = 0;
    for (const Worker& w : workers_) {
      current_.changed += w.changed;
      current_.emitted += w.direct;
      current_.in_memory += w.direct;
      current_.direct += w.direct;
      buffered += w.emitted_count;
    }
    return buffered > 0 ? route_and_apply(s, /*count_emitted=*/true) : Status::ok();
  }

  // The grid's scatter loops ask for the states (or sources) of the record this many records ahead:
  // a block's states do not stay in the CPU cache between the sparse cells of a large graph, and
  // the accesses are random, so without it every record waits for memory. rmat22 PageRank in
  // memory, by destination block: 16 → 0.143 s per superstep, 32 → ~0.12 s, 64 → 0.09 s, 128 the
  // same as 64; 0.175 s without (docs/performance.md, session 9).
  static constexpr std::uint64_t kGridPrefetchDistance = 64;
  // The in-place scatter of a ProgramWithInPlaceStep chooses per piece of this many records whether
  // to call scatter_gather (no branch on the source, a load of every destination) or scatter_source
  // and gather (a branch per record, which mispredicts where many records emit): scatter_gather when
  // more than 1 / kFusedChoiceShare of the task's previous piece emitted. (rmat22 bfs in memory, -p 2,
  // per superstep: where 57% of the records emit, 0.35-0.38 s unfused, 0.25-0.27 s fused; where 0.5%
  // do, 0.11-0.13 s unfused, 0.22-0.27 s fused. Shares of 4, 8 and 32 ran alike; docs/performance.md,
  // session 37.)
  static constexpr std::uint64_t kFusedChoiceRecords = 16384;
  static constexpr std::uint64_t kFusedChoiceShare = 8;

  // Prefetches what scattering the compact grid record at `ahead` touches: the source's Source (or
  // state) for reading and the destination's state for writing, and the other way round too when
  // every edge is scattered in both directions.
  // With active vertex bits (kActiveBits), vertex 0's lines for a record whose vertices' bits are
  // clear: the scatter skips it.
  template <bool kFromSources>
  void prefetch_grid_record(const std::byte* ahead, VertexId src_base, VertexId dst_base, std::uint32_t local_mask,
                            const Vertex* st, const std::byte* sources, const std::uint64_t* bits) const {
    std::uint32_t local;
    std::memcpy(&local, ahead, 4);
    VertexId from = src_base + (local & local_mask);
    VertexId to = dst_base + ((local >> 16) & local_mask);
    if constexpr (kActiveBits) {
      // Without a branch (as often taken as not in the middle supersteps): vertex 0's lines instead.
      const bool any = active_bit(bits, from) || (kTwoWay && active_bit(bits, to));
      from = any ? from : 0;
      to = any ? to : 0;
    } else {
      (void)bits;
    }
    if constexpr (kFromSources) {
      __builtin_prefetch(sources + from * sizeof(typename P::Source));
    } else {
      __builtin_prefetch(st + from, kTwoWay ? 1 : 0);
    }
    __builtin_prefetch(st + to, 1);
    if constexpr (kTwoWay && kFromSources) {
      __builtin_prefetch(sources + to * sizeof(typename P::Source));
      __builtin_prefetch(st + from, 1);
    }
  }

  // True when the program says superstep s's forward scatter does not emit to the edges'
  // destinations (ProgramWithTargets: PageRank's degree count, whose updates go to the sources).
  bool emits_to_sources(std::uint32_t s, ScatterMode mode) const {
    if constexpr (ProgramWithTargets<P> && !kTwoWay) {
      return mode.forward && !program_.emits_to_destination(s);
    }
    return false;
  }

  // One superstep's scatter over the grid by destination block, for programs with a
  // narrow Source whose superstep emits to edge destinations only (ProgramWithTargets): task d
  // streams the records of every block pair (x -> d), x = 0, 1, ..., B - 1, so block d's states stay
  // in the CPU cache for all of its in-edges and only the 4-byte sources of one block x at a time
  // are read at random. (The pair schedule alternates between both blocks of a cell; on a sparse
  // graph a cell has fewer edges than vertices and nearly every state access there misses the
  // cache.) A task writes the states of its own block only and reads only sources_, which is fixed
  // for the superstep: no races, and every vertex gathers its updates in the same order whatever the
  // number of threads. An emit outside block d is buffered and routed as in scatter_grid_as.
  // The on-disk grid of these programs is laid out this way (EngineBase::grid_records_of): every
  // superstep runs here, the tasks in file order, window by window as in scatter_grid_as.
  // kBySource (the whole grid in memory only): the same by source block, for a superstep whose
  // updates go to the sources (emits_to_sources: PageRank's degree count): task x streams (x -> d),
  // d = 0, ..., B - 1, and gathers into block x. Unlike the pair schedule's rounds (each as long as its largest cell:
  // rmat22's degree count took 0.5 s there, 3.5 times a rank superstep), the tasks need no barrier.
  static constexpr bool kByDestination = false;
  static constexpr bool kBySource = true;
  // scatter_grid_lines_as's record loop calls fused_step when given this (ProgramWithInPlaceStep).
  struct FusedInPlace {};
  // ... and scatter_source, whose emit gathers into the edge's destination, when given this
  // (kProgramEmitsOnlyToDestination).
  struct InPlace {};

  // P's scatter_active for a record whose source's active bit is set (keyed streams,
  // kStreamBitScatter): `source` is not read, except in builds without NDEBUG, which check
  // program.hpp's contract: the state is active and scatter emits the same updates.
  template <typename Emit>
    requires ProgramWithActiveScatter<P>
  void bit_scatter([[maybe_unused]] const Vertex& source, const Edge& e, std::uint32_t superstep, Emit&& emit) const {
#ifndef NDEBUG
    assert(program_.active(source, superstep));
    std::array<Entry, P::kMaxEmitsPerEdge> expected{};
    std::size_t n = 0;
    program_.scatter(source, e, superstep, [&](VertexId target, const Update& u) {
      assert(n < expected.size());
      expected[n++] = Entry{target, u};
    });
    std::size_t at = 0;
    program_.scatter_active(e, superstep, [&](VertexId target, const Update& u) {
      assert(at < n && expected[at].target == target);
      if constexpr (std::has_unique_object_representations_v<Update>) {
        assert(std::memcmp(&expected[at].value, &u, sizeof(Update)) == 0);
      }
      ++at;
      emit(target, u);
    });
    assert(at == n);
#else
    program_.scatter_active(e, superstep, emit);
#endif
  }

  // P's scatter_gather on one record, counted like an emit applied in place. Builds without NDEBUG
  // check it against scatter_source followed by gather on a copy of the state (program.hpp's contract).
  // (The tag makes the call depend on the caller's template argument: compilers then resolve it only
  // for programs that have scatter_gather.)
  template <typename Source>
    requires ProgramWithInPlaceStep<P>
  void fused_step(FusedInPlace, const Source& source, const Edge& e, std::uint32_t superstep, Vertex& dst,
                  std::uint64_t& direct, std::uint64_t& changed) const {
#ifndef NDEBUG
    Vertex expected = dst;
    bool emitted = false;
    bool gathered_change = false;
    program_.scatter_source(source, e, superstep, [&](VertexId target, const Update& u) {
      assert(target == e.dst && !emitted);
      emitted = true;
      gathered_change = program_.gather(target, expected, u, superstep);
    });
#endif
    const InPlaceStep step = program_.scatter_gather(source, e, superstep, dst);
    direct += step.emitted ? 1 : 0;
    changed += step.changed ? 1 : 0;
#ifndef NDEBUG
    assert(step.emitted == emitted && step.changed == gathered_change);
    if constexpr (std::has_unique_object_representations_v<Vertex>) {
      assert(std::memcmp(&expected, &dst, sizeof(Vertex)) == 0);
    }
#endif
  }

  template <bool kRows, GridLayout kLayout>
  Status scatter_grid_lines_as(std::uint32_t s) {
    const std::size_t rs = kLayout == GridLayout::kLocal4 ? 4 : kLayout == GridLayout::kLocal8 ? 8 : graph_.record_size();
    // By destination block, a superstep whose emits P promises go to e.dst (always block d) applies
    // them in place: no test of the target per emit (the on-disk grid laid out by column also
    // streams the other supersteps, PageRank's degree count, here).
    constexpr bool kInPlace = !kRows && kProgramEmitsOnlyToDestination<P>;
    const bool in_place = kInPlace && program_.emits_to_destination(s);
    const unsigned shift = plan_.grid_shift;
    const std::uint32_t local_mask = grid_local_mask();
    // The mask of the largest blocks (2^16 vertices: rmat22 and larger graphs), all of a record's 16-bit ids.
    constexpr std::uint32_t kWholeBlockMask = (std::uint32_t{1} << kMaxLocalIdBits) - 1;
    const EdgeFileType type = graph_.type;
    const std::uint32_t blocks = grid_blocks_;
    const std::byte* const sources = sources_.data();
    const auto* const src = reinterpret_cast<const typename P::Source*>(sources);
    // Task `line` (a destination block d, or with kRows a source block x) streams the pairs
    // (x -> d) of its line, `other` = the other block, 0, 1, ..., B - 1.
    struct Progress {
      std::uint32_t other = 0;   // the other block of the pair being streamed
      std::uint64_t record = 0;  // next record of that pair (absolute index)
      bool started = false;
    };
    const auto pair_records = [this](std::uint32_t line, std::uint32_t other) {
      return kRows ? grid_records_of(line, other) : grid_records_of(other, line);
    };
    std::vector<Progress> progress(blocks);
    std::vector<std::uint32_t> pending(blocks);
    std::iota(pending.begin(), pending.end(), 0U);
    if (!grid_on_disk_ || grid_resident_) {
      // With the whole grid in memory, the largest lines first, so that the last tasks of the
      // superstep are short ones. (Streamed, the columns come in file order, window by window.)
      std::vector<std::uint64_t> line_records(blocks, 0);
      for (std::uint32_t line = 0; line < blocks; ++line) {
        for (std::uint32_t other = 0; other < blocks; ++other) {
          const auto [begin, end] = pair_records(line, other);
          line_records[line] += end - begin;
        }
      }
      std::stable_sort(pending.begin(), pending.end(),
                       [&](std::uint32_t l, std::uint32_t r) { return line_records[l] > line_records[r]; });
    }
    ES_ASSIGN_OR_RETURN(GridView view, start_grid_pass());
    std::vector<std::uint32_t> unfinished;
    while (!pending.empty()) {
      if (cancel_requested()) return cancelled();
      begin_grid_step();
      pool_->run(pending.size(), [&](std::size_t i, unsigned worker) {
        const std::uint32_t line = pending[i];
        Progress& at = progress[line];
        Worker& w = workers_[worker];
        Entry* out = w.emitted.data();
        const std::size_t capacity = w.emitted.size();
        std::size_t k = w.emitted_count;
        std::uint64_t changed = 0;
        std::uint64_t direct = 0;
        Vertex* const st = states();
        const GridView window = view;
        // Copies in this task's frame, not the captured variables: the gathers' stores could
        // alias those, which the loop would then read again for every record.
        const unsigned block_shift = shift;
        const std::uint32_t mask = local_mask;
        const std::uint32_t superstep = s;
        const std::byte* const source_bytes = sources;
        const auto* const source_of = src;
        const bool prefetch = !grid_by_source_;
        auto emit = [&](VertexId target, const Update& u) {
          if ((target >> block_shift) == line) {
            changed += program_.gather(target, st[target], u, superstep) ? 1 : 0;
            ++direct;
          } else {
            out[k++] = Entry{target, u};
          }
        };
        // The in-place path: scatter_gather for the next piece (ProgramWithInPlaceStep). Either is
        // right for a line's first piece: odd lines start fused, so that small graphs (tests) run both.
        bool fuse = (line & 1U) != 0;
        if constexpr (kRows && ProgramWithActive<P>) {
          if (block_active_[line] == 0) at.other = blocks;  // every edge here reads a source of block x
        }
        const VertexId line_base = VertexId{line} << block_shift;
        for (; at.other < blocks; ++at.other, at.started = false) {
          if constexpr (!kRows && ProgramWithActive<P>) {
            if (block_active_[at.other] == 0) continue;  // every edge here reads a source of block x
          }
          const auto [begin, end] = pair_records(line, at.other);
          if (!at.started) {
            at.record = begin;
            at.started = true;
          }
          const VertexId other_base = VertexId{at.other} << block_shift;
          const VertexId src_base = kRows ? line_base : other_base;
          const VertexId dst_base = kRows ? other_base : line_base;
          const auto* const source_block = source_of + src_base;
          Vertex* const state_block = st + dst_base;
          std::uint64_t r = at.record;
          while (r < end && r < window.hi) {
            const std::uint64_t room = (capacity - k) / P::kMaxEmitsPerEdge;  // certainly fit the buffer
            if (room == 0) break;
            std::uint64_t stop = std::min({end, r + room, window.hi});
            const std::byte* record = grid_records_at<kLayout>(window, r, rs, stop, w.decoded.data());
            // The records [r, stop) with `ids_mask` (a constant for blocks of 2^16 vertices: the ids
            // are then the record's two halves, no masking instructions in the loop).
            const auto scatter_records_masked = [&](auto& emit_to, auto ids_mask) {
              using EmitTo = std::remove_cvref_t<decltype(emit_to)>;
              // P on one record: its edge, its source's Source and its destination's state.
              const auto scatter_edge = [&](const typename P::Source& from, const Edge& e, Vertex& to) {
                if constexpr (std::is_same_v<EmitTo, FusedInPlace>) {
                  fused_step(emit_to, from, e, superstep, to, direct, changed);
                } else if constexpr (std::is_same_v<EmitTo, InPlace>) {
                  // P promises its emits go to e.dst (kInPlace): gathered into the state at hand, no
                  // test of the target. (The two lines it shares with emit are written out twice:
                  // through a shared lambda, gcc kept both counters on the stack.)
                  program_.scatter_source(from, e, superstep, [&](VertexId target, const Update& u) {
                    assert(target == e.dst);
                    changed += program_.gather(target, to, u, superstep) ? 1 : 0;
                    ++direct;
                  });
                } else {
                  program_.scatter_source(from, e, superstep, emit_to);
                }
              };
              const auto scatter_record = [&](const std::byte* at_record) {
                if constexpr (kLayout != GridLayout::kFull) {
                  // The pair's sources and states indexed by the record's block-local ids: the
                  // absolute ids (e.src, e.dst) are computed only where the program reads them.
                  const GridLocals at = decode_grid_locals<kLayout>(at_record, src_base, dst_base, ids_mask);
                  scatter_edge(source_block[at.src], at.edge, state_block[at.dst]);
                } else {
                  const Edge e = decode_grid_record<kLayout>(at_record, type, src_base, dst_base, ids_mask);
                  scatter_edge(source_of[e.src], e, st[e.dst]);
                }
              };
              if constexpr (kLayout != GridLayout::kFull) {
                // The records with one kGridPrefetchDistance ahead of them in this range prefetch it
                // (a loop of their own: no test per record), the last ones do not.
                if (prefetch && stop > r + kGridPrefetchDistance) {
                  for (const std::uint64_t lead_end = stop - kGridPrefetchDistance; r < lead_end; ++r, record += rs) {
                    const std::byte* const ahead = record + kGridPrefetchDistance * rs;
                    if constexpr (kRows) {
                      prefetch_source_state(ahead, src_base, ids_mask, st);
                    } else if constexpr (kTwoWay) {
                      prefetch_grid_record<true>(ahead, src_base, dst_base, ids_mask, st, source_bytes, nullptr);
                    } else {  // block-relative, as the records' loads below
                      prefetch_grid_record<true>(ahead, 0, 0, ids_mask, state_block, reinterpret_cast<const std::byte*>(source_block),
                                                 nullptr);
                    }
                    scatter_record(record);
                  }
                }
              }
              for (; r < stop; ++r, record += rs) scatter_record(record);
            };
            const auto scatter_records = [&](auto& emit_to) {
              if constexpr (kLayout != GridLayout::kFull) {
                if (mask == kWholeBlockMask) return scatter_records_masked(emit_to, std::integral_constant<std::uint32_t, kWholeBlockMask>{});
              }
              scatter_records_masked(emit_to, mask);
            };
            if constexpr (kInPlace) {
              if (in_place) {
                InPlace in_place_tag;
                if constexpr (ProgramWithInPlaceStep<P>) {
                  // Pieces of kFusedChoiceRecords, each fused when more than 1/kFusedChoiceShare of
                  // the piece before it (in this task) emitted (ProgramWithInPlaceStep).
                  FusedInPlace fused;
                  for (const std::uint64_t range_end = stop; r < range_end;) {
                    stop = std::min(range_end, r + kFusedChoiceRecords);
                    const std::uint64_t piece_records = stop - r;
                    const std::uint64_t emitted_before = direct;
                    if (fuse) {
                      scatter_records(fused);
                    } else {
                      scatter_records(in_place_tag);
                    }
                    fuse = (direct - emitted_before) * kFusedChoiceShare > piece_records;
                  }
                } else {
                  scatter_records(in_place_tag);
                }
                continue;
              }
            }
            scatter_records(emit);
          }
          at.record = r;
          if (r < end) break;  // the buffer is full or the window ends: continue after the barrier
        }
        w.emitted_count = k;
        w.changed += changed;
        w.direct += direct;
      });
      ES_RETURN_IF_ERROR(end_grid_step(s));
      unfinished.clear();
      bool ready = false;  // some unfinished task can go on in the current window
      for (const std::uint32_t line : pending) {
        const Progress& at = progress[line];
        if (at.other >= blocks) continue;
        unfinished.push_back(line);
        ready = ready || (at.started ? at.record : pair_records(line, at.other).first) < view.hi;
      }
      pending.swap(unfinished);
      // Every task left waits for records past the window (on-disk grid only): the next one.
      if (!pending.empty() && !ready) ES_RETURN_IF_ERROR(next_grid_window(view));
    }
    return Status::ok();
  }

  template <bool kRows>
  Status scatter_grid_lines(std::uint32_t s) {
    switch (grid_layout_) {
      case GridLayout::kLocal4: return scatter_grid_lines_as<kRows, GridLayout::kLocal4>(s);
      case GridLayout::kLocal8:
        if constexpr (kProgramReadsWeights<P>) return scatter_grid_lines_as<kRows, GridLayout::kLocal8>(s);
        return Status{StatusCode::kInternal, "edge grid: 8-byte records for a program that reads no weights"};
      case GridLayout::kFull: break;
    }
    return scatter_grid_lines_as<kRows, GridLayout::kFull>(s);
  }

  // Prefetches, for writing, the state of the source of the compact grid record at `ahead`: all a
  // by-source scatter's gathers touch.
  static void prefetch_source_state(const std::byte* ahead, VertexId src_base, std::uint32_t local_mask, const Vertex* st) {
    std::uint32_t local;
    std::memcpy(&local, ahead, 4);
    __builtin_prefetch(st + src_base + (local & local_mask), 1);
  }

  // The records from r on that lie in one window of the view and in one piece of it (or, in
  // memory, anywhere in the view): a pointer to record r, decoded into `decoded` (a Worker's
  // buffer) when its piece is compressed; lowers `stop` to the end of that run. Pieces never
  // cross buckets, so a run of one bucket side starts in one. A damaged piece (scratch checksums
  // off) decodes to ids that the scatter masks into its blocks.
  template <GridLayout kLayout>
  const std::byte* grid_records_at(const GridView& view, std::uint64_t r, std::size_t rs, std::uint64_t& stop,
                                   std::byte* decoded) const {
    if constexpr (kLayout != GridLayout::kFull) {
      if (!view.windows.empty()) {
        constexpr std::size_t kBytes = kLayout == GridLayout::kLocal8 ? 8 : 4;
        const GridWindow& window = view.windows.size() == 1
                                       ? view.windows.front()
                                       : *std::prev(std::upper_bound(view.windows.begin(), view.windows.end(), r,
                                                                     [](std::uint64_t at, const GridWindow& w) { return at < w.first; }));
        const std::byte* const bytes = view.bytes + (window.offset - view.windows.front().offset);
        stop = std::min(stop, window.end);
        if (window.first_piece == window.end_piece) return bytes + (r - window.first) * kBytes;  // --grid_codec none
        const std::span<const GridPiece> pieces =
            std::span<const GridPiece>(grid_pieces_).subspan(window.first_piece, window.end_piece - window.first_piece);
        const auto p = std::prev(std::upper_bound(pieces.begin(), pieces.end(), r,
                                                  [](std::uint64_t at, const GridPiece& q) { return at < q.first; }));
        const bool last = std::next(p) == pieces.end();
        const std::uint64_t piece_end = last ? window.end : std::next(p)->first;
        stop = std::min(stop, piece_end);
        if (!p->encoded) return bytes + p->offset + (r - p->first) * kBytes;
        const std::uint64_t bytes_end = last ? window.used : std::next(p)->offset;
        (void)decode_grid_piece<kBytes>(*p, piece_end - p->first, std::span(bytes + p->offset, bytes_end - p->offset), grid_keys_,
                                        decoded);
        return decoded + (r - p->first) * kBytes;
      }
    }
    return view.bytes + (r - view.lo) * rs;
  }

  template <bool kFromSources>
  Status scatter_grid_layout(std::uint32_t s, ScatterMode mode) {
    switch (grid_layout_) {
      case GridLayout::kLocal4: return scatter_grid_as<GridLayout::kLocal4, kFromSources>(s, mode);
      case GridLayout::kLocal8:  // only for programs that read weights (init_grid): compiled only for them
        if constexpr (kProgramReadsWeights<P>) return scatter_grid_as<GridLayout::kLocal8, kFromSources>(s, mode);
        return Status{StatusCode::kInternal, "edge grid: 8-byte records for a program that reads no weights"};
      case GridLayout::kFull: break;
    }
    return scatter_grid_as<GridLayout::kFull, kFromSources>(s, mode);
  }

  template <GridLayout kLayout, bool kFromSources>
  Status scatter_grid_as(std::uint32_t s, ScatterMode mode) {
    const std::size_t rs = kLayout == GridLayout::kLocal4 ? 4 : kLayout == GridLayout::kLocal8 ? 8 : graph_.record_size();
    const unsigned shift = plan_.grid_shift;
    const std::uint32_t local_mask = grid_local_mask();
    const std::uint64_t side_bucket = std::uint64_t{1} << (grid_bucket_bits_ - 1);  // first bucket of side 1
    const EdgeFileType type = graph_.type;
    ES_ASSIGN_OR_RETURN(GridView view, start_grid_pass());
    constexpr std::size_t kEmitsPerRecord = P::kMaxEmitsPerEdge * (kTwoWay ? 2 : 1);
    // A sparse superstep of the in-memory grid sorted by source: records of inactive sources are
    // jumped over (kSkipsInactiveSources).
    bool sparse = false;
    if constexpr (kSkipsInactiveSources && kLayout != GridLayout::kFull) {
      // (Only the in-memory grid is sorted so: its records lie at view.bytes, no windows.)
      sparse = grid_sorted_piece_records_ > 0 && mode.forward && active_vertices_ * kSparseShare < count_;
      assert(!sparse || view.windows.empty());
    }
    const std::uint64_t bit_limit = active_bits_.size() * 64;  // vertices covered by the bits
    // With the active vertex bits, fewer than 1 / kPrefetchShare of the vertices active: no prefetch
    // (kPrefetchShare below).
    const bool prefetch = !kActiveBits || active_vertices_ * kPrefetchShare >= count_;
    struct Progress {
      std::uint32_t cell = 0;      // index into the task's cell[]
      std::uint64_t record = 0;    // next record of that cell (absolute index)
      bool started = false;
    };
    std::vector<Progress> progress;
    std::vector<std::size_t> pending;
    std::vector<std::size_t> unfinished;
    for (const std::vector<BlockTask>& round : schedule_) {
      if (cancel_requested()) return cancelled();
      progress.assign(round.size(), Progress{});
      pending.resize(round.size());
      for (std::size_t i = 0; i < round.size(); ++i) pending[i] = i;
      while (!pending.empty()) {
        begin_grid_step();
        pool_->run(pending.size(), [&](std::size_t i, unsigned worker) {
          const BlockTask& task = round[pending[i]];
          Progress& at = progress[pending[i]];
          Worker& w = workers_[worker];
          Entry* out = w.emitted.data();
          const std::size_t capacity = w.emitted.size();
          std::size_t k = w.emitted_count;
          std::uint64_t changed = 0;
          std::uint64_t direct = 0;
          Vertex* const st = states();
          const std::uint32_t a = task.a;
          const std::uint32_t b = task.b;
          const GridView window = view;
          const std::uint64_t hi = window.hi;
          // Locals, not reads through `this`, `mode` or the captured variables: the gathers'
          // stores could alias those, which the loop would then read again for every record.
          const std::byte* const sources = sources_.data();
          const unsigned block_shift = shift;
          const std::uint32_t mask = local_mask;
          const std::uint32_t superstep = s;
          const bool forward = mode.forward;
          const bool reverse = mode.reverse;
          // Undirected on a symmetric input: a grid of whole records scatters each record one way
          // (its reverse record does the other); a halved grid keeps only one of the two, both ways.
          const bool both_ways = !symmetric_one_way_ || grid_halved_;
          // kActiveBits: the active vertex bits. A vertex this task changes gets its bit when its
          // new state is active (bfs: a vertex reached now is not), so that its later records in
          // this superstep scatter its new state, as without the bits; only when the task owns
          // whole 64-bit words of bits (blocks of at least 64 vertices).
          // (A vertex changed by a routed update keeps a clear bit until the next superstep: its
          // records skipped before then are as if scattered before that update, which they may be.)
          std::uint64_t* const bits = active_bits_.data();
          std::uint64_t* const words = active_words_.data();
          const bool track = block_shift >= 6;
          // The bits' summary (active_words_) too, which only the jumps of a sparse superstep read:
          // only then, and only when the task owns whole words of it (blocks of at least 4096
          // vertices); a word it leaves clear only hides the vertices changed in it until the next
          // superstep (mark_active_vertices recomputes the summary).
          const bool track_words = sparse && block_shift >= 12;
          auto emit = [&](VertexId target, const Update& u) {
            const std::uint32_t block = target >> block_shift;
            if (block == a || block == b) {
              if (program_.gather(target, st[target], u, superstep)) {
                ++changed;
                if constexpr (kActiveBits) {
                  if (track && program_.active(st[target], superstep)) {
                    bits[target >> 6] |= std::uint64_t{1} << (target & 63);
                    if constexpr (kSkipsInactiveSources) {
                      if (track_words) words[target >> 12] |= std::uint64_t{1} << ((target >> 6) & 63);
                    }
                  }
                }
              }
              ++direct;
            } else {
              out[k++] = Entry{target, u};
            }
          };
          for (; at.cell < task.cells; ++at.cell, at.started = false) {
            const std::uint64_t c = task.cell[at.cell];
            if constexpr (ProgramWithActive<P>) {
              // Every edge of cell {x, y} reads a state of block x or y.
              const bool active = c == block_cell(a, b) ? block_active_[a] != 0 || block_active_[b] != 0
                                  : c == block_cell(a, a) ? block_active_[a] != 0
                                                          : block_active_[b] != 0;
              if (!active) continue;
            }
            if (!at.started) {
              at.record = bucket_begin_[c << grid_bucket_bits_];
              at.started = true;
            }
            const std::uint64_t end = cell_end_[c];
            // Cell {x, y}, x <= y: its side-0 buckets hold edges y -> x, its side-1 buckets x -> y.
            const std::uint64_t side1 = bucket_begin_[(c << grid_bucket_bits_) | side_bucket];
            const std::uint32_t x = c == block_cell(b, b) ? b : a;
            const std::uint32_t y = c == block_cell(a, a) ? a : b;
            std::uint64_t r = at.record;
            while (r < end && r < hi) {
              // Records that certainly fit in the buffer's free room (and lie on one side and in
              // the window), then check again.
              const std::uint64_t room = (capacity - k) / kEmitsPerRecord;
              if (room == 0) break;
              std::uint64_t stop = std::min({r < side1 ? side1 : end, r + room, hi});
              const VertexId src_base = (r < side1 ? y : x) << block_shift;
              const VertexId dst_base = (r < side1 ? x : y) << block_shift;
              if constexpr (kSkipsInactiveSources && kLayout != GridLayout::kFull) {
                if (sparse) {
                  // [r, stop): the records whose sources' bits are set, the others jumped over.
                  constexpr std::size_t kBytes = kLayout == GridLayout::kLocal8 ? 8 : 4;  // rs
                  const auto record_at = [&window](std::uint64_t i) { return window.bytes + (i - window.lo) * kBytes; };
                  const std::uint64_t limit = std::min<std::uint64_t>(src_base + (std::uint64_t{1} << block_shift), bit_limit);
                  std::uint64_t run_end = r;  // the end of record r's sorted run
                  while (r < stop) {
                    if (r >= run_end) run_end = sorted_run_end(c, r);
                    const Edge e = decode_grid_record<kLayout>(record_at(r), type, src_base, dst_base, mask);
                    if (active_bit(bits, e.src)) {
                      program_.scatter(st[e.src], e, superstep, emit);  // (sparse: mode.forward)
                      ++r;
                      continue;
                    }
                    const std::uint64_t next = next_active_vertex(bits, words, std::uint64_t{e.src} + 1, limit);
                    r = first_record_from_source(record_at, r, std::min(run_end, stop), static_cast<std::uint32_t>(next - src_base), mask);
                  }
                  continue;
                }
              }
              const std::byte* record = grid_records_at<kLayout>(window, r, rs, stop, w.decoded.data());
              for (; r < stop; ++r, record += rs) {
                if constexpr (kLayout != GridLayout::kFull) {
                  // Records by source are prefetched too, although their sources' states are read
                  // in order and their destinations' lie in one sub-bucket: rmat22 sssp at 4G,
                  // supersteps 3.75 -> 3.05 s on the AMD VM (10 pairs; its caches miss those strided
                  // reads), 1.42-1.51 -> 1.61-1.70 s on the Intel one (docs/performance.md, sessions
                  // 26 and 28).
                  if (prefetch && r + kGridPrefetchDistance < stop) {
                    prefetch_grid_record<kFromSources>(record + kGridPrefetchDistance * rs, src_base, dst_base, mask, st, sources, bits);
                  }
                }
                const Edge e = decode_grid_record<kLayout>(record, type, src_base, dst_base, mask);
                if constexpr (kActiveBits) {
                  // A record whose vertices' bits are clear emits nothing (their states are as at
                  // the superstep's start, inactive): not even their states are read.
                  bool scatter = forward && active_bit(bits, e.src);
                  if constexpr (P::kUndirected) scatter = scatter || (both_ways && active_bit(bits, e.dst));
                  if constexpr (kReverse) scatter = scatter || (reverse && active_bit(bits, e.dst));
                  if (!scatter) continue;
                }
                if constexpr (kFromSources) {
                  const auto* src = reinterpret_cast<const typename P::Source*>(sources);
                  if (forward) program_.scatter_source(src[e.src], e, superstep, emit);
                  if constexpr (P::kUndirected) {
                    if (both_ways) program_.scatter_source(src[e.dst], Edge{e.dst, e.src, e.weight}, superstep, emit);
                  }
                } else {
                  if (forward) program_.scatter(st[e.src], e, superstep, emit);
                  if constexpr (P::kUndirected) {
                    if (both_ways) program_.scatter(st[e.dst], Edge{e.dst, e.src, e.weight}, superstep, emit);
                  }
                }
                if constexpr (kReverse) {
                  if (reverse) program_.scatter_reverse(st[e.dst], e, superstep, emit);
                }
              }
            }
            at.record = r;
            if (r < end) break;  // the buffer is full or the window ends: continue after the barrier
          }
          w.emitted_count = k;
          w.changed += changed;
          w.direct += direct;
        });
        ES_RETURN_IF_ERROR(end_grid_step(s));
        unfinished.clear();
        bool ready = false;  // some unfinished task can go on in the current window
        for (const std::size_t i : pending) {
          const Progress& at = progress[i];
          if (at.cell >= round[i].cells) continue;
          unfinished.push_back(i);
          const std::uint64_t position = at.started ? at.record : bucket_begin_[round[i].cell[at.cell] << grid_bucket_bits_];
          ready = ready || position < view.hi;
        }
        pending.swap(unfinished);
        // Every task left waits for records past the window (on-disk grid only: in memory the
        // window is the whole grid): move to the next one.
        if (!pending.empty() && !ready) ES_RETURN_IF_ERROR(next_grid_window(view));
      }
    }
    return Status::ok();
  }

  // A program whose records emit from their sources only (sssp; not two-way) scatters a sparse
  // superstep of the in-memory grid sorted by source (fewer than 1 / kSparseShare of the vertices
  // active at its start) by jumping over the records of inactive sources: from a record whose
  // source's bit is clear, a galloping search in its sorted run finds the first record of the next
  // source whose bit is set, instead of testing every record's bit. A source's records lie in ~256
  // buckets (rmat22: 16 each on average), so each active source costs ~256 searches: it pays only
  // when very few are active. rmat22 sssp at 4G, per superstep (docs/performance.md, session 43):
  // 41 active 0.079 -> 0.020 s, 699 active 0.086 -> 0.043 s, 5.5K (0.13%) 0.086 -> 0.075 s, but
  // 25K (0.6%) 0.095 -> 0.12 s; supersteps 1.94 -> 1.84 s, wall 3.27 -> 3.14 s (6 pairs).
  // 1/2048 since the dense supersteps with few active sources skip the prefetch (kPrefetchShare):
  // 5.5K active then 87-94 ms sparse against 54-80 ms dense, 699 active 45-53 ms sparse against
  // 42-71 dense (AMD VM, 8 runs each; 1/512 before; docs/performance.md, session 46).
  static constexpr bool kSkipsInactiveSources = kActiveBits && !kTwoWay;
  static constexpr std::uint64_t kSparseShare = 2048;
  // The records' prefetch (prefetch_grid_record) pays for programs with active vertex bits only while
  // many sources are active: with few, most records are skipped after their bit test, and the
  // prefetch's own work (a second bit test and two addresses per record, ahead) costs more than the
  // misses it saves. Without it below 1/4 of the vertices active, rmat22 sssp at 4G on the AMD VM,
  // 10 alternating pairs: the supersteps with 23%, 13%, 6% and 0.6% of the vertices active
  // (medians) 336 -> 272, 261 -> 216, 188 -> 182 and 120 -> 89 ms, those with 36-76% as before (they
  // keep it; never prefetching made them slower, 232 -> 302 ms at 52%); all supersteps 0.93x (paired
  // median), wall 0.95x (docs/performance.md, session 46).
  static constexpr std::uint64_t kPrefetchShare = 4;

  // The first vertex of [from, limit) whose bit is set, or limit (at most the bits' size). `words`:
  // bit w set when word w of `bits` may be non-zero (active_words_).
  static std::uint64_t next_active_vertex(const std::uint64_t* bits, const std::uint64_t* words, std::uint64_t from,
                                          std::uint64_t limit) {
    if (from >= limit) return limit;
    std::uint64_t w = from >> 6;
    const std::uint64_t last = (limit - 1) >> 6;
    std::uint64_t word = bits[w] & (~std::uint64_t{0} << (from & 63));
    while (word == 0) {
      // The next word that may hold a set bit, by the summary.
      if (++w > last) return limit;
      std::uint64_t summary = words[w >> 6] & (~std::uint64_t{0} << (w & 63));
      while (summary == 0) {
        w = (w | 63) + 1;
        if (w > last) return limit;
        summary = words[w >> 6];
      }
      w = (w & ~std::uint64_t{63}) + static_cast<std::uint64_t>(std::countr_zero(summary));
      if (w > last) return limit;
      word = bits[w];
    }
    return std::min(limit, w * 64 + static_cast<std::uint64_t>(std::countr_zero(word)));
  }

  // One past the last record of the run sorted by source that holds record r of cell `cell` (the
  // in-memory grid sorted by source): its bucket, or the piece of it sorted as one.
  std::uint64_t sorted_run_end(std::uint64_t cell, std::uint64_t r) const {
    const std::uint64_t* const first = bucket_begin_.data() + (cell << grid_bucket_bits_);
    const std::uint64_t* const last = first + (std::uint64_t{1} << grid_bucket_bits_);
    const std::uint64_t* const bucket = std::prev(std::upper_bound(first, last, r));  // *first <= r
    const std::uint64_t bucket_end = std::next(bucket) == last ? cell_end_[cell] : *std::next(bucket);
    const std::uint64_t piece = grid_sorted_piece_records_;
    return std::min(bucket_end, *bucket + ((r - *bucket) / piece + 1) * piece);
  }

  // The first record of (below, to) whose block-local source is at least `source`, or `to`: the
  // records of [below, to) are sorted by source and record `below`'s is less than `source`.
  // record(i): record i's bytes.
  template <typename RecordAt>
  static std::uint64_t first_record_from_source(RecordAt record, std::uint64_t below, std::uint64_t to, std::uint32_t source,
                                                std::uint32_t local_mask) {
    const auto source_at = [&](std::uint64_t i) {
      std::uint32_t local;
      std::memcpy(&local, record(i), 4);
      return local & local_mask;
    };
    // Gallop: steps of 1, 2, 4, ... past `below` while the sources stay below `source`.
    std::uint64_t above = to;  // the first record known at or past `source`, or `to`
    for (std::uint64_t step = 1; below + step < to; step *= 2) {
      if (source_at(below + step) >= source) {
        above = below + step;
        break;
      }
      below += step;
    }
    // Then bisect (below, above). (Not std::ranges::partition_point over std::views::iota: the
    // sanitizer builds' clang rejects that with this libstdc++.)
    while (above - below > 1) {
      const std::uint64_t mid = below + (above - below) / 2;
      (source_at(mid) >= source ? above : below) = mid;
    }
    return above;
  }

  // scatter_run asks for the state(s) of the record this many records ahead: K > 1 and input-order
  // scatters read the sources' states at random over a partition larger than the CPU cache.
  // rmat22 PageRank 5 it., -k 4 (docs/performance.md, session 9): user CPU -22% at 32; 64 the same.
  static constexpr std::size_t kStreamPrefetchDistance = 32;
  // The gathers of routed and keyed updates ask for the state this many updates ahead. rmat24
  // PageRank 2 it. at 96M (K = 4), user CPU 52.9 / 46.0 / 42.4 / 43.2 -> 42.6 / 39.6 / 35.8 / 34.7 s
  // together with routing gather_run's updates in place (docs/performance.md, session 32).
  static constexpr std::size_t kGatherPrefetchDistance = 16;

  // Scatter of a run of whole edge records of `type`, in parallel steps of batch_records per task, in the
  // directions `mode` asks for; records are checked against the graph's rules when `validate`.
  // Records of a `scratch` edge stream are checked to lie in the current partition: with the `none`
  // codec those streams carry no checksum, and a damaged record must be reported as corruption, not
  // index outside the vertex array (reliability: one flipped byte on the device).
  Status scatter_run(std::span<const std::byte> run, EdgeFileType type, std::uint64_t first_record, std::uint32_t s,
                     ScatterMode mode, bool validate, const File* scratch) {
    const std::size_t rs = edge_record_size(type);
    const std::size_t n = run.size() / rs;
    const std::size_t T = workers_.size();
    const std::size_t step = plan_.batch_records * T;
    for (std::size_t begin = 0; begin < n; begin += step) {
      const std::size_t count = std::min(step, n - begin);
      pool_->run(T, [&](std::size_t t, unsigned) {
        Worker& w = workers_[t];
        const std::size_t lo = begin + count * t / T;
        const std::size_t hi = begin + count * (t + 1) / T;
        Entry* out = w.emitted.data();
        std::size_t k = 0;
        auto emit = [&](VertexId target, const Update& u) { out[k++] = Entry{target, u}; };
        const Vertex* st = states();
        const std::uint64_t base = base_;
        w.bad_record = UINT64_MAX;
        for (std::size_t i = lo; i < hi; ++i) {
          if (i + kStreamPrefetchDistance < hi) {
            // The state(s) the record this many ahead reads: random over the partition's states,
            // which outgrow the CPU cache (checked against the partition: not yet validated).
            const Edge ahead = decode_edge(run.data() + (i + kStreamPrefetchDistance) * rs, type);
            const std::uint64_t from = ahead.src - base;
            if (from < count_) __builtin_prefetch(st + from);
            if constexpr (kTwoWay) {
              const std::uint64_t to = ahead.dst - base;
              if (to < count_) __builtin_prefetch(st + to);
            }
          }
          const Edge e = decode_edge(run.data() + i * rs, type);
          if (validate && !edge_is_valid(e)) {
            w.bad_record = first_record + i;
            w.bad_edge = e;
            break;
          }
          if (scratch != nullptr &&
              ((mode.forward && e.src - base >= count_) || (mode.reverse && e.dst - base >= count_) ||
               e.src >= graph_.vertices || e.dst >= graph_.vertices)) {
            w.bad_record = first_record + i;
            w.bad_edge = e;
            break;
          }
          if (mode.forward) program_.scatter(st[e.src - base], e, s, emit);
          if constexpr (P::kUndirected) {
            // With one partition the input is streamed as is: read each edge in reverse too.
            if (mode.from_input) program_.scatter(st[e.dst - base], Edge{e.dst, e.src, e.weight}, s, emit);
          }
          if constexpr (kReverse) {
            if (mode.reverse) program_.scatter_reverse(st[e.dst - base], e, s, emit);
          }
        }
        w.emitted_count = k;
      });
      const auto [bad, bad_edge] = earliest_bad_record();
      if (bad != UINT64_MAX && scratch != nullptr) return damaged_edge_record(*scratch, bad, bad_edge, rs, "");
      if (bad != UINT64_MAX) return invalid_edge_error(graph_, bad, bad_edge, P::kNonNegativeWeights);
      ES_RETURN_IF_ERROR(route_and_apply(s, /*count_emitted=*/true));
    }
    return Status::ok();
  }

  // A keyed stream is scattered by key unless the program says this superstep's updates do not go
  // to the edges' destinations (PageRank's degree count): they would all be strays (correct, slower).
  bool keyed_scatter_pays(std::uint32_t s, ScatterMode mode) const {
    if constexpr (ProgramWithTargets<P>) {
      if (mode.forward) return program_.emits_to_destination(s);
    }
    return true;
  }

  // Part of one key's records in a piece of a keyed segment: records [lo, hi) of the segment. A
  // key's records are cut into chunks so that a key holding most of a piece (rmat: most edges go to
  // partition 0) is scattered by every worker.
  struct KeyedChunk {
    std::uint32_t key;
    std::uint32_t lo;
    std::uint32_t hi;
    std::uint32_t emitted = 0;  // updates to the key's vertices (the chunk's output from its start)
    std::uint32_t strays = 0;   // updates elsewhere (stored backwards from the end of its output)
  };
  // One key's chunks: keyed_chunks_[first, last).
  struct KeyedGroup {
    std::uint32_t key;
    std::uint32_t first;
    std::uint32_t last;
    std::uint32_t records;
  };

  // The records of a run of keyed stream `index` (records from `first` on), piece by piece: the
  // part of the run inside one segment.
  Status scatter_keyed_run(std::span<const std::byte> run, std::uint64_t first, std::uint32_t s, ScatterMode mode,
                           const KeyedStreamIndex& index, const File& file) {
    const std::size_t rs = edge_record_size(program_edge_type());
    const std::uint64_t S = index.segment_records();
    const std::uint64_t end = first + run.size() / rs;
    for (std::uint64_t r = first; r < end;) {
      const std::uint64_t segment = r / S;
      const std::uint64_t segment_first = segment * S;
      const std::uint64_t size = segment < index.segments() ? index.ends(segment)[keys_ - 1] : 0;
      if (r - segment_first >= size) {
        return corruption("edge stream " + file.path() + " has a record " + std::to_string(r) +
                          " its segment index does not cover (damaged scratch data)");
      }
      const std::uint64_t piece_end = std::min(end, segment_first + size);
      ES_RETURN_IF_ERROR(scatter_keyed_piece(run.data() + (r - first) * rs, r - segment_first, piece_end - segment_first,
                                             index.ends(segment), r, s, mode, file));
      r = piece_end;
    }
    return Status::ok();
  }

  // Records [lo, hi) of a keyed segment (at `records`; the first is stream record `first_record`)
  // whose key ends are `ends`. First every chunk of a key's records is scattered into its part of
  // one output (worker 0's routing buffer, E entries per record: updates to the key's vertices from
  // the front, others backwards from the back); then each key is one task, which applies (local
  // key) or spills (remote key) its chunks' updates: a key appears once in a segment, so no two
  // tasks apply to the same cache partition or append to the same stream. The others are routed
  // last. A record whose reading end is outside the partition, or whose other end is outside its
  // key, is damaged scratch data (a `none` codec stream has no checksum).
  Status scatter_keyed_piece(const std::byte* records, std::uint64_t lo, std::uint64_t hi, std::span<const std::uint32_t> ends,
                             std::uint64_t first_record, std::uint32_t s, ScatterMode mode, const File& file) {
    const EdgeFileType type = program_edge_type();
    const std::size_t rs = edge_record_size(type);
    constexpr std::size_t E = P::kMaxEmitsPerEdge;
    const std::size_t T = workers_.size();
    // Chunks of at most a 4T-th of the piece (and at least kMinKeyedChunk records).
    const std::uint64_t chunk = std::max<std::uint64_t>(kMinKeyedChunk, (hi - lo + 4 * T - 1) / (4 * T));
    keyed_chunks_.clear();
    keyed_groups_.clear();
    for (std::size_t k = 0; k < keys_; ++k) {
      const std::uint64_t b = std::max<std::uint64_t>(k == 0 ? 0 : ends[k - 1], lo);
      const std::uint64_t e = std::min<std::uint64_t>(ends[k], hi);
      if (b >= e) continue;
      const auto key = static_cast<std::uint32_t>(k);
      const auto first = static_cast<std::uint32_t>(keyed_chunks_.size());
      for (std::uint64_t c = b; c < e; c += chunk) {
        keyed_chunks_.push_back(KeyedChunk{key, static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(std::min(e, c + chunk))});
      }
      keyed_groups_.push_back(KeyedGroup{key, first, static_cast<std::uint32_t>(keyed_chunks_.size()), static_cast<std::uint32_t>(e - b)});
    }
    // Tasks by size, largest first: the last tasks of each step are then short.
    keyed_order_.resize(keyed_chunks_.size());
    std::iota(keyed_order_.begin(), keyed_order_.end(), 0U);
    std::stable_sort(keyed_order_.begin(), keyed_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return keyed_chunks_[a].hi - keyed_chunks_[a].lo > keyed_chunks_[b].hi - keyed_chunks_[b].lo;
    });
    Entry* const out = workers_[0].routed.data();
    for (Worker& w : workers_) w.bad_record = UINT64_MAX;
    const Vertex* st = states();
    pool_->run(keyed_order_.size(), [&](std::size_t task, unsigned worker) {
      KeyedChunk& c = keyed_chunks_[keyed_order_[task]];
      Worker& w = workers_[worker];
      const std::pair<std::uint64_t, std::uint64_t> range = key_range(c.key);
      const std::uint64_t target_lo = range.first;  // (not a structured binding: lambdas capture it)
      const std::uint64_t target_count = range.second;
      Entry* const mine = out + (c.lo - lo) * E;
      Entry* const last = out + (c.hi - lo) * E;  // strays are stored at last[-1], last[-2], ...
      std::size_t k = 0;
      std::size_t strays = 0;
      const std::uint64_t* const settled = settled_bits_.empty() ? nullptr : settled_bits_.data();
      auto emit = [&](VertexId target, const Update& u) {
        if constexpr (kStreamSettled) {
          if (settled != nullptr && active_bit(settled, target)) return;  // it would change nothing
        }
        if (static_cast<std::uint64_t>(target) - target_lo < target_count) {
          mine[k++] = Entry{target, u};
        } else {
          *(last - ++strays) = Entry{target, u};
        }
      };
      const std::uint64_t base = base_;
      const std::uint64_t count = count_;
      const std::byte* const at = records - lo * rs;  // record i of the segment at at + i * rs
      // kStreamActiveBits: a record whose reading vertex's bit is clear emits nothing; its state is not
      // read (a stream is either forward or reverse: one reading vertex per record). The vertex's
      // bit only, not the summary's (active_words_) first: in the sparse supersteps whether a word
      // has an active vertex is a coin flip per record, and testing the summary cost a mispredicted
      // branch where it saved a load (rmat24-sym cc at 96M, docs/performance.md, session 57).
      const std::uint64_t* const bits = active_bits_.data();
      auto active = [bits](std::uint64_t v) { return active_bit(bits, static_cast<VertexId>(v)); };
      // Locals: the emits' stores could alias `mode`, which the loop would then read per record.
      const bool forward = mode.forward;
      const bool reverse = mode.reverse;
      for (std::uint64_t i = c.lo; i < c.hi; ++i) {
        if (!kStreamBitScatter && i + kStreamPrefetchDistance < c.hi) {
          const Edge ahead = decode_edge(at + (i + kStreamPrefetchDistance) * rs, type);
          const std::uint64_t from = (forward ? ahead.src : ahead.dst) - base;
          if constexpr (kStreamActiveBits) {
            if (from < count) __builtin_prefetch(st + (active(from) ? from : 0));  // (no branch on the bit)
          } else {
            if (from < count) __builtin_prefetch(st + from);
          }
        }
        const Edge e = decode_edge(at + i * rs, type);
        const VertexId reader = forward ? e.src : e.dst;
        const VertexId other = forward ? e.dst : e.src;
        if (static_cast<std::uint64_t>(reader) - base >= count || static_cast<std::uint64_t>(other) - target_lo >= target_count) {
          if (first_record + (i - lo) < w.bad_record) {
            w.bad_record = first_record + (i - lo);
            w.bad_edge = e;
          }
          break;
        }
        if constexpr (kStreamActiveBits) {
          if (!active(static_cast<std::uint64_t>(reader) - base)) continue;
        }
        if constexpr (kStreamBitScatter) {
          bit_scatter(st[e.src - base], e, s, emit);
          continue;
        }
        if (forward) program_.scatter(st[e.src - base], e, s, emit);
        if constexpr (kReverse) {
          if (reverse) program_.scatter_reverse(st[e.dst - base], e, s, emit);
        }
      }
      c.emitted = static_cast<std::uint32_t>(k);
      c.strays = static_cast<std::uint32_t>(strays);
    });
    const auto [bad, bad_edge] = earliest_bad_record();
    if (bad != UINT64_MAX) return damaged_edge_record(file, bad, bad_edge, rs, " or its segment's key");
    for (Worker& w : workers_) {
      w.changed = 0;
      w.spilled = 0;
    }
    std::stable_sort(keyed_groups_.begin(), keyed_groups_.end(),
                     [](const KeyedGroup& a, const KeyedGroup& b) { return a.records > b.records; });
    Vertex* const apply_to = states();
    pool_->run(keyed_groups_.size(), [&](std::size_t g, unsigned worker) {
      const KeyedGroup& group = keyed_groups_[g];
      Worker& me = workers_[worker];
      auto for_each_run = [&](auto&& run) {
        for (std::uint32_t i = group.first; i < group.last; ++i) run(out + (keyed_chunks_[i].lo - lo) * E, keyed_chunks_[i].emitted);
      };
      if (group.key < cache_keys_) {
        std::uint64_t changed = 0;
        const std::uint64_t base = base_;
        // kStreamActiveBits: a vertex changed here gets its bit when its new state is active (bfs: a
        // vertex reached now is not; rmat24's superstep 1 reaches 8.5 M), so that its records in the
        // pieces after this one scatter its new state, as without the bits (the key's cache partition is the
        // task's own: whole 64-bit words when it spans at least 64 vertices). Its summary bit too, so
        // that active_words_ stays a superset of the bits' non-zero words for the partition's next
        // stream's active_frames (the scatter reads the bits alone); set atomically when other
        // partitions share its word.
        std::uint64_t* const bits = active_bits_.data();
        std::uint64_t* const words = active_words_.data();
        const bool track = plan_.cache_shift >= 6;
        const bool own_words = plan_.cache_shift >= 12;
        for_each_run([&](const Entry* data, std::size_t n) {
          for (std::size_t i = 0; i < n; ++i) {
            if (i + kGatherPrefetchDistance < n) __builtin_prefetch(apply_to + (data[i + kGatherPrefetchDistance].target - base), 1);
            const std::uint64_t v = data[i].target - base;
            if (program_.gather(data[i].target, apply_to[v], data[i].value, s)) {
              ++changed;
              if constexpr (kStreamActiveBits) {
                if (track && program_.active(apply_to[v], s)) {
                  bits[v >> 6] |= std::uint64_t{1} << (v & 63);
                  const std::uint64_t word_bit = std::uint64_t{1} << ((v >> 6) & 63);
                  if (own_words) {
                    words[v >> 12] |= word_bit;
                  } else {
                    std::atomic_ref<std::uint64_t>(words[v >> 12]).fetch_or(word_bit, std::memory_order_relaxed);
                  }
                }
              }
            }
          }
        });
        me.changed += changed;
      } else {
        spill_runs(group.key - cache_keys_, me, for_each_run);
      }
    });
    std::uint64_t emitted = 0;
    std::uint64_t local = 0;
    std::uint64_t strays = 0;
    for (const KeyedChunk& c : keyed_chunks_) {
      emitted += c.emitted;
      if (c.key < cache_keys_) local += c.emitted;
      strays += c.strays;
    }
    current_.emitted += emitted;
    current_.in_memory += local;
    for (Worker& w : workers_) {
      ES_RETURN_IF_ERROR(w.error);
      current_.changed += w.changed;
      current_.spilled += w.spilled;
    }
    if (strays == 0) return Status::ok();
    // The others, in record order (keyed_chunks_ is by key, each key's chunks by record; each
    // chunk's strays in emit order), shared out to the workers' batches and routed as scatter_run's
    // are: worker t copies strays [strays * t / T, strays * (t + 1) / T) of that order itself.
    stray_starts_.resize(keyed_chunks_.size() + 1);
    stray_starts_[0] = 0;
    for (std::size_t i = 0; i < keyed_chunks_.size(); ++i) stray_starts_[i + 1] = stray_starts_[i] + keyed_chunks_[i].strays;
    pool_->run(T, [&](std::size_t t, unsigned) {
      Worker& w = workers_[t];
      const std::uint64_t from = strays * t / T;
      const std::uint64_t to = strays * (t + 1) / T;
      w.emitted_count = static_cast<std::size_t>(to - from);
      // The chunk holding stray `from`: the last whose first stray is at or before it.
      std::size_t i = static_cast<std::size_t>(std::upper_bound(stray_starts_.begin(), stray_starts_.end(), from) - stray_starts_.begin()) - 1;
      for (std::uint64_t x = from; x < to; ++x) {
        while (x >= stray_starts_[i + 1]) ++i;
        const KeyedChunk& c = keyed_chunks_[i];
        w.emitted[x - from] = *(out + (c.hi - lo) * E - 1 - (x - stray_starts_[i]));
      }
    });
    return route_and_apply(s, /*count_emitted=*/true);
  }

  // The vertices whose updates have key k: [first, first + count).
  std::pair<std::uint64_t, std::uint64_t> key_range(std::uint64_t k) const {
    if (k < cache_keys_) {
      const std::uint64_t begin = k << plan_.cache_shift;
      return {base_ + begin, std::min<std::uint64_t>(count_, (k + 1) << plan_.cache_shift) - std::min(count_, begin)};
    }
    const std::uint64_t q = k - cache_keys_;
    if (q == partition_) return {0, 0};  // the partition's own vertices have cache keys
    const std::uint64_t begin = q * plan_.partition_size;
    return {begin, std::min<std::uint64_t>(graph_.vertices - begin, plan_.partition_size)};
  }

  // The earliest record a worker found bad in this step (UINT64_MAX: none) and its edge.
  std::pair<std::uint64_t, Edge> earliest_bad_record() const {
    std::pair<std::uint64_t, Edge> bad{UINT64_MAX, Edge{}};
    for (const Worker& w : workers_) {
      if (w.bad_record < bad.first) bad = {w.bad_record, w.bad_edge};
    }
    return bad;
  }

  // A record of scratch edge stream `file` (records of `rs` bytes) that cannot be there: damaged
  // data; `also` adds to "outside partition p" what else it is outside of.
  Status damaged_edge_record(const File& file, std::uint64_t record, const Edge& e, std::size_t rs, const char* also) const {
    return corruption("edge stream " + file.path() + " record " + std::to_string(record) + " (byte offset " +
                      std::to_string(record * rs) + " of the decoded stream) has edge " + std::to_string(e.src) + " -> " +
                      std::to_string(e.dst) + " outside partition " + std::to_string(partition_) + also +
                      " (damaged scratch data)");
  }

  // An update's routing key (core/keyed_segments.hpp): its cache partition when the target is in the
  // current streaming partition, cache_keys + its streaming partition otherwise. A value type taken
  // by the routing loops, whose fields stay in registers (read through `this`, plan_.cache_shift was
  // reloaded for every update: the counters' 32-bit stores might alias it).
  using KeyOf = DestinationKey;
  KeyOf key_of() const {
    return KeyOf{base_, count_, plan_.cache_shift, cache_keys_, plan_.partition_size, plan_.partition_magic};
  }

  // Groups every task's emitted updates by key (cache partition, or remote streaming partition),
  // then applies local ones per cache partition and spills remote ones per destination.
  Status route_and_apply(std::uint32_t emitted_superstep, bool count_emitted) {
    const std::size_t T = workers_.size();
    pool_->run(T, [&](std::size_t t, unsigned) {
      Worker& w = workers_[t];
      // Update i is counted and placed through table i % tables: with few keys (counts allocated)
      // four tables, since consecutive updates often share a key (skewed targets) and one counter
      // per key would make every increment wait for the previous one's store. A key's range holds
      // its table-0 updates, then its table-1 updates, ... each in emitted order (deterministic).
      std::uint32_t* offsets = w.offsets.data();
      const std::size_t n = w.emitted_count;
      const Entry* const in = w.input != nullptr ? w.input : w.emitted.data();
      w.input = nullptr;
      std::uint32_t* table[1 + kExtraHistograms] = {offsets};
      std::size_t tables = 1;
      if (!w.counts.empty()) {
        for (std::size_t j = 0; j < kExtraHistograms; ++j) table[tables++] = w.counts.data() + j * (keys_ + 1);
      }
      const std::size_t mask = tables - 1;  // 1 or 4 tables
      // The tables of updates 4j .. 4j + 3 (all the same one when there is one), for 4-wide steps.
      std::uint32_t* const quad[4] = {table[0], table[1 & mask], table[2 & mask], table[3 & mask]};
      const std::size_t n4 = n / 4 * 4;
      const KeyOf key_of = this->key_of();
      std::fill(w.offsets.begin(), w.offsets.end(), 0U);
      std::fill(w.counts.begin(), w.counts.end(), 0U);
      for (std::size_t i = 0; i < n4; i += 4) {
        for (std::size_t j = 0; j < 4; ++j) ++quad[j][key_of(in[i + j].target)];
      }
      for (std::size_t i = n4; i < n; ++i) ++table[i & mask][key_of(in[i].target)];
      std::uint32_t running = 0;  // counts -> each (key, table) part's first index, key-major
      for (std::size_t k = 0; k < keys_; ++k) {
        for (std::size_t j = 0; j < tables; ++j) {
          const std::uint32_t c = table[j][k];
          table[j][k] = running;
          running += c;
        }
      }
      Entry* const routed = w.routed.data();
      auto place = [&](std::size_t i, std::uint32_t* t) { routed[t[key_of(in[i].target)]++] = in[i]; };
      for (std::size_t i = 0; i < n4; i += 4) {
        for (std::size_t j = 0; j < 4; ++j) place(i + j, quad[j]);
      }
      for (std::size_t i = n4; i < n; ++i) place(i, table[i & mask]);
      // The last table's counters now stand at the end of each key's range: offsets[key] is that end.
      for (std::size_t k = 0; k < keys_; ++k) offsets[k] = table[tables - 1][k];
      offsets[keys_] = static_cast<std::uint32_t>(n);
    });
    std::uint64_t emitted = 0;
    std::uint64_t local = 0;
    for (const Worker& w : workers_) {
      emitted += w.emitted_count;
      local += w.offsets[cache_keys_ - 1];  // end of the last cache partition's range
    }
    for (Worker& w : workers_) {
      w.changed = 0;
      w.spilled = 0;
    }
    const std::size_t tasks = cache_keys_ + (K_ > 1 ? K_ : 0);
    Vertex* st = states();
    const std::uint64_t base = base_;
    pool_->run(tasks, [&](std::size_t task, unsigned worker) {
      Worker& me = workers_[worker];
      if (task < cache_keys_) {
        std::uint64_t changed = 0;
        for (const Worker& w : workers_) {
          const std::uint32_t begin = task == 0 ? 0 : w.offsets[task - 1];
          const std::uint32_t end = w.offsets[task];
          const Entry* const routed = w.routed.data();
          for (std::uint32_t i = begin; i < end; ++i) {
            // The targets lie at random in a cache partition: half of --cpu_cache_size (1 MiB by
            // default), more than an L2 cache of 512 KiB (the AMD VM's).
            if (i + kGatherPrefetchDistance < end) __builtin_prefetch(st + (routed[i + kGatherPrefetchDistance].target - base), 1);
            const Entry& e = routed[i];
            changed += program_.gather(e.target, st[e.target - base], e.value, emitted_superstep) ? 1 : 0;
          }
        }
        me.changed += changed;
      } else if (task - cache_keys_ != partition_) {
        spill(task - cache_keys_, task, me);
      }
    });
    for (Worker& w : workers_) {
      ES_RETURN_IF_ERROR(w.error);
      current_.changed += w.changed;
      current_.spilled += w.spilled;
    }
    if (count_emitted) {
      current_.emitted += emitted;
      current_.in_memory += local;
    }
    return Status::ok();
  }

  // Appends every task's routed updates of `key` (remote partition q) to q's stream.
  void spill(std::uint64_t q, std::size_t key, Worker& me) {
    spill_runs(q, me, [&](auto&& run) {
      for (const Worker& w : workers_) run(w.routed.data() + w.offsets[key - 1], w.offsets[key] - w.offsets[key - 1]);
    });
  }

  // Appends the updates for partition q that for_each_run(run) hands to run(data, n) to q's stream,
  // combining per target first when the program allows (a direct-mapped table: hot targets of
  // skewed graphs collapse). Only one task at a time spills to a given q.
  template <typename ForEachRun>
  void spill_runs(std::uint64_t q, Worker& me, ForEachRun&& for_each_run) {
    FramedWriter& writer = *writers_[set_out_][q];
    auto append = [&](const Entry* data, std::size_t n) {
      if (n == 0 || !me.error.is_ok()) return;
      me.spilled += n;
      Status status = writer.append(std::span(reinterpret_cast<const std::byte*>(data), n * sizeof(Entry)), *me.frame_scratch);
      if (!status.is_ok()) me.error = status;
    };
    if constexpr (!P::kCombinable) {
      for_each_run([&](const Entry* data, std::size_t n) { append(data, n); });
    } else {
      std::size_t total = 0;
      for_each_run([&](const Entry*, std::size_t n) { total += n; });
      if (total == 0) return;
      if (++me.combiner_stamp == 0) {
        for (auto& slot : me.combiner) slot.stamp = 0;
        me.combiner_stamp = 1;
      }
      const std::uint32_t stamp = me.combiner_stamp;
      const unsigned bits = static_cast<unsigned>(std::countr_zero(me.combiner.size()));
      me.staging.clear();
      auto stage = [&](const Entry& e) {
        me.staging.push_back(e);
        if (me.staging.size() == me.staging.capacity()) {
          append(me.staging.data(), me.staging.size());
          me.staging.clear();
        }
      };
      for_each_run([&](const Entry* data, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
          const Entry& e = data[i];
          const std::uint32_t index = (e.target * 0x9E3779B1U) >> (32 - bits);
          CombinerSlot& slot = me.combiner[index];
          if (slot.stamp == stamp && slot.entry.target == e.target) {
            P::combine(slot.entry.value, e.value);
          } else {
            if (slot.stamp == stamp) {
              stage(slot.entry);
            } else {
              me.touched.push_back(index);
            }
            slot.entry = e;
            slot.stamp = stamp;
          }
        }
      });
      // Flush only the slots this call used.
      for (const std::uint32_t index : me.touched) stage(me.combiner[index].entry);
      me.touched.clear();
      append(me.staging.data(), me.staging.size());
    }
  }


  P program_;
  std::vector<Worker> workers_;
  bool sources_prepared_ = false;  // sources_ hold the current partition's Sources for this superstep (prepare_partition)
  // scatter_keyed_piece's tasks: chunks of keys' records, the keys, the chunks by size, where each
  // chunk's strays start.
  static constexpr std::uint64_t kMinKeyedChunk = 1024;
  std::vector<KeyedChunk> keyed_chunks_;
  std::vector<KeyedGroup> keyed_groups_;
  std::vector<std::uint32_t> keyed_order_;
  std::vector<std::uint64_t> stray_starts_;  // keyed_chunks_[i]'s first stray in record order
  // kStreamSettled: bit v set when vertex v is known settled (ProgramWithSettled), over all
  // vertices; set for partition p's vertices by mark_active_vertices when p is scattered (settled
  // at that superstep, and so at every later one). Another partition's bits are as of its last
  // scatter: fewer than are settled, never more. Empty: no filter.
  std::vector<std::uint64_t> settled_bits_;
};

/// Runs `program` on `graph` with `options`; `visit` receives the final states.
template <EdgeProgram P>
Expected<RunStats> run_engine(const GraphInfo& graph, const EngineOptions& options, const P& program,
                              const FinalStateVisitor<typename P::Vertex>& visit) {
  Engine<P> engine(graph, options, program);
  return engine.run(visit);
}

}  // namespace edgestream
