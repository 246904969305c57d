// Resumable runs (--checkpoint DIR, --resume DIR; docs/checkpoint.md): what a checkpoint holds,
// its file format, how it is written atomically and read back, and the program opt-in.
//
// A checkpoint is taken at the boundary before superstep s (s >= 1): the state of every vertex
// after all updates emitted in s - 1 have been applied (the engine writes each partition's state
// right after its gather of s - 1's updates, before prepare/scatter of s, so no update stream
// needs saving), the program's own members after done(s - 1), the run's per-superstep statistics,
// how many vertices s - 1's updates changed (counted in s), and what identifies the run. A resumed
// run starts superstep s from that state; because every later step is the same deterministic
// computation with the same memory plan, its results are bit-for-bit those of an uninterrupted run.
//
// File DIR/checkpoint (native byte order; written as DIR/checkpoint.tmp-<pid> while superstep s
// runs, then fdatasync'ed, renamed over the previous one and the directory fsync'ed: the previous
// checkpoint stays valid until the new one is complete):
//   header  32 B: magic "ESCKPT01", u32 version, u32 0, u64 state bytes, u64 meta bytes
//   state      : vertices * sizeof(Vertex), in vertex-id order
//   meta       : identity, superstep, program members, statistics (StateWriter fields)
//   trailer 16 B: magic "ESCKPEND", u32 zlib crc32 of everything before, u32 0
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checkpoint_options.hpp"
#include "core/engine_options.hpp"
#include "core/memory_plan.hpp"
#include "core/run_stats.hpp"
#include "io/file.hpp"
#include "io/graph_format.hpp"
#include "io/status.hpp"

namespace edgestream {

/// Serialises the small fields of a checkpoint (identity, program members, statistics): fixed-size
/// values in native byte order, strings and byte blocks with a 64-bit length.
class StateWriter {
 public:
  template <typename T>
    requires std::is_trivially_copyable_v<T>
  void put(const T& value) {
    const std::size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
  }
  void put_string(const std::string& s);
  void put_bytes(std::span<const std::byte> data);  // length first
  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

/// Reads what a StateWriter wrote; every read past the end is a corruption error naming `what`.
class StateReader {
 public:
  StateReader(std::span<const std::byte> bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {}
  template <typename T>
    requires std::is_trivially_copyable_v<T>
  Status get(T& value) {
    if (bytes_.size() - pos_ < sizeof(T)) return truncated(sizeof(T));
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return Status::ok();
  }
  Status get_string(std::string& s);
  Status get_bytes(std::vector<std::byte>& data);
  /// An error unless every byte was read.
  Status expect_end() const;
  const std::string& what() const { return what_; }

 private:
  Status truncated(std::size_t wanted) const;
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  std::string what_;
};

// ---- the program opt-in ------------------------------------------------------------------------
//
// A program can be checkpointed when it says so: `static constexpr bool kCheckpointable = true;`.
// Its members (parameters, phase, counters) are then saved as they are after done() — as raw bytes
// when the struct is trivially copyable and holds no pointers, or through its own hooks
//   void save_state(StateWriter&) const;   Status load_state(StateReader&);
// when it refers to memory outside itself (e.g. a tally the runner reads afterwards).

template <typename P>
inline constexpr bool kCheckpointable = [] {
  if constexpr (requires { P::kCheckpointable; }) {
    return static_cast<bool>(P::kCheckpointable);
  } else {
    return false;
  }
}();

template <typename P>
concept ProgramWithStateHooks = requires(const P& cp, P& p, StateWriter& w, StateReader& r) {
  { cp.save_state(w) };
  { p.load_state(r) } -> std::same_as<Status>;
};

template <typename P>
void save_program_state(const P& program, StateWriter& out) {
  if constexpr (ProgramWithStateHooks<P>) {
    program.save_state(out);
  } else {
    static_assert(std::is_trivially_copyable_v<P>, "a checkpointable program without save_state/load_state must be trivially copyable");
    out.put(program);
  }
}

template <typename P>
Status load_program_state(P& program, StateReader& in) {
  if constexpr (ProgramWithStateHooks<P>) {
    return program.load_state(in);
  } else {
    return in.get(program);
  }
}

// ---- identity -----------------------------------------------------------------------------------

/// What must be equal for a resume to be exact: the run (algorithm and parameters), the graph, the
/// program's record sizes and the memory plan (partition ranges, batches, combining tables, request
/// sizes, keyed segments and the edge grid decide the order in which floating-point updates are
/// combined).
struct CheckpointIdentity {
  std::string run;                // algorithm and parameters (CheckpointOptions::run_identity)
  std::string graph;              // the .ini's path, for messages
  std::uint32_t ini_crc = 0;      // zlib crc32 of the .ini's bytes
  std::uint64_t edge_file_bytes = 0;
  std::int64_t edge_file_mtime_ns = 0;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  std::uint32_t record_bytes = 0;
  std::uint32_t vertex_bytes = 0;  // sizeof(Program::Vertex)
  std::uint32_t update_bytes = 0;  // sizeof(Program::Update)
  std::string edges_codec;
  std::string updates_codec;
  // The plan (set_plan).
  std::uint64_t partitions = 0;
  std::uint64_t partition_size = 0;
  std::uint64_t threads = 0;
  std::uint64_t batch_records = 0;
  std::uint64_t combiner_slots = 0;
  std::uint64_t read_chunk = 0;
  std::uint64_t write_chunk = 0;
  // The plan's edge order (the order in which a superstep's updates are added): K > 1 keyed
  // segments, and at K = 1 the grid's blocks (0: input order) and whether its buckets are sorted
  // (the Elias-Fano grid; its window size then decides where a bucket larger than a slab is cut).
  std::uint64_t segment_records = 0;
  std::uint64_t grid_shift = 0;
  std::uint64_t grid_sorted_window = 0;

