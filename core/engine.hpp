// The out-of-core edge-centric engine (X-Stream's model, ARCHITECTURE.md §1 and §3):
//
//  * Vertices are split into K streaming partitions (equal id ranges) chosen by the
//    memory plan; one partition's state is in memory at a time when K > 1.
//  * Setup (K > 1): one pass splits the unordered input into per-partition edge streams by source
//    (undirected programs also get each edge reversed into the destination's stream; programs with
//    direction-aware reverse edges get a second set of streams, by destination).
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
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/block_schedule.hpp"
#include "core/cancellation.hpp"
#include "core/checkpoint.hpp"
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
#include "io/record_stream.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"

namespace edgestream {

/// Receives the final vertex states, one partition at a time in vertex-id order:
/// (first vertex id of the partition, its states).
template <typename Vertex>
using FinalStateVisitor = std::function<Status(VertexId first, std::span<const Vertex> states)>;

/// Raises the soft open-file limit so that `needed` descriptors fit; errors when the hard limit
/// does not allow it.
Status ensure_open_file_limit(std::uint64_t needed);

/// An error naming the input record that breaks the format's rules.
Status invalid_edge_error(const GraphInfo& graph, std::uint64_t record, const Edge& e, bool check_weights);

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// How the in-memory grid stores one edge (Engine::build_grid).
enum class GridLayout : std::uint8_t {
  kFull,    // the input record as is (blocks of more than 2^16 vertices, or --full_grid_records)
  kLocal4,  // 16-bit block-local source and destination ids (the bucket tells the blocks)
  kLocal8,  // the same and the 4-byte weight (weighted graphs, programs that read weights)
};

template <EdgeProgram P>
class Engine {
 public:
  using Vertex = typename P::Vertex;
  using Update = typename P::Update;
  using Entry = RoutedUpdate<Update>;
  static constexpr bool kReverse = kHasReverseEdges<P>;
  static constexpr bool kTwoWay = P::kUndirected || kReverse;  // every edge scattered twice
  // route_and_apply groups updates by key with 1 + kExtraHistograms interleaved counter tables
  // when there are at most kMaxInterleavedKeys keys (24 KiB per worker: with the offsets and the
  // spill staging inside the memory plan's 64 KiB per-worker slack).
  static constexpr std::size_t kExtraHistograms = 3;
  static_assert(kExtraHistograms == 3, "route_and_apply steps 4 updates (tables) at a time: i % 4 is i & 3");
  static constexpr std::size_t kMaxInterleavedKeys = 2048;
  static_assert(!ProgramWithDirections<P> || kReverse, "directions() needs kReverseEdges");
  static_assert(sizeof(Entry) == sizeof(VertexId) + sizeof(Update), "an update must pack without padding");

  Engine(GraphInfo graph, EngineOptions options, P program)
      : graph_(std::move(graph)), options_(std::move(options)), program_(std::move(program)) {}

  /// Runs the program to completion and hands the final states to `visit`. Scratch files are
  /// removed before returning, whatever the outcome.
  Expected<RunStats> run(const FinalStateVisitor<Vertex>& visit) {
    const auto start = std::chrono::steady_clock::now();
    Status status = setup();
    stats_.setup_seconds = seconds_since(start);
    if (status.is_ok()) status = iterate(visit);
    grid_reader_.reset();  // its read ahead finished and counted; before the grid file closes
    collect_io_counters();
    stats_.volumes = volumes_.stats();
    writers_[0].clear();
    writers_[1].clear();
    // Close every scratch file before removing the directory: network filesystems (FUSE/sshfs,
    // NFS) keep an unlinked open file as a hidden "silly rename" that blocks the removal.
    vertex_file_.close();
    grid_file_.close();
    edge_files_.clear();
    redge_files_.clear();
    update_files_[0].clear();
    update_files_[1].clear();
    volumes_.remove_scratch();
    ES_RETURN_IF_ERROR(status);
    stats_.engine_seconds = seconds_since(start);
    stats_.peak_rss = peak_rss_bytes();
    if (checkpoint_) stats_.checkpoint = checkpoint_->counters();
    return stats_;
  }

 private:
  struct CombinerSlot {
    Entry entry;
    std::uint32_t stamp;
  };
  // Per-task (phase 1/2) and per-worker (phase 3) scratch memory; padded against false sharing.
  struct alignas(64) Worker {
    std::vector<Entry> emitted;         // phase 1 output
    std::size_t emitted_count = 0;
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
    FrameScratch frame_scratch;         // compression output of the frames this worker fills
  };

  // ---- setup ------------------------------------------------------------------------------

  Status setup() {
    ES_RETURN_IF_ERROR(start_checkpoints());
    MemoryPlanInput input;
    input.vertices = graph_.vertices;
    input.vertex_bytes = sizeof(Vertex);
    input.entry_bytes = sizeof(Entry);
    input.record_bytes = graph_.record_size();
    input.undirected = kTwoWay;
    input.split_streams = kReverse ? 2 : 1;  // edges by source and by destination
    input.edges = graph_.edges;
    input.input_frame_bytes = graph_.framed() ? graph_.frame_bytes : 0;  // a compressed input's decoding slots
    input.grid_record_bytes = program_edge_type() == EdgeFileType::kWeighted ? 8 : 4;
    input.source_bytes = input_source_bytes();
    if constexpr (ProgramWithPlannedSupersteps<P>) input.planned_supersteps = program_.planned_supersteps();
    input.baseline_rss = current_rss_bytes();
    // Volumes (core/volume_set.hpp, docs/volumes.md): resolved (and the --*_disk placement checked)
    // before planning, because a stream striped over several volumes keeps each volume's depth in
    // flight: the plan sizes buffers for the volumes' envelope, then each volume is fitted to it.
    ES_ASSIGN_OR_RETURN(volumes_, VolumeSet::resolve(options_, graph_));
    EngineOptions planned = options_;
    planned.io = volumes_.envelope(options_.io);
    input.min_depth = static_cast<unsigned>(volumes_.size());
    ES_ASSIGN_OR_RETURN(plan_, plan_memory(input, planned));
    volumes_.fit_to_plan(plan_.io);
    if (checkpoint_) ES_RETURN_IF_ERROR(checkpoint_->check_plan(plan_));
    stats_.plan = plan_;
    stats_.edges_codec = options_.edges_codec;
    stats_.updates_codec = options_.updates_codec;
    stats_.scratch_checksums = options_.scratch_checksums;
    stats_.input_codec = graph_.codec;
    stats_.input_raw_bytes = graph_.raw_bytes();
    stats_.input_stored_bytes = graph_.framed() ? graph_.stored_bytes : graph_.raw_bytes();
    stats_.vertices = graph_.vertices;
    stats_.edges = graph_.edges;
    K_ = plan_.partitions;
    cache_keys_ = plan_.cache_partitions;
    keys_ = cache_keys_ + (K_ > 1 ? K_ : 0);
    if (keys_ >= UINT32_MAX / 2) return invalid_argument("too many partitions");

    ES_ASSIGN_OR_RETURN(input_file_, File::open(graph_.edge_path, OpenMode::kReadOnly, plan_.io.direct));
    pool_ = std::make_unique<ThreadPool>(plan_.threads);
    workers_.resize(plan_.threads);
    const std::size_t per_task = plan_.batch_records * (kTwoWay ? 2 : 1) * P::kMaxEmitsPerEdge;
    for (auto& w : workers_) {
      w.emitted.resize(per_task);
      w.routed.resize(per_task);
      w.offsets.resize(keys_ + 1);
      if (keys_ + 1 <= kMaxInterleavedKeys) w.counts.resize(kExtraHistograms * (keys_ + 1));
      if (K_ > 1) {
        w.combiner.resize(plan_.combiner_slots);
        w.staging.reserve(1024);
        w.touched.reserve(plan_.combiner_slots);
      }
    }
    std::uint64_t state_vertices = std::min<std::uint64_t>(graph_.vertices, plan_.partition_vertices());
    if (plan_.grid_window_bytes > 0) state_vertices = grid_padded_vertices();  // whole blocks (scatter_grid_as)
    state_ = AlignedBuffer(std::max<std::uint64_t>(plan_.state_bytes, state_vertices * sizeof(Vertex)));
    if (K_ == 1) {
      // With room for the input, read (and check) it once now; supersteps then stream memory.
      if (plan_.edge_cache_bytes > 0 && graph_.edges > 0) return load_edge_cache();
      // Without room for them, as a grid on disk when the plan has one (read back every superstep).
      if (plan_.grid_window_bytes > 0 && graph_.edges > 0) return build_disk_grid();
      return Status::ok();
    }

    // One file per stream and volume of its stripe set (a placed stream has one).
    ES_RETURN_IF_ERROR(ensure_open_file_limit((5 * K_ + 1) * volumes_.size() + 32));
    ES_RETURN_IF_ERROR(volumes_.create_scratch());
    // Every scratch stream is a striped File (io/striped_file.hpp) over its kind's volumes, rotated
    // by `index` so that streams smaller than a stripe still spread over the volumes.
    auto open_stream = [&](StreamKind kind, const std::string& name, std::uint64_t index) {
      return File::open_striped(volumes_.layout(kind, name, index), OpenMode::kCreate, plan_.io.direct);
    };
    ES_ASSIGN_OR_RETURN(vertex_file_, open_stream(StreamKind::kVertices, "vertices", 0));
    for (std::uint64_t q = 0; q < K_; ++q) {
      ES_ASSIGN_OR_RETURN(File edges, open_stream(StreamKind::kEdges, "edges." + std::to_string(q), q));
      edge_files_.push_back(std::move(edges));
      if constexpr (kReverse) {
        ES_ASSIGN_OR_RETURN(File redges, open_stream(StreamKind::kEdges, "redges." + std::to_string(q), q + 1));
        redge_files_.push_back(std::move(redges));
      }
      for (int set = 0; set < 2; ++set) {
        ES_ASSIGN_OR_RETURN(File updates, open_stream(set == 0 ? StreamKind::kUpdates0 : StreamKind::kUpdates1,
                                                      "updates" + std::to_string(set) + "." + std::to_string(q), q + set));
        update_files_[set].push_back(std::move(updates));
      }
    }
    for (int set = 0; set < 2; ++set) {
      update_counters_[set].resize(K_);
      for (std::uint64_t q = 0; q < K_; ++q) {
        ES_ASSIGN_OR_RETURN(auto writer, FramedWriter::open(update_files_[set][q], plan_.io, options_.updates_codec,
                                                            options_.scratch_checksums, plan_.io.write_chunk, &update_counters_[set][q]));
        writers_[set].push_back(std::move(writer));
      }
    }
    ES_RETURN_IF_ERROR(split_input());
    input_validated_ = true;
    return Status::ok();
  }