  /// Everything but the plan, from the graph's files and the engine's options.
  static Expected<CheckpointIdentity> of_run(const GraphInfo& graph, const EngineOptions& options, std::size_t vertex_bytes,
                                             std::size_t update_bytes);
  void set_plan(const MemoryPlan& plan);
  void save(StateWriter& out) const;
  Status load(StateReader& in);
};

/// Compares a checkpoint's identity (`saved`, read from `file`) with this run's; with `plan` the
/// memory plans too. The error names the file and the first difference, e.g. "checkpoint DIR/checkpoint
/// was written by -b pagerank --pagerank::niters 20, not -b pagerank --pagerank::niters 10".
Status check_identity(const CheckpointIdentity& saved, const CheckpointIdentity& now, const std::string& file, bool plan);

/// The statistics a resumed run carries over: supersteps, per-superstep counts, update totals
/// (I/O counters and times are this process's own).
void save_progress(const RunStats& stats, StateWriter& out);
Status load_progress(StateReader& in, RunStats& stats);

// ---- the file -----------------------------------------------------------------------------------

/// One checkpoint being written: to a temporary name in the directory, renamed into place by commit().
class CheckpointFileWriter {
 public:
  CheckpointFileWriter() = default;
  CheckpointFileWriter(CheckpointFileWriter&& other) noexcept;
  CheckpointFileWriter& operator=(CheckpointFileWriter&& other) noexcept;
  CheckpointFileWriter(const CheckpointFileWriter&) = delete;
  CheckpointFileWriter& operator=(const CheckpointFileWriter&) = delete;
  ~CheckpointFileWriter();

  /// Starts DIR/checkpoint.tmp-<pid>, to hold `state_bytes` of vertex state.
  static Expected<CheckpointFileWriter> begin(const std::filesystem::path& dir, std::uint64_t state_bytes);
  /// Appends vertex states (in vertex-id order).
  Status append(std::span<const std::byte> states);
  /// Writes `meta`, the header and the trailer, fdatasync, renames to DIR/checkpoint, fsyncs DIR.
  /// Errors (and removes the temporary file) if not all state was appended.
  Status commit(std::span<const std::byte> meta);
  /// For tests: stops as a killed process would, leaving the temporary file behind.
  void abandon_like_a_crash();
  std::uint64_t bytes() const { return offset_; }
  /// True once commit() renamed the file into place (its directory's fsync may still have failed).
  bool renamed() const { return renamed_; }

 private:
  void remove_temporary();
  std::filesystem::path dir_;
  std::filesystem::path temp_;
  File file_;
  std::uint64_t offset_ = 0;
  std::uint64_t state_end_ = 0;
  std::uint64_t synced_ = 0;
  std::uint32_t crc_ = 0;  // of the state
  bool open_ = false;
  bool renamed_ = false;
};

/// The committed checkpoint of a directory, verified (size, magic, checksum) when opened.
class CheckpointFileReader {
 public:
  /// Opens DIR/checkpoint and checks it end to end (one sequential read with a 1 MiB buffer).
  /// Errors name the file: missing, truncated, not a checkpoint, checksum mismatch.
  static Expected<CheckpointFileReader> open(const std::filesystem::path& dir);
  const std::vector<std::byte>& meta() const { return meta_; }
  std::uint64_t state_bytes() const { return state_bytes_; }
  /// Reads state bytes [offset, offset + out.size()).
  Status read_state(std::uint64_t offset, std::span<std::byte> out) const;
  const std::string& path() const { return file_.path(); }