  // The records the program needs: the input's type, without a weight it never reads. Written to
  // K > 1 edge streams (8 bytes instead of 12) and deciding the grid's 4- or 8-byte records.
  EdgeFileType program_edge_type() const {
    return graph_.type == EdgeFileType::kWeighted && kProgramReadsWeights<P> ? EdgeFileType::kWeighted
                                                                              : EdgeFileType::kUnweighted;
  }

  bool edge_is_valid(const Edge& e) const {
    if (e.src >= graph_.vertices || e.dst >= graph_.vertices) return false;
    if constexpr (P::kNonNegativeWeights) {
      if (!(e.weight >= 0.0F)) return false;
    }
    return true;
  }

  // One pass over the input: each edge to its source partition's stream (and, for undirected
  // programs, reversed to its destination's; for reverse-edge programs, as is to its destination's
  // reverse stream). Each run of input records is scanned by one task per worker; task t appends to
  // the partitions q with q % T == t, so every stream gets its records in input order and the
  // frames of compressed streams are compressed on all workers at once. The streams hold records of
  // program_edge_type(): without the weight (8 bytes, not 12) when the program never reads it.
  Status split_input() {
    std::vector<IoCounters> counters(K_);
    std::vector<std::unique_ptr<FramedWriter>> writers;
    std::vector<std::unique_ptr<FramedWriter>> reverse_writers;
    for (std::uint64_t q = 0; q < K_; ++q) {
      ES_ASSIGN_OR_RETURN(auto writer, FramedWriter::open(edge_files_[q], plan_.io, options_.edges_codec,
                                                          options_.scratch_checksums, plan_.io.write_chunk,
                                                          &counters[q]));
      writers.push_back(std::move(writer));
      if constexpr (kReverse) {
        ES_ASSIGN_OR_RETURN(auto reverse_writer, FramedWriter::open(redge_files_[q], plan_.io, options_.edges_codec,
                                                                    options_.scratch_checksums, plan_.io.write_chunk, &counters[q]));
        reverse_writers.push_back(std::move(reverse_writer));
      }
    }
    const std::size_t rs = graph_.record_size();
    const EdgeFileType stream_type = program_edge_type();
    const std::size_t stream_rs = edge_record_size(stream_type);
    const bool same_records = stream_type == graph_.type;
    const std::size_t T = std::min<std::uint64_t>(workers_.size(), K_);
    std::vector<std::uint64_t> bad(T);
    std::vector<Edge> bad_edges(T);
    std::vector<Status> errors(T);
    {
      ES_ASSIGN_OR_RETURN(auto reader, open_input_edges(graph_, input_file_, plan_.io, plan_.threads, parallel_for(),
                                                        &stats_.input_io, &stats_.input_codec_io));
      ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, "edge file " + graph_.edge_path.string(),
                                             [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
        if (cancel_requested()) return cancelled();
        const std::size_t n = run.size() / rs;
        pool_->run(T, [&](std::size_t t, unsigned worker) {
          FrameScratch& scratch = workers_[worker].frame_scratch;
          bad[t] = UINT64_MAX;
          std::byte reversed[12];
          std::byte converted[12];
          auto mine = [&](std::uint64_t q) { return q % T == t; };
          for (std::size_t i = 0; i < n && errors[t].is_ok(); ++i) {
            const std::byte* record = run.data() + i * rs;
            const Edge e = decode_edge(record, graph_.type);
            if (!edge_is_valid(e)) {
              bad[t] = first + i;
              bad_edges[t] = e;
              break;
            }
            const std::uint64_t qs = plan_.partition_of(e.src);
            [[maybe_unused]] const std::uint64_t qd = kTwoWay ? plan_.partition_of(e.dst) : 0;
            if (!same_records) {
              encode_edge(converted, e, stream_type);
              record = converted;
            }
            if (mine(qs)) errors[t] = writers[qs]->append(std::span(record, stream_rs), scratch);
            if constexpr (P::kUndirected) {
              if (mine(qd) && errors[t].is_ok()) {
                encode_edge(reversed, Edge{e.dst, e.src, e.weight}, stream_type);
                errors[t] = writers[qd]->append(std::span<const std::byte>(reversed, stream_rs), scratch);
              }
            }
            if constexpr (kReverse) {
              if (mine(qd) && errors[t].is_ok()) errors[t] = reverse_writers[qd]->append(std::span(record, stream_rs), scratch);
            }
          }
        });
        for (std::size_t t = 0; t < T; ++t) ES_RETURN_IF_ERROR(errors[t]);
        // Every task stops at the same first invalid record.
        if (bad[0] != UINT64_MAX) return invalid_edge_error(graph_, bad[0], bad_edges[0], P::kNonNegativeWeights);
        return Status::ok();
      }));
    }
    edge_bytes_.resize(K_);
    edge_stored_.resize(K_);
    redge_bytes_.resize(K_);
    redge_stored_.resize(K_);
    FrameScratch& scratch = workers_[0].frame_scratch;
    for (std::uint64_t q = 0; q < K_; ++q) {
      ES_RETURN_IF_ERROR(writers[q]->finish(scratch));
      edge_bytes_[q] = writers[q]->bytes_appended();
      edge_stored_[q] = writers[q]->bytes_stored();
      stats_.edges_codec_io += writers[q]->codec_counters();
      if constexpr (kReverse) {
        ES_RETURN_IF_ERROR(reverse_writers[q]->finish(scratch));
        redge_bytes_[q] = reverse_writers[q]->bytes_appended();
        redge_stored_[q] = reverse_writers[q]->bytes_stored();
        stats_.edges_codec_io += reverse_writers[q]->codec_counters();
      }
      stats_.edges_io += counters[q];
    }
    return Status::ok();
  }

  // ---- supersteps -------------------------------------------------------------------------

  Status iterate(const FinalStateVisitor<Vertex>& visit) {
    std::uint32_t s = 0;
    if (checkpoint_) ES_RETURN_IF_ERROR(resume_checkpoint(s));
    const std::uint32_t first = s;
    for (;; ++s) {
      const auto superstep_start = std::chrono::steady_clock::now();
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
        if (!idle) ES_RETURN_IF_ERROR(scatter_partition(p, s));
        ES_RETURN_IF_ERROR(save_partition(p));
      }
      for (auto& writer : writers_[set_out_]) ES_RETURN_IF_ERROR(writer->finish(workers_[0].frame_scratch));
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

  static Status cancelled() {
    return {StatusCode::kCancelled, "stopped by signal " + std::to_string(cancel_signal())};
  }

  Vertex* states() { return reinterpret_cast<Vertex*>(state_.data()); }

  void select_partition(std::uint64_t p) {
    partition_ = p;
    base_ = p * plan_.partition_size;
    count_ = std::min<std::uint64_t>(graph_.vertices - base_, plan_.partition_vertices());
    if (graph_.vertices == 0) count_ = 0;
  }

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
  // prepare returns void).
  std::uint64_t prepare_partition(std::uint32_t s) {
    using Result = decltype(program_.prepare(VertexId{}, std::declval<Vertex&>(), s));
    if constexpr (std::is_same_v<Result, bool>) {
      for (Worker& w : workers_) w.active = 0;
      Vertex* st = states();
      const std::uint64_t per_task = std::uint64_t{1} << plan_.cache_shift;
      const std::size_t tasks = (count_ + per_task - 1) / per_task;
      pool_->run(tasks, [&](std::size_t task, unsigned worker) {
        const std::uint64_t end = std::min(count_, (task + 1) * per_task);
        std::uint64_t active = 0;
        for (std::uint64_t i = task * per_task; i < end; ++i) {
          active += program_.prepare(static_cast<VertexId>(base_ + i), st[i], s) ? 1 : 0;
        }
        workers_[worker].active += active;
      });
      std::uint64_t total = 0;
      for (const Worker& w : workers_) total += w.active;
      return total;
    } else {
      for_each_vertex([&](VertexId v, Vertex& state) { program_.prepare(v, state, s); });
      return 0;
    }
  }

  // block_active_[b] = some vertex of block b (of the current partition) is active in superstep s;
  // blocks are grid blocks once the grid exists, cache partitions otherwise. Returns how many are.
  std::uint64_t mark_active_blocks(std::uint32_t s) {
    const unsigned shift = grid_ready_ ? plan_.grid_shift : plan_.cache_shift;
    const std::uint64_t per_block = std::uint64_t{1} << shift;
    const std::size_t blocks = (count_ + per_block - 1) / per_block;
    block_active_.assign(blocks, 0);
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

  // One synchronous request on `counters`: its bytes, and the time since `start` as waiting.
  static void count_request(IoCounters& counters, std::chrono::steady_clock::time_point start, std::uint64_t read,
                            std::uint64_t written) {
    counters.wait_ns += static_cast<std::uint64_t>(seconds_since(start) * 1e9);
    counters.bytes_read += read;
    counters.bytes_written += written;
    ++counters.requests;
  }

  Status load_partition(std::uint64_t p) {
    if (K_ == 1) return Status::ok();
    const auto start = std::chrono::steady_clock::now();
    ES_ASSIGN_OR_RETURN(const std::size_t n, vertex_file_.read_at(p * plan_.state_bytes, std::span(state_.data(), plan_.state_bytes)));
    count_request(stats_.vertices_io, start, n, 0);
    if (n != plan_.state_bytes) {
      return corruption("vertex state file " + vertex_file_.path() + " is short: partition " + std::to_string(p) +
                        " read " + std::to_string(n) + " of " + std::to_string(plan_.state_bytes) + " bytes");
    }
    if (options_.scratch_checksums && p < state_crc_.size() && frame_crc(std::span<const std::byte>(state_.data(), plan_.state_bytes)) != state_crc_[p]) {
      return corruption("vertex state file " + vertex_file_.path() + ": checksum mismatch in partition " + std::to_string(p) +
                        " (byte offset " + std::to_string(p * plan_.state_bytes) + ", " + std::to_string(plan_.state_bytes) +
                        " bytes; damaged scratch data)");
    }
    return Status::ok();
  }

  // Vertex-state spills are fixed-size records read back whole, so their checksum (crc32, like a
  // frame's) is kept in memory per partition instead of in the file.
  Status save_partition(std::uint64_t p) {
    if (K_ == 1) return Status::ok();
    const auto start = std::chrono::steady_clock::now();
    if (options_.scratch_checksums) {
      if (state_crc_.size() != K_) state_crc_.resize(K_);
      state_crc_[p] = frame_crc(std::span<const std::byte>(state_.data(), plan_.state_bytes));
    }
    ES_RETURN_IF_ERROR(vertex_file_.write_at(p * plan_.state_bytes, std::span<const std::byte>(state_.data(), plan_.state_bytes)));
    count_request(stats_.vertices_io, start, 0, plan_.state_bytes);
    return Status::ok();
  }

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
        std::memcpy(static_cast<void*>(w.emitted.data()), run.data() + lo * sizeof(Entry), (hi - lo) * sizeof(Entry));
        w.emitted_count = hi - lo;
        w.bad_record = UINT64_MAX;
        for (std::size_t i = 0; i < w.emitted_count; ++i) {
          if (w.emitted[i].target - base_ >= count_) {
            w.bad_record = lo + i;
            break;
          }
        }
      });
      for (const Worker& w : workers_) {
        if (w.bad_record != UINT64_MAX) {
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
      ES_RETURN_IF_ERROR(scatter_stream(edge_files_[p], edge_bytes_[p], edge_stored_[p], s, ScatterMode{true, false, false}));
    }
    if constexpr (kReverse) {
      if (d.reverse) {
        ES_RETURN_IF_ERROR(
            scatter_stream(redge_files_[p], redge_bytes_[p], redge_stored_[p], s, ScatterMode{false, true, false}));
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

  // Runs the pool's workers for FramedReader's parallel decoding.
  ParallelFor parallel_for() {
    return [this](std::size_t tasks, const std::function<void(std::size_t)>& fn) {
      pool_->run(tasks, [&](std::size_t task, unsigned) { fn(task); });
    };
  }

  // `bytes` of records, stored in `stored` bytes of `file` (a scratch stream is framed when the edge
  // codec is on or scratch checksums are; the input as its .ini says, compress/graph_input.hpp).
  Status scatter_stream(const File& file, std::uint64_t bytes, std::uint64_t stored, std::uint32_t s, ScatterMode mode) {
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
    ES_ASSIGN_OR_RETURN(auto reader, from_input ? open_input_edges(graph_, file, plan_.io, plan_.threads, parallel_for(),
                                                                   counters, &stats_.input_codec_io)
                                                : FramedReader::open(file, stored, bytes, plan_.io, framed, plan_.io.write_chunk,
                                                                     plan_.threads, parallel_for(), counters, &stats_.edges_codec_io));
    ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, from_input ? "edge file " + file.path() : "edge stream " + file.path(),
                                           [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
      if (cancel_requested()) return cancelled();
      return scatter_run(run, type, first, s, mode, /*validate=*/from_input, from_input ? nullptr : &file);
    }));
    if (from_input) input_validated_ = true;  // every record was read and checked
    return Status::ok();
  }

  // K = 1 with the input kept in memory: reads the whole input once at setup, checking every
  // record (in parallel, the first bad one reported), then builds the grid when the plan has room.
  // Every superstep, including the first and the first after a resume, then runs on the same copy.
  Status load_edge_cache() {
    const std::size_t rs = graph_.record_size();
    const std::uint64_t bytes = graph_.edges * rs;
    edge_cache_ = AlignedBuffer(plan_.edge_cache_bytes);
    const std::size_t T = workers_.size();
    std::vector<std::uint64_t> bad(T);
    std::vector<Edge> bad_edges(T);
    std::uint64_t cached = 0;
    ES_ASSIGN_OR_RETURN(auto reader, open_input_edges(graph_, input_file_, plan_.io, plan_.threads, parallel_for(),
                                                      &stats_.input_io, &stats_.input_codec_io));
    ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, "edge file " + input_file_.path(),
                                           [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
      if (cancel_requested()) return cancelled();
      const std::size_t n = run.size() / rs;
      pool_->run(T, [&](std::size_t t, unsigned) {
        bad[t] = UINT64_MAX;
        for (std::size_t i = n * t / T; i < n * (t + 1) / T; ++i) {
          const Edge e = decode_edge(run.data() + i * rs, graph_.type);
          if (!edge_is_valid(e)) {
            bad[t] = first + i;
            bad_edges[t] = e;
            return;
          }
        }
      });
      for (std::size_t t = 0; t < T; ++t) {  // ranges ascend with t: the first hit is the earliest
        if (bad[t] != UINT64_MAX) return invalid_edge_error(graph_, bad[t], bad_edges[t], P::kNonNegativeWeights);
      }
      std::memcpy(edge_cache_.data() + cached, run.data(), run.size());
      cached += run.size();
      return Status::ok();
    }));
    if (cached != bytes) {
      return corruption("edge file " + input_file_.path() + " ended after " + std::to_string(cached) + " of " +
                        std::to_string(bytes) + " bytes");
    }
    edges_cached_ = true;
    input_validated_ = true;
    if (plan_.grid_bytes > 0) build_grid();
    return Status::ok();
  }

  // ---- the edge grid (K = 1; core/block_schedule.hpp) ------------------------------------------
  //
  // Records grouped by bucket — the cell of their block pair, then the destination's side and
  // sub-bucket — input order kept inside a bucket, cells laid out in the order the schedule visits
  // them (round by round, task by task), so a superstep reads the grid front to back. In memory
  // when the plan has room for the edges (build_grid, from the edge cache), otherwise in a scratch
  // file read back in windows every superstep (build_disk_grid; core/grid_window_reader.hpp).

  // The geometry both grids share: blocks, buckets and the schedule.
  void init_grid() {
    grid_blocks_ = static_cast<std::uint32_t>(((std::max<std::uint64_t>(graph_.vertices, 1) - 1) >> plan_.grid_shift) + 1);
    bucketing_ = GridBucketing::of(grid_blocks_, plan_.grid_shift);
    grid_bucket_bits_ = bucketing_.bucket_bits;
    schedule_ = block_pair_schedule(grid_blocks_);
    // A block holds at most 2^16 vertices (the usual case): a record keeps the two block-local
    // ids (the bucket tells the blocks), and the weight only for programs that read it.
    grid_layout_ = GridLayout::kFull;
    if (plan_.grid_shift <= kMaxLocalIdBits) {
      grid_layout_ = program_edge_type() == EdgeFileType::kWeighted ? GridLayout::kLocal8 : GridLayout::kLocal4;
    }
    if (!options_.compact_grid) grid_layout_ = GridLayout::kFull;
    grid_record_bytes_ = grid_layout_ == GridLayout::kLocal4 ? 4 : grid_layout_ == GridLayout::kLocal8 ? 8 : graph_.record_size();
    stats_.plan.grid_record_bytes = grid_record_bytes_;
  }

  // Every bucket in the grid's order: cells as the schedule visits them (round by round, task by
  // task), each cell's buckets in turn.
  std::vector<std::uint32_t> grid_bucket_order() const {
    std::vector<std::uint32_t> order;
    order.reserve(grid_buckets(grid_blocks_, bucketing_.sub_bits));
    for (const std::vector<BlockTask>& round : schedule_) {
      for (const BlockTask& task : round) {
        for (std::uint32_t i = 0; i < task.cells; ++i) {
          for (std::uint64_t b = task.cell[i] << grid_bucket_bits_; b < (task.cell[i] + 1) << grid_bucket_bits_; ++b) {
            order.push_back(static_cast<std::uint32_t>(b));
          }
        }
      }
    }
    return order;
  }

  // Gives every bucket its first record (bucket_begin_) and every cell its end (cell_end_), in the
  // grid's order; total(b) = the records of bucket b. Returns the number of records.
  template <typename Total>
  std::uint64_t place_buckets(Total&& total) {
    bucket_begin_.assign(grid_buckets(grid_blocks_, bucketing_.sub_bits), 0);
    cell_end_.assign(block_cells(grid_blocks_), 0);
    std::uint64_t next = 0;
    for (const std::uint32_t b : grid_bucket_order()) {
      bucket_begin_[b] = next;
      next += total(b);
      cell_end_[b >> grid_bucket_bits_] = next;  // the cell's last bucket sets it last
    }
    return next;
  }

  // The block-local part of a vertex id (grid records hold two of them, scatter_grid_as masks with it).
  std::uint32_t grid_local_mask() const {
    return plan_.grid_shift >= 32 ? UINT32_MAX : (std::uint32_t{1} << plan_.grid_shift) - 1;
  }

  // Vertices rounded up to whole grid blocks: the on-disk grid's states and sources cover them.
  std::uint64_t grid_padded_vertices() const {
    const std::uint64_t block = std::uint64_t{1} << plan_.grid_shift;
    return (std::max<std::uint64_t>(graph_.vertices, 1) + block - 1) / block * block;
  }

  // The sources' array of programs with a narrow Source, when `room` bytes allow it.
  void allocate_sources(std::uint64_t room) {
    if constexpr (ProgramWithSource<P>) {
      const std::uint64_t need = (grid_on_disk_ ? grid_padded_vertices() : graph_.vertices) * sizeof(typename P::Source);
      if (need > 0 && round_up(need, kIoAlignment) <= room) sources_ = AlignedBuffer(need);
    }
  }

  // One grid record (kLocal4 / kLocal8) for edge e: the two block-local ids, then the weight.
  template <GridLayout kLayout>
  static void encode_grid_record(std::byte* to, const Edge& e, std::uint32_t local_mask) {
    const std::uint32_t local = (e.src & local_mask) | ((e.dst & local_mask) << 16);
    std::memcpy(to, &local, 4);
    if constexpr (kLayout == GridLayout::kLocal8) std::memcpy(to + 4, &e.weight, 4);
  }

  // The in-memory grid, from the edge cache: each thread counts and then places one contiguous
  // range of the input, and the input-order copy is freed. The plan reserved both copies and the
  // counters (grid_bytes).
  void build_grid() {
    init_grid();
    const std::size_t rs = graph_.record_size();
    const std::uint64_t n = graph_.edges;
    const std::size_t T = workers_.size();
    const EdgeFileType type = graph_.type;
    const std::byte* in = edge_cache_.data();
    const GridBucketing bucket_of_edge = bucketing_;
    auto bucket_of = [&](const std::byte* record) {
      const Edge e = decode_edge(record, type);
      return bucket_of_edge(e.src, e.dst);
    };
    const std::uint64_t buckets = grid_buckets(grid_blocks_, bucketing_.sub_bits);
    std::vector<std::vector<std::uint64_t>> cursor(T, std::vector<std::uint64_t>(buckets, 0));
    pool_->run(T, [&](std::size_t t, unsigned) {
      std::uint64_t* count = cursor[t].data();
      for (std::uint64_t i = n * t / T; i < n * (t + 1) / T; ++i) ++count[bucket_of(in + i * rs)];
    });
    place_buckets([&](std::uint64_t b) {
      std::uint64_t sum = 0;
      for (std::size_t t = 0; t < T; ++t) sum += cursor[t][b];
      return sum;
    });
    for (std::uint64_t b = 0; b < buckets; ++b) {  // thread t's records follow threads 0..t-1's
      std::uint64_t next = bucket_begin_[b];
      for (std::size_t t = 0; t < T; ++t) {
        const std::uint64_t count = cursor[t][b];
        cursor[t][b] = next;
        next += count;
      }
    }
    const std::size_t grid_rs = grid_record_bytes_;
    grid_ = AlignedBuffer(n * grid_rs);
    std::byte* out = grid_.data();
    const std::uint32_t local_mask = grid_local_mask();
    auto place = [&]<std::size_t kSize, GridLayout kLayout>(std::size_t t) {  // constant sizes: moves, not calls
      std::uint64_t* next = cursor[t].data();
      for (std::uint64_t i = n * t / T; i < n * (t + 1) / T; ++i) {
        const std::byte* record = in + i * kSize;
        if constexpr (kLayout == GridLayout::kFull) {
          std::memcpy(out + next[bucket_of(record)]++ * kSize, record, kSize);
        } else {
          const Edge e = decode_edge(record, type);  // once: it gives both the bucket and the local ids
          encode_grid_record<kLayout>(out + next[bucket_of_edge(e.src, e.dst)]++ * (kLayout == GridLayout::kLocal4 ? 4 : 8),
                                      e, local_mask);
        }
      }
    };
    pool_->run(T, [&](std::size_t t, unsigned) {
      const bool weighted = rs == edge_record_size(EdgeFileType::kWeighted);
      switch (grid_layout_) {
        case GridLayout::kLocal4:
          weighted ? place.template operator()<12, GridLayout::kLocal4>(t) : place.template operator()<8, GridLayout::kLocal4>(t);
          break;
        case GridLayout::kLocal8:
          place.template operator()<12, GridLayout::kLocal8>(t);
          break;
        case GridLayout::kFull:
          weighted ? place.template operator()<12, GridLayout::kFull>(t) : place.template operator()<8, GridLayout::kFull>(t);
          break;
      }
    });
    edge_cache_ = AlignedBuffer();
    // The sources' array lives in what the grid plan reserved and the compact records left free.
    const std::uint64_t used = round_up(n * grid_rs, kIoAlignment) + (buckets + 1) * sizeof(std::uint64_t);
    allocate_sources(plan_.grid_bytes > used ? plan_.grid_bytes - used : 0);
    grid_ready_ = true;
  }

  // The on-disk grid (K = 1, no room for the edges; the plan's grid_window_bytes > 0; compact
  // records only), written in slabs of two windows (the slab buffer is the two window buffers).
  // A grid of one slab (or windows too small to stage through): one pass over the input checks
  // every record and counts the buckets, then one pass per slab places its records
  // (place_from_input). Otherwise one pass over the input does it all (build_staged).
  Status build_disk_grid() {
    init_grid();
    if (grid_layout_ == GridLayout::kFull) return Status{StatusCode::kInternal, "an on-disk grid needs block-local ids"};
    const std::uint64_t n = graph_.edges;
    const std::size_t grid_rs = grid_record_bytes_;
    ES_RETURN_IF_ERROR(volumes_.create_scratch());
    ES_ASSIGN_OR_RETURN(grid_file_, File::open_striped(volumes_.layout(StreamKind::kEdges, "edge_grid", 0), OpenMode::kCreate,
                                                       plan_.io.direct));
    grid_file_bytes_ = round_up(n * grid_rs, kIoAlignment);
    grid_windows_ = AlignedBuffer(2 * plan_.grid_window_bytes);
    grid_window_crc_.clear();
    const std::uint64_t slab_records = grid_windows_.size() / grid_rs;
    const std::uint64_t slabs = (n + slab_records - 1) / slab_records;
    const std::uint64_t groups = 2 * slabs;  // about half a slab each
    const std::uint64_t unit = std::lcm<std::uint64_t>(kIoAlignment, 4 + grid_rs);  // whole staged records and pages
    const std::uint64_t block = round_down(std::min<std::uint64_t>(grid_windows_.size() / groups, plan_.reader_bytes), unit);
    if (slabs > 1 && block >= unit) {
      ES_RETURN_IF_ERROR(build_staged(slab_records, slabs, groups, block));
    } else {
      ES_RETURN_IF_ERROR(check_and_count());
      for (std::uint64_t lo = 0; lo < n; lo += slab_records) {
        ES_RETURN_IF_ERROR(place_from_input(lo, std::min(slab_records, n - lo)));
        ES_RETURN_IF_ERROR(write_grid_slab(lo, std::min(slab_records, n - lo)));
      }
    }
    grid_on_disk_ = true;
    allocate_sources(round_up(grid_padded_vertices() * input_source_bytes(), kIoAlignment));
    grid_reader_ = std::make_unique<GridWindowReader>(grid_file_, grid_file_bytes_, plan_.grid_window_bytes,
                                                      std::span(grid_windows_.data(), grid_windows_.size()),
                                                      std::span<const std::uint32_t>(grid_window_crc_), plan_.io,
                                                      &edge_read_counters_);
    grid_ready_ = true;
    return Status::ok();
  }

  // Checks every input record, in parallel (the first bad one reported), counting each bucket's
  // records (counts[t][b] for task t); then `stage(run, first, counts)` sees each checked run of
  // records (with the counts so far). Ends with the buckets placed (place_buckets).
  template <typename Stage>
  Status check_count_and(Stage&& stage) {
    const std::size_t rs = graph_.record_size();
    const std::uint64_t n = graph_.edges;
    const std::size_t T = workers_.size();
    const EdgeFileType type = graph_.type;
    const GridBucketing bucket_of = bucketing_;
    const std::uint64_t buckets = grid_buckets(grid_blocks_, bucketing_.sub_bits);
    const std::string input_name = "edge file " + input_file_.path();
    std::vector<std::vector<std::uint64_t>> counts(T, std::vector<std::uint64_t>(buckets, 0));
    std::vector<std::uint64_t> bad(T);
    std::vector<Edge> bad_edges(T);
    std::uint64_t seen = 0;
    ES_ASSIGN_OR_RETURN(auto reader, open_input());
    ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, input_name, [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
      if (cancel_requested()) return cancelled();
      const std::size_t m = run.size() / rs;
      pool_->run(T, [&](std::size_t t, unsigned) {
        bad[t] = UINT64_MAX;
        std::uint64_t* count = counts[t].data();
        for (std::size_t i = m * t / T; i < m * (t + 1) / T; ++i) {
          const Edge e = decode_edge(run.data() + i * rs, type);
          if (!edge_is_valid(e)) {
            bad[t] = first + i;
            bad_edges[t] = e;
            return;
          }
          ++count[bucket_of(e.src, e.dst)];
        }
      });
      for (std::size_t t = 0; t < T; ++t) {  // ranges ascend with t: the first hit is the earliest
        if (bad[t] != UINT64_MAX) return invalid_edge_error(graph_, bad[t], bad_edges[t], P::kNonNegativeWeights);
      }
      ES_RETURN_IF_ERROR(stage(run, first, counts));
      seen += m;
      return Status::ok();
    }));
    if (seen != n) {
      return corruption(input_name + " ended after " + std::to_string(seen * rs) + " of " + std::to_string(n * rs) + " bytes");
    }
    place_buckets([&](std::uint64_t b) {
      std::uint64_t sum = 0;
      for (std::size_t t = 0; t < T; ++t) sum += counts[t][b];
      return sum;
    });
    input_validated_ = true;
    return Status::ok();
  }

  Status check_and_count() {
    return check_count_and([](std::span<const std::byte>, std::uint64_t, const auto&) { return Status::ok(); });
  }

  Expected<std::unique_ptr<FramedReader>> open_input() {
    return open_input_edges(graph_, input_file_, plan_.io, plan_.threads, parallel_for(), &stats_.input_io,
                            &stats_.input_codec_io);
  }

  // Which task places a bucket's records when every task reads every record: groups of 8 buckets
  // (one cache line of cursors) round robin.
  std::vector<std::uint8_t> bucket_owners() const {
    std::vector<std::uint8_t> owner(grid_buckets(grid_blocks_, bucketing_.sub_bits));
    for (std::size_t b = 0; b < owner.size(); ++b) owner[b] = static_cast<std::uint8_t>((b >> 3) % workers_.size());
    return owner;
  }

  // Fills the slab buffer with the grid records [lo, lo + slab) in one pass over the input (checked
  // already): every thread reads every record and places those of its buckets.
  Status place_from_input(std::uint64_t lo, std::uint64_t slab) {
    const std::size_t rs = graph_.record_size();
    const std::size_t T = workers_.size();
    const EdgeFileType type = graph_.type;
    const GridBucketing bucket_of = bucketing_;
    const std::uint32_t local_mask = grid_local_mask();
    const bool local4 = grid_layout_ == GridLayout::kLocal4;
    std::byte* out = grid_windows_.data();
    std::vector<std::uint64_t> next = bucket_begin_;
    const std::vector<std::uint8_t> owners = bucket_owners();
    ES_ASSIGN_OR_RETURN(auto reader, open_input());
    return for_each_record_run(*reader, rs, "edge file " + input_file_.path(), [&](std::span<const std::byte> run, std::uint64_t) -> Status {
      if (cancel_requested()) return cancelled();
      const std::size_t m = run.size() / rs;
      pool_->run(T, [&](std::size_t t, unsigned) {
        std::uint64_t* cursor = next.data();
        const std::uint8_t* owner = owners.data();
        for (std::size_t i = 0; i < m; ++i) {
          const Edge e = decode_edge(run.data() + i * rs, type);
          const std::uint64_t b = bucket_of(e.src, e.dst);
          if (owner[b] != t) continue;
          const std::uint64_t at = cursor[b]++ - lo;
          if (at >= slab) continue;  // another slab's record
          if (local4) {
            encode_grid_record<GridLayout::kLocal4>(out + at * 4, e, local_mask);
          } else {
            encode_grid_record<GridLayout::kLocal8>(out + at * 8, e, local_mask);
          }
        }
      });
      return Status::ok();
    });
  }

  // Writes the slab buffer's first `slab` records as the grid's records from `lo` on (padded with
  // zeros to the I/O alignment), with a crc32 per window when scratch checksums are on.
  Status write_grid_slab(std::uint64_t lo, std::uint64_t slab) {
    const std::size_t grid_rs = grid_record_bytes_;
    const std::uint64_t window = plan_.grid_window_bytes;
    std::byte* out = grid_windows_.data();
    const std::uint64_t bytes = round_up(slab * grid_rs, kIoAlignment);
    std::memset(out + slab * grid_rs, 0, bytes - slab * grid_rs);
    if (options_.scratch_checksums) {
      for (std::uint64_t w = 0; w * window < bytes; ++w) {
        grid_window_crc_.push_back(frame_crc(std::span<const std::byte>(out + w * window, std::min(window, bytes - w * window))));
      }
    }
    const auto start = std::chrono::steady_clock::now();
    ES_RETURN_IF_ERROR(grid_file_.write_at(lo * grid_rs, std::span<const std::byte>(out, bytes)));
    count_request(stats_.edges_io, start, 0, bytes);
    return Status::ok();
  }

  // The grid in more than one slab from one pass over the input. Buckets, in schedule order, are
  // cut into `groups` runs of about equal size (estimated from the first run of input records);
  // while the pass checks and counts, every record goes, as (32-bit bucket, grid record) in input
  // order, to its group's staging file (grid_group.G) through one buffer of `block` bytes per group
  // (in the slab buffer; a crc32 per block). Then each slab is filled by scanning the groups whose
  // records fall in it: a bucket's records take its places in input order. The staging files are
  // removed at the end.
  Status build_staged(std::uint64_t slab_records, std::uint64_t slabs, std::uint64_t groups, std::uint64_t block) {
    const std::size_t rs = graph_.record_size();
    const std::size_t grid_rs = grid_record_bytes_;
    const std::size_t staged_record = 4 + grid_rs;  // u32 bucket, then the grid record
    const std::uint64_t n = graph_.edges;
    const std::size_t T = workers_.size();
    const EdgeFileType type = graph_.type;
    const GridBucketing bucket_of = bucketing_;
    const std::uint32_t local_mask = grid_local_mask();
    const bool local4 = grid_layout_ == GridLayout::kLocal4;
    const std::uint64_t buckets = grid_buckets(grid_blocks_, bucketing_.sub_bits);
    const std::vector<std::uint32_t> order = grid_bucket_order();
    std::vector<std::uint32_t> group_of(buckets, 0);
    std::vector<std::uint8_t> bucket_owner(buckets, 0);  // the task that stages the bucket's group
    const std::vector<std::uint8_t> place_owner = bucket_owners();
    std::vector<File> files(groups);
    for (std::uint64_t g = 0; g < groups; ++g) {
      ES_ASSIGN_OR_RETURN(files[g], File::open_striped(volumes_.layout(StreamKind::kEdges, "grid_group." + std::to_string(g), g + 1),
                                                       OpenMode::kCreate, plan_.io.direct));
    }
    struct alignas(64) Group {      // one cache line each: groups of different tasks share none
      std::uint64_t filled = 0;     // bytes in the group's buffer
      std::uint64_t flushed = 0;    // bytes of the group's file written
      std::uint64_t staged = 0;     // records of the group
    };
    std::vector<Group> group(groups);
    std::vector<std::vector<std::uint32_t>> block_crc(groups);
    std::vector<IoCounters> written(T);
    std::vector<Status> errors(T);
    std::byte* buffers = grid_windows_.data();
    auto flush = [&](std::uint64_t g, std::size_t t) -> Status {
      std::byte* data = buffers + g * block;
      const std::uint64_t bytes = round_up(group[g].filled, kIoAlignment);
      std::memset(data + group[g].filled, 0, bytes - group[g].filled);
      if (options_.scratch_checksums) block_crc[g].push_back(frame_crc(std::span<const std::byte>(data, bytes)));
      const auto start = std::chrono::steady_clock::now();
      ES_RETURN_IF_ERROR(files[g].write_at(group[g].flushed, std::span<const std::byte>(data, bytes)));
      count_request(written[t], start, 0, bytes);
      group[g].flushed += bytes;
      group[g].filled = 0;
      return Status::ok();
    };
    std::vector<std::byte> run_staged;  // the current run's records as (bucket, grid record), in input order
    bool grouped = false;
    auto stage = [&](std::span<const std::byte> run, std::uint64_t, const std::vector<std::vector<std::uint64_t>>& counts) -> Status {
      const std::size_t m = run.size() / rs;
      if (!grouped) {  // the first run's counts estimate each bucket's share: equal shares per group
        std::uint64_t sample = 0;
        for (std::size_t t = 0; t < T; ++t) sample += std::accumulate(counts[t].begin(), counts[t].end(), std::uint64_t{0});
        std::uint64_t so_far = 0;
        for (const std::uint32_t b : order) {
          group_of[b] = static_cast<std::uint32_t>(std::min<std::uint64_t>(groups - 1, so_far * groups / std::max<std::uint64_t>(sample, 1)));
          bucket_owner[b] = static_cast<std::uint8_t>(group_of[b] % T);
          for (std::size_t t = 0; t < T; ++t) so_far += counts[t][b];
        }
        grouped = true;
      }
      run_staged.resize(m * staged_record);
      auto encode = [&]<GridLayout kLayout, std::size_t kInput>(std::size_t t) {
        constexpr std::size_t kStaged = kLayout == GridLayout::kLocal4 ? 8 : 12;
        for (std::size_t i = m * t / T; i < m * (t + 1) / T; ++i) {
          const Edge e = decode_edge(run.data() + i * kInput, type);
          const auto b = static_cast<std::uint32_t>(bucket_of(e.src, e.dst));
          std::byte* to = run_staged.data() + i * kStaged;
          std::memcpy(to, &b, 4);
          encode_grid_record<kLayout>(to + 4, e, local_mask);
        }
      };
      pool_->run(T, [&](std::size_t t, unsigned) {
        if (!local4) return encode.template operator()<GridLayout::kLocal8, 12>(t);  // weights: 12-byte input
        rs == 12 ? encode.template operator()<GridLayout::kLocal4, 12>(t) : encode.template operator()<GridLayout::kLocal4, 8>(t);
      });
      // Task t appends to the groups g with g % T == t, whose buckets it owns (constant record
      // sizes: moves, not calls).
      auto distribute = [&]<std::size_t kStaged>(std::size_t t) {
        const std::uint32_t* group_index = group_of.data();
        const std::uint8_t* owner = bucket_owner.data();
        Group* groups_of_task = group.data();
        const std::byte* from = run_staged.data();
        for (std::size_t i = 0; i < m; ++i, from += kStaged) {
          std::uint32_t b;
          std::memcpy(&b, from, 4);
          if (owner[b] != t) continue;
          const std::uint32_t g = group_index[b];
          Group& to = groups_of_task[g];
          std::memcpy(buffers + g * block + to.filled, from, kStaged);
          to.filled += kStaged;
          ++to.staged;
          if (to.filled == block) {  // block is a multiple of the record
            errors[t] = flush(g, t);
            if (!errors[t].is_ok()) return;
          }
        }
      };
      pool_->run(T, [&](std::size_t t, unsigned) {
        local4 ? distribute.template operator()<8>(t) : distribute.template operator()<12>(t);
      });
      for (const Status& error : errors) ES_RETURN_IF_ERROR(error);
      return Status::ok();
    };
    ES_RETURN_IF_ERROR(check_count_and(stage));
    for (std::uint64_t g = 0; g < groups; ++g) {
      if (group[g].filled > 0) ES_RETURN_IF_ERROR(flush(g, 0));
    }
    for (const IoCounters& c : written) stats_.edges_io += c;

    // The grid's records [first[g], end[g]) are group g's (groups are runs of buckets in grid
    // order, so a bucket ends where the next one in that order begins).
    std::vector<std::uint64_t> first(groups, UINT64_MAX);
    std::vector<std::uint64_t> end(groups, 0);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::uint32_t g = group_of[order[i]];
      first[g] = std::min(first[g], bucket_begin_[order[i]]);
      end[g] = std::max(end[g], i + 1 < order.size() ? bucket_begin_[order[i + 1]] : n);
    }
    AlignedBuffer in(block);
    std::vector<std::uint64_t> next;
    std::vector<std::uint8_t> bad(T, 0);
    for (std::uint64_t j = 0; j < slabs; ++j) {
      if (cancel_requested()) return cancelled();
      const std::uint64_t lo = j * slab_records;
      const std::uint64_t slab = std::min(slab_records, n - lo);
      std::byte* out = grid_windows_.data();
      for (std::uint64_t g = 0; g < groups; ++g) {
        if (group[g].staged == 0 || end[g] <= lo || first[g] >= lo + slab) continue;  // nothing of g in this slab
        next = bucket_begin_;  // the scan below counts g's buckets from their first place
        std::uint64_t left = group[g].staged * staged_record;
        for (std::uint64_t k = 0; left > 0; ++k) {
          const std::uint64_t bytes = std::min(block, left);
          const std::span<std::byte> into(in.data(), round_up(bytes, kIoAlignment));
          const auto start = std::chrono::steady_clock::now();
          ES_ASSIGN_OR_RETURN(const std::size_t got, files[g].read_at(k * block, into));
          count_request(stats_.edges_io, start, got, 0);
          if (got != into.size() || (options_.scratch_checksums && frame_crc(into) != block_crc[g][k])) {
            return corruption("edge grid staging file " + files[g].path() + ": " +
                              (got != into.size() ? "short read" : std::string("checksum mismatch")) + " at byte offset " +
                              std::to_string(k * block) + " (" + std::to_string(into.size()) + " bytes; damaged scratch data)");
          }
          const std::uint64_t m = bytes / staged_record;
          // Task t places the records of its bucket groups (8 buckets: one cache line of cursors).
          auto place = [&]<std::size_t kGrid>(std::size_t t) {
            constexpr std::size_t kStaged = 4 + kGrid;
            std::uint64_t* cursor = next.data();
            const std::uint32_t* group_index = group_of.data();
            const std::uint8_t* owner = place_owner.data();
            const std::byte* record = in.data();
            for (std::uint64_t i = 0; i < m; ++i, record += kStaged) {
              std::uint32_t b;
              std::memcpy(&b, record, 4);
              if (b >= buckets) {  // only a damaged file without checksums gets here
                bad[t] = 1;
                return;
              }
              if (owner[b] != t) continue;
              if (group_index[b] != g) {  // the same
                bad[t] = 1;
                return;
              }
              const std::uint64_t at = cursor[b]++ - lo;
              if (at < slab) std::memcpy(out + at * kGrid, record + 4, kGrid);
            }
          };
          pool_->run(T, [&](std::size_t t, unsigned) {
            local4 ? place.template operator()<4>(t) : place.template operator()<8>(t);
          });
          if (std::count(bad.begin(), bad.end(), 1) > 0) {
            return corruption("edge grid staging file " + files[g].path() + ": a record names a bucket of another group near byte offset " +
                              std::to_string(k * block) + " (damaged scratch data)");
          }
          left -= bytes;
        }
      }
      ES_RETURN_IF_ERROR(write_grid_slab(lo, slab));
    }
    for (File& file : files) {
      const std::string path = file.path();
      file.close();
      std::error_code ignored;
      std::filesystem::remove(path, ignored);  // the scratch directory goes at the end of the run anyway
    }
    return Status::ok();
  }

  static constexpr std::size_t input_source_bytes() {
    if constexpr (ProgramWithSource<P>) {
      return sizeof(typename P::Source);
    } else {
      return 0;
    }
  }

  // One superstep's scatter over the grid: round after round, the disjoint block pairs of a round
  // in parallel. An update whose target lies in the task's two blocks is gathered at once; any
  // other (a program may emit to any vertex) waits in the worker's buffer. A task whose buffer
  // fills stops where it is; the buffered updates are then routed and applied after the round's
  // barrier and the unfinished tasks continue, so memory stays within the plan.
  Status scatter_grid(std::uint32_t s, ScatterMode mode) {
    if constexpr (ProgramWithSource<P>) {
      if (sources_.size() > 0) {
        // Programs with a narrow Source: each vertex's, once, before any of this superstep's gathers.
        auto* src = reinterpret_cast<typename P::Source*>(sources_.data());
        const Vertex* st = states();
        const std::uint64_t n = count_;
        const std::size_t T = workers_.size();
        pool_->run(T, [&](std::size_t t, unsigned) {
          for (std::uint64_t v = n * t / T; v < n * (t + 1) / T; ++v) src[v] = program_.source(st[v], s);
        });
        return scatter_grid_layout<true>(s, mode);
      }
    }
    return scatter_grid_layout<false>(s, mode);
  }

  template <bool kFromSources>
  Status scatter_grid_layout(std::uint32_t s, ScatterMode mode) {
    switch (grid_layout_) {
      case GridLayout::kLocal4: return scatter_grid_as<GridLayout::kLocal4, kFromSources>(s, mode);
      case GridLayout::kLocal8: return scatter_grid_as<GridLayout::kLocal8, kFromSources>(s, mode);
      case GridLayout::kFull: break;
    }
    return scatter_grid_as<GridLayout::kFull, kFromSources>(s, mode);
  }

  template <GridLayout kLayout, bool kFromSources>
  Status scatter_grid_as(std::uint32_t s, ScatterMode mode) {
    const std::size_t rs = kLayout == GridLayout::kLocal4 ? 4 : kLayout == GridLayout::kLocal8 ? 8 : graph_.record_size();
    const unsigned shift = plan_.grid_shift;
    [[maybe_unused]] const std::uint32_t local_mask = grid_local_mask();
    const std::uint64_t side_bucket = std::uint64_t{1} << (grid_bucket_bits_ - 1);  // first bucket of side 1
    const EdgeFileType type = graph_.type;
    // The records [window_lo, window_hi) are at grid: all of them in memory; one window of the
    // on-disk grid at a time otherwise (the next one is read while this one is scattered).
    const std::byte* grid = grid_.data();
    std::uint64_t window_lo = 0;
    std::uint64_t window_hi = graph_.edges;
    auto next_window = [&]() -> Status {
      if (!grid_on_disk_ || window_hi >= graph_.edges) {
        return Status{StatusCode::kInternal, "edge grid: a task waits for records past the grid"};
      }
      ES_ASSIGN_OR_RETURN(const std::span<const std::byte> bytes, grid_reader_->next());
      window_lo = window_hi;
      window_hi = std::min<std::uint64_t>(graph_.edges, window_lo + bytes.size() / rs);
      grid = bytes.data();
      return Status::ok();
    };
    if (grid_on_disk_) {
      ES_RETURN_IF_ERROR(grid_reader_->rewind());
      window_hi = 0;
      ES_RETURN_IF_ERROR(next_window());
    }
    constexpr std::size_t kEmitsPerRecord = P::kMaxEmitsPerEdge * (kTwoWay ? 2 : 1);
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
        for (Worker& w : workers_) {
          w.emitted_count = 0;
          w.changed = 0;
          w.direct = 0;
        }
        pool_->run(pending.size(), [&](std::size_t i, unsigned worker) {
          const BlockTask& task = round[pending[i]];
          Progress& at = progress[pending[i]];
          Worker& w = workers_[worker];
          Entry* out = w.emitted.data();
          const std::size_t capacity = w.emitted.size();
          std::size_t k = w.emitted_count;
          std::uint64_t changed = 0;
          std::uint64_t direct = 0;
          Vertex* st = states();
          const std::uint32_t a = task.a;
          const std::uint32_t b = task.b;
          const std::byte* const records = grid;  // record r at records + (r - lo) * rs
          const std::uint64_t lo = window_lo;
          const std::uint64_t hi = window_hi;
          auto emit = [&](VertexId target, const Update& u) {
            const std::uint32_t block = target >> shift;
            if (block == a || block == b) {
              changed += program_.gather(target, st[target], u, s) ? 1 : 0;
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
              const std::uint64_t stop = std::min({r < side1 ? side1 : end, r + room, hi});
              [[maybe_unused]] const VertexId src_base = (r < side1 ? y : x) << shift;
              [[maybe_unused]] const VertexId dst_base = (r < side1 ? x : y) << shift;
              const std::byte* record = records + (r - lo) * rs;
              for (; r < stop; ++r, record += rs) {
                Edge e;
                if constexpr (kLayout == GridLayout::kFull) {
                  e = decode_edge(record, type);
                } else {
                  std::uint32_t local;
                  std::memcpy(&local, record, 4);
                  // Masked: even a damaged record (scratch checksums off) names vertices of the
                  // task's two blocks, whose states exist (padded to whole blocks on disk).
                  e.src = src_base + (local & local_mask);
                  e.dst = dst_base + ((local >> 16) & local_mask);
                  e.weight = 1.0F;
                  if constexpr (kLayout == GridLayout::kLocal8) std::memcpy(&e.weight, record + 4, 4);
                }
                if constexpr (kFromSources) {
                  const auto* src = reinterpret_cast<const typename P::Source*>(sources_.data());
                  if (mode.forward) program_.scatter_source(src[e.src], e, s, emit);
                  if constexpr (P::kUndirected) program_.scatter_source(src[e.dst], Edge{e.dst, e.src, e.weight}, s, emit);
                } else {
                  if (mode.forward) program_.scatter(st[e.src], e, s, emit);
                  if constexpr (P::kUndirected) program_.scatter(st[e.dst], Edge{e.dst, e.src, e.weight}, s, emit);
                }
                if constexpr (kReverse) {
                  if (mode.reverse) program_.scatter_reverse(st[e.dst], e, s, emit);
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
        std::uint64_t buffered = 0;
        for (const Worker& w : workers_) {
          current_.changed += w.changed;
          current_.emitted += w.direct;
          current_.in_memory += w.direct;
          buffered += w.emitted_count;
        }
        if (buffered > 0) ES_RETURN_IF_ERROR(route_and_apply(s, /*count_emitted=*/true));
        unfinished.clear();
        bool ready = false;  // some unfinished task can go on in the current window
        for (const std::size_t i : pending) {
          const Progress& at = progress[i];
          if (at.cell >= round[i].cells) continue;
          unfinished.push_back(i);
          const std::uint64_t position = at.started ? at.record : bucket_begin_[round[i].cell[at.cell] << grid_bucket_bits_];
          ready = ready || position < window_hi;
        }
        pending.swap(unfinished);
        // Every task left waits for records past the window (on-disk grid only: in memory the
        // window is the whole grid): move to the next one.
        if (!pending.empty() && !ready) ES_RETURN_IF_ERROR(next_window());
      }
    }
    return Status::ok();
  }

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
      std::uint64_t bad = UINT64_MAX;
      Edge bad_edge{};
      for (const Worker& w : workers_) {
        if (w.bad_record < bad) {
          bad = w.bad_record;
          bad_edge = w.bad_edge;
        }
      }
      if (bad != UINT64_MAX && scratch != nullptr) {
        return corruption("edge stream " + scratch->path() + " record " + std::to_string(bad) + " (byte offset " +
                          std::to_string(bad * rs) + " of the decoded stream) has edge " + std::to_string(bad_edge.src) +
                          " -> " + std::to_string(bad_edge.dst) + " outside partition " + std::to_string(partition_) +
                          " (damaged scratch data)");
      }
      if (bad != UINT64_MAX) return invalid_edge_error(graph_, bad, bad_edge, P::kNonNegativeWeights);
      ES_RETURN_IF_ERROR(route_and_apply(s, /*count_emitted=*/true));
    }
    return Status::ok();
  }

  std::uint32_t key_of(VertexId target) const {
    const std::uint64_t local = static_cast<std::uint64_t>(target) - base_;
    if (local < count_) return static_cast<std::uint32_t>(local >> plan_.cache_shift);
    return static_cast<std::uint32_t>(cache_keys_ + plan_.partition_of(target));
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
      std::uint32_t* table[1 + kExtraHistograms] = {offsets};
      std::size_t tables = 1;
      if (!w.counts.empty()) {
        for (std::size_t j = 0; j < kExtraHistograms; ++j) table[tables++] = w.counts.data() + j * (keys_ + 1);
      }
      const std::size_t mask = tables - 1;  // 1 or 4 tables
      // The tables of updates 4j .. 4j + 3 (all the same one when there is one), for 4-wide steps.
      std::uint32_t* const quad[4] = {table[0], table[1 & mask], table[2 & mask], table[3 & mask]};
      const std::size_t n4 = n / 4 * 4;
      std::fill(w.offsets.begin(), w.offsets.end(), 0U);
      std::fill(w.counts.begin(), w.counts.end(), 0U);
      for (std::size_t i = 0; i < n4; i += 4) {
        for (std::size_t j = 0; j < 4; ++j) ++quad[j][key_of(w.emitted[i + j].target)];
      }
      for (std::size_t i = n4; i < n; ++i) ++table[i & mask][key_of(w.emitted[i].target)];
      std::uint32_t running = 0;  // counts -> each (key, table) part's first index, key-major
      for (std::size_t k = 0; k < keys_; ++k) {
        for (std::size_t j = 0; j < tables; ++j) {
          const std::uint32_t c = table[j][k];
          table[j][k] = running;
          running += c;
        }
      }
      auto place = [&](std::size_t i, std::uint32_t* t) { w.routed[t[key_of(w.emitted[i].target)]++] = w.emitted[i]; };
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
          for (std::uint32_t i = begin; i < end; ++i) {
            const Entry& e = w.routed[i];
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

  // Appends every task's updates for partition q to q's stream, combining per target first when
  // the program allows (a direct-mapped table: hot targets of skewed graphs collapse).
  void spill(std::uint64_t q, std::size_t key, Worker& me) {
    FramedWriter& writer = *writers_[set_out_][q];
    auto append = [&](const Entry* data, std::size_t n) {
      if (n == 0 || !me.error.is_ok()) return;
      me.spilled += n;
      Status status = writer.append(std::span(reinterpret_cast<const std::byte*>(data), n * sizeof(Entry)), me.frame_scratch);
      if (!status.is_ok()) me.error = status;
    };
    std::size_t total = 0;
    for (const Worker& w : workers_) total += w.offsets[key] - w.offsets[key - 1];
    if (total == 0) return;
    if constexpr (!P::kCombinable) {
      for (const Worker& w : workers_) {
        const std::uint32_t begin = w.offsets[key - 1];
        append(w.routed.data() + begin, w.offsets[key] - begin);
      }
    } else {
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
      for (const Worker& w : workers_) {
        for (std::uint32_t i = w.offsets[key - 1]; i < w.offsets[key]; ++i) {
          const Entry& e = w.routed[i];
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
      }
      // Flush only the slots this call used.
      for (const std::uint32_t index : me.touched) stage(me.combiner[index].entry);
      me.touched.clear();
      append(me.staging.data(), me.staging.size());
    }
  }

  void collect_io_counters() {
    stats_.edges_io += edge_read_counters_;
    stats_.updates_io += update_read_counters_;
    for (int set = 0; set < 2; ++set) {
      for (const auto& c : update_counters_[set]) stats_.updates_io += c;
      for (const auto& w : writers_[set]) stats_.updates_codec_io += w->codec_counters();
    }
  }

  GraphInfo graph_;
  EngineOptions options_;
  P program_;
  MemoryPlan plan_;
  RunStats stats_;
  SuperstepStats current_;
  std::uint64_t K_ = 1;
  std::uint64_t cache_keys_ = 1;
  std::uint64_t keys_ = 1;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<Worker> workers_;
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
  File grid_file_;
  std::uint64_t grid_file_bytes_ = 0;        // the grid's records, padded to the I/O alignment
  AlignedBuffer grid_windows_;               // two windows of plan_.grid_window_bytes
  std::vector<std::uint32_t> grid_window_crc_;  // crc32 per window (scratch checksums)
  bool input_validated_ = false;           // every input record has been read and checked once
  std::vector<std::uint8_t> block_active_; // ProgramWithActive: per block of the current partition
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
  std::vector<File> redge_files_;            // reverse-edge programs: edges by destination
  std::vector<std::uint64_t> redge_bytes_;
  std::vector<std::uint64_t> redge_stored_;
  std::vector<File> update_files_[2];
  std::vector<IoCounters> update_counters_[2];
  std::vector<std::unique_ptr<FramedWriter>> writers_[2];
  IoCounters edge_read_counters_;
  IoCounters update_read_counters_;
  std::unique_ptr<CheckpointSession> checkpoint_;  // --checkpoint / --resume
  // One pass over grid_file_ per superstep; last, so it goes before the buffers and counters it uses.
  std::unique_ptr<GridWindowReader> grid_reader_;
};

/// Runs `program` on `graph` with `options`; `visit` receives the final states.
template <EdgeProgram P>
Expected<RunStats> run_engine(const GraphInfo& graph, const EngineOptions& options, const P& program,
                              const FinalStateVisitor<typename P::Vertex>& visit) {
  Engine<P> engine(graph, options, program);
  return engine.run(visit);
}

}  // namespace edgestream