 private:
  File file_;
  std::vector<std::byte> meta_;
  std::uint64_t state_offset_ = 0;
  std::uint64_t state_bytes_ = 0;
};

/// File name of the committed checkpoint inside its directory.
inline constexpr const char* kCheckpointFileName = "checkpoint";

// ---- one run's checkpoints (used by the engine) ------------------------------------------------

/// The engine's side: resume (read once, at the first superstep) and the checkpoint schedule.
class CheckpointSession {
 public:
  /// Opens --resume's checkpoint (verified) and checks it against `now` (all but the plan); makes
  /// --checkpoint's directory. When resuming, `engine` gets the checkpoint's partition count and
  /// batch size so that planning reproduces the checkpointed plan.
  static Expected<std::unique_ptr<CheckpointSession>> start(const CheckpointOptions& options, CheckpointIdentity now,
                                                            EngineOptions& engine);
  /// After planning: checks the plan against the resumed checkpoint's; remembers it for writing.
  Status check_plan(const MemoryPlan& plan);

  bool resuming() const { return reader_ != nullptr; }
  /// 0, or the superstep a resumed run continues at.
  std::uint32_t first_superstep() const { return first_superstep_; }
  const std::vector<std::byte>& resumed_program() const { return resumed_program_; }
  const std::vector<std::byte>& resumed_progress() const { return resumed_progress_; }
  /// The checkpointed states of vertices [first, first + out.size() / vertex bytes).
  Status read_state(std::uint64_t first_vertex, std::span<std::byte> out) const;
  /// The resumed superstep is under way: the checkpoint is not read again.
  void end_resume() { reader_.reset(); }
  /// A description for messages ("checkpoint DIR/checkpoint").
  std::string resumed_file() const;

  /// True when a checkpoint should be taken before `superstep` (every N supersteps or T seconds).
  bool due(std::uint32_t superstep) const;
  /// Starts the checkpoint of the boundary before `superstep`: `program` and `progress` are the
  /// program's members and the statistics (save_program_state, save_progress) at that boundary.
  ///
  /// A checkpoint the storage refuses (begin, add_state or commit: no space, EIO, a failed fsync
  /// or rename) does not stop the run: one "warning: checkpoint before superstep S failed: <the
  /// error naming the file>" on stderr, CheckpointStats::failed counts it, its temporary file is
  /// removed, the previous checkpoint stays the valid one, and the next one is tried when due.
  /// These three return an error only for a stop request or an internal error.
  Status begin(std::uint32_t superstep, std::vector<std::byte> program, std::vector<std::byte> progress);
  /// States of the next vertices in id order (every vertex exactly once before commit).
  Status add_state(std::span<const std::byte> states);
  /// Completes it; `changed` = vertices changed by the previous superstep's updates gathered in
  /// this one (SuperstepStats::changed counts them; a resumed superstep starts from it).
  Status commit(std::uint64_t changed);
  /// A resumed run: the `changed` its first superstep starts with.
  std::uint64_t resumed_changed() const { return resumed_changed_; }
  bool writing() const { return writer_ != nullptr; }
  const CheckpointStats& counters() const { return counters_; }

 private:
  CheckpointOptions options_;
  CheckpointIdentity identity_;
  CheckpointIdentity saved_;
  std::unique_ptr<CheckpointFileReader> reader_;
  std::unique_ptr<CheckpointFileWriter> writer_;
  std::vector<std::byte> resumed_program_;
  std::vector<std::byte> resumed_progress_;
  std::uint64_t resumed_changed_ = 0;
  std::vector<std::byte> program_;   // of the checkpoint being written
  std::vector<std::byte> progress_;
  std::uint32_t superstep_ = 0;
  std::uint32_t first_superstep_ = 0;
  std::uint32_t last_superstep_ = 0;  // of the last checkpoint (or the resume)
  std::chrono::steady_clock::time_point last_time_;
  std::chrono::steady_clock::time_point begin_time_;
  CheckpointStats counters_;
  std::uint32_t last_committed_ = 0;  // superstep of the last checkpoint this process committed (0: none)

  /// `status` of a checkpoint step: a storage failure becomes a warning (see begin()).
  Status failed(Status status);
};

}  // namespace edgestream
