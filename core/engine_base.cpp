// EngineBase (core/engine_base.hpp): planning, scratch files, partition states on storage, the
// input's checked pass into memory and the edge grid's construction; the open-file limit and the
// invalid-input messages. Program-independent: compiled once for every Engine<P>.
#include "core/engine_base.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <filesystem>
#include <future>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "compress/graph_input.hpp"
#include "core/background_jobs.hpp"
#include "core/staged_block.hpp"
#include "io/cancellation.hpp"
#include "io/record_stream.hpp"
#include "io/timeline.hpp"
#include "utils/mix64.hpp"
#include "utils/radix_sort.hpp"

namespace edgestream {

namespace {

// One grid record (kLocal4 / kLocal8) for edge e: the two block-local ids, then the weight.
template <GridLayout kLayout>
void encode_grid_record(std::byte* to, const Edge& e, std::uint32_t local_mask) {
  const std::uint32_t local = (e.src & local_mask) | ((e.dst & local_mask) << 16);
  std::memcpy(to, &local, 4);
  if constexpr (kLayout == GridLayout::kLocal8) std::memcpy(to + 4, &e.weight, 4);
}

// Sorts the n grid records (kLocal4: Record = uint32_t, kLocal8: uint64_t) at `records` by their
// source's block-local id (their first 4 bytes & local_mask, EngineBase::grid_local_mask(): a mask
// of the low bits), stable, in pieces of at most scratch.size() records (each piece sorted on its
// own; scratch.size() >= 1).
template <typename Record>
void sort_grid_records_by_source(Record* records, std::uint64_t n, std::span<Record> scratch, std::uint32_t local_mask) {
  const auto source_bits = static_cast<unsigned>(std::bit_width(local_mask));
  const auto source = [mask = local_mask](Record r) {
    std::uint32_t local = 0;
    std::memcpy(&local, &r, 4);
    return std::uint64_t{local & mask};
  };
  for (std::uint64_t at = 0; at < n; at += scratch.size()) {
    const std::uint64_t m = std::min<std::uint64_t>(scratch.size(), n - at);
    if (m > 1) radix_sort_by_key(std::span<Record>(records + at, m), scratch.first(m), source_bits, source);
  }
}

// The on-disk grid's staging blocks: at least this large when that leaves a quarter slab per
// staging group (EngineBase::build_disk_grid), else groups of half a slab.
constexpr std::uint64_t kMinStagingBlock = std::uint64_t{1} << 20;
// Staged blocks read ahead while the grid's slabs are placed and encoded (at most; as many as
// the input reader's room holds).
constexpr std::size_t kStagedReadAhead = 4;
// ... and at most this many of a slab's blocks read at once into the grid's free room (a thread
// each; the others through the reader's room as before).
constexpr std::size_t kStagedGridRoomReads = 32;
// Staged blocks a staging task has written or in flight at once (build_staged): while one is
// written the task encodes the next, instead of waiting for storage with a core idle.
constexpr std::uint64_t kStagingWritesPerTask = 2;
// The split pass (EngineBase::split_input) takes a run of input records in steps of at most this
// many records (as many as its staging areas fit in the workers' planned room), at least the minimum.
constexpr std::uint64_t kMinSplitStepRecords = 1024;
constexpr std::uint64_t kMaxSplitStepRecords = std::uint64_t{1} << 20;
// Shares of a split step's records per task: tasks that fill the gaps beside a heavy stream's
// appending (EngineBase::split_input).
constexpr std::size_t kSplitSharesPerTask = 2;
// The split's runs ordered by reading vertex hold at most this many records (order_run's counters
// are 32-bit).
constexpr std::uint64_t kMaxRunRecords = std::uint64_t{1} << 31;
// ... and are written from memory in requests of this size, this many at once, whatever the plan's
// write chunk and depth (FramedWriter::append_through): rmat24-sym cc at 96M wrote its runs in
// 1 MiB x 2 and waited 12-14 s for them, 4-6 s so (docs/performance.md, session 52; fio on this
// VM class: 0.73 GB/s at 1 MiB x 2, 1.4 GB/s at 4 MiB x 4).
constexpr std::size_t kRunWriteRequest = std::size_t{4} << 20;
constexpr unsigned kRunWritesInFlight = 4;

// The input held fewer records than its graph description gives.
Status input_ended_early(const std::string& input_name, std::uint64_t seen_bytes, std::uint64_t expected_bytes) {
  return corruption(input_name + " ended after " + std::to_string(seen_bytes) + " of " + std::to_string(expected_bytes) + " bytes");
}

}  // namespace

Status ensure_open_file_limit(std::uint64_t needed) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return errno_status(errno, "getrlimit", "RLIMIT_NOFILE");
  if (limit.rlim_cur >= needed) return Status::ok();
  if (limit.rlim_max < needed) {
    return resource_exhausted("this many streaming partitions need about " + std::to_string(needed) +
                              " open files, but the hard limit (ulimit -Hn) is " + std::to_string(limit.rlim_max) +
                              "; give more --physical_memory or fewer partitions");
  }
  limit.rlim_cur = needed;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return errno_status(errno, "setrlimit", "RLIMIT_NOFILE");
  return Status::ok();
}

namespace {

// 1 for src > dst (a record a halved grid leaves out: the reverse of one it keeps), else 0; as
// arithmetic, not a comparison, which gcc made a branch of (a coin flip per record on a symmetric
// input: which of a pair of reverse records comes first).
[[gnu::always_inline]] inline std::uint64_t src_above_dst(const Edge& e) { return (std::uint64_t{e.dst} - e.src) >> 63; }

// A 64-bit hash of the undirected edge {src, dst} (with its weight when with_weight: programs that
// read weights), added for src < dst, subtracted for src > dst, 0 for a loop: the sum over a
// multiset of edges is 0 when every edge comes with its reverse (same weight) as often as itself,
// and otherwise nonzero but for a chance of ~2^-64.
// Inlined: GCC 12 kept it out of line, one call per record of the check loops (8.9% of rmat22-sym
// cc in memory, perf).
// Without branches: which of a pair of reverse records comes first is a coin flip per record, and
// a branch on it is mispredicted about every other record (rmat22-sym cc at 4G: the in-memory
// grid's check 5% less CPU, perf, docs/performance.md, session 54).
[[gnu::always_inline]] inline std::uint64_t signed_edge_hash(const Edge& e, bool with_weight) {
  const std::uint64_t src = e.src;
  const std::uint64_t dst = e.dst;
  const std::uint64_t reversed = 0 - src_above_dst(e);  // all ones for src > dst (gcc branched on std::min)
  const std::uint64_t swap = (src ^ dst) & reversed;
  const std::uint64_t lo = src ^ swap;
  const std::uint64_t hi = dst ^ swap;
  std::uint32_t weight = 0;
  if (with_weight) std::memcpy(&weight, &e.weight, 4);
  const std::uint64_t h = mix64(((lo << 32) | hi) ^ (std::uint64_t{weight} * 0x9E3779B97F4A7C15ULL));
  const std::uint64_t keep = 0 - static_cast<std::uint64_t>(src != dst);  // zero for a loop
  return ((h ^ reversed) - reversed) & keep;  // -h for src > dst: (h ^ ~0) + 1
}

// What check_run's loop does for each record besides checking its ids (EngineBase::check_run).
enum class CheckExtras {
  kNone,
  kWeights,       // checks the weight (programs that read weights: sssp)
  kSymmetryHash,  // sums signed_edge_hash without the weight (a symmetric input kept one way: cc)
  kAny,           // whichever the run-time flags say
};

// What split_input's staging does for each record (EngineBase::split_input).
enum class StageForm {
  kOneWay,      // one output: the record to its source's stream (one-way programs)
  kOneWayHash,  // ... and the symmetry hash without the weight (a symmetric input kept one way: cc)
  kTwoWay,      // two outputs: the record, and its reverse to the destination's stream (cc on a directed input)
  kAny,         // whichever the run-time flags say (reverse edges; the hash with the weight)
};

struct alignas(64) PaddedSum {  // one task's running sum, on a cache line of its own
  std::uint64_t value = 0;
};

// A check task's next place in a run (the records or entries it keeps, packed from the start of
// its range), on a cache line of its own.
struct alignas(64) TaskCursor {
  std::uint64_t next = 0;
};

}  // namespace

Status invalid_edge_error(const GraphInfo& graph, std::uint64_t record, const Edge& e, bool check_weights) {
  const std::string where = "edge file " + graph.edge_path.string() + ": record " + std::to_string(record) +
                            " (byte offset " + std::to_string(record * graph.record_size()) + ")";
  const std::string limit = " but the graph has " + std::to_string(graph.vertices) + " vertices (ids must be < " +
                            std::to_string(graph.vertices) + ", see " + graph.ini_path.string() + ")";
  if (e.src >= graph.vertices) return bad_input(where + " has source id " + std::to_string(e.src) + limit);
  if (e.dst >= graph.vertices) return bad_input(where + " has destination id " + std::to_string(e.dst) + limit);
  if (check_weights) {
    return bad_input(where + " has weight " + std::to_string(e.weight) +
                     "; this algorithm needs non-negative weights");
  }
  return bad_input(where + " is invalid");
}

EngineBase::EngineBase(GraphInfo graph, EngineOptions options, EngineProgramTraits traits)
    : graph_(std::move(graph)), options_(std::move(options)), traits_(traits) {}

EngineBase::~EngineBase() = default;

// ---- setup ---------------------------------------------------------------------------------

Status EngineBase::plan_run(MemoryPlanInput input) {
  input.vertices = graph_.vertices;
  input.record_bytes = graph_.record_size();
  input.undirected = traits_.two_way;
  input.symmetric_one_way = traits_.one_way_on_symmetric && graph_.symmetric;
  input.split_streams = traits_.reverse_edges ? 2 : 1;  // edges by source and by destination
  input.edges = graph_.edges;
  input.input_frame_bytes = graph_.framed() ? graph_.frame_bytes : 0;  // a compressed input's decoding slots
  input.grid_record_bytes = program_edge_type() == EdgeFileType::kWeighted ? 8 : 4;
  input.source_bytes = traits_.source_bytes;
  input.active_bits = traits_.active_bits;
  input.stream_active_bits = traits_.stream_active_bits;
  input.settled_bits = traits_.settled_bits;
  input.stream_record_bytes = edge_record_size(program_edge_type());
  // With a timeline recording (--timeline), its buffers too: one per pool thread, made as they record.
  input.baseline_rss = current_rss_bytes() + (timeline::on() ? std::uint64_t{options_.threads} * timeline::kBytesPerThread : 0);
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
  // One way on a symmetric input: the grid (every grid build checks the whole input, and so the
  // claim, before the first superstep) and K > 1 (the split checks it: no reversed copies); not the
  // K = 1 input-order scatter, which checks records as it goes.
  symmetric_one_way_ = traits_.one_way_on_symmetric && graph_.symmetric && (K_ > 1 || plan_.grid_bytes > 0);
  stats_.symmetric_one_way = symmetric_one_way_;
  symmetry_sum_ = 0;
  cache_keys_ = plan_.cache_partitions;
  keys_ = cache_keys_ + (K_ > 1 ? K_ : 0);
  if (keys_ >= UINT32_MAX / 2) return invalid_argument("too many partitions");

  ES_ASSIGN_OR_RETURN(input_file_, File::open(graph_.edge_path, OpenMode::kReadOnly, plan_.io.direct));
  ES_ASSIGN_OR_RETURN(pool_, ThreadPool::create(plan_.threads));
  frame_scratch_.resize(plan_.threads);
  return Status::ok();
}

Status EngineBase::open_streams() {
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
    if (traits_.reverse_edges) {
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
  return Status::ok();
}

// One pass over the input: each edge to its source partition's stream (and, for undirected
// programs, reversed to its destination's; for reverse-edge programs, as is to its destination's
// reverse stream). Each run of input records is checked by all workers, a share each; then task t
// appends to the partitions q with q % T == t, so every stream gets its records in input order and
// the frames of compressed streams are compressed on all workers at once. The streams hold records of
// program_edge_type(): without the weight (8 bytes, not 12) when the program never reads it.
Status EngineBase::split_input() {
  const std::size_t rs = graph_.record_size();
  const EdgeFileType stream_type = program_edge_type();
  const std::size_t stream_rs = edge_record_size(stream_type);
  // Frames of whole records (write_chunk is a multiple of 8, not of 12), so that the delta codec
  // sees every frame's words in their places; it is told the records' size. Keyed streams of
  // programs with active() (runs, below): frames of whole segments, or segments of whole frames,
  // so that runs of whole segments are runs of whole frames too (each written from the room), as
  // long as that leaves frames of at least half the write chunk (the memory plan counts the frame
  // offsets of frames that small).
  std::uint64_t frame_records = plan_.io.write_chunk / stream_rs;
  if (const std::uint64_t S = plan_.segment_records; S > 0 && traits_.stream_active_bits) {
    std::uint64_t whole = frame_records / S * S;
    if (frame_records < S) {
      std::uint64_t parts = (S + frame_records - 1) / frame_records;
      while (S % parts != 0) ++parts;
      whole = S / parts;
    }
    if (2 * whole >= frame_records) frame_records = whole;
  }
  const std::size_t frame_bytes = frame_records * stream_rs;
  const CodecSpec codec = for_records(options_.edges_codec, stream_rs);
  std::vector<IoCounters> counters(K_);
  std::vector<std::unique_ptr<FramedWriter>> writers;
  std::vector<std::unique_ptr<FramedWriter>> reverse_writers;
  for (std::uint64_t q = 0; q < K_; ++q) {
    ES_ASSIGN_OR_RETURN(auto writer, FramedWriter::open(edge_files_[q], plan_.io, codec, options_.scratch_checksums, frame_bytes,
                                                        &counters[q]));
    if (plan_.segment_records > 0 && traits_.stream_active_bits) writer->keep_frame_offsets();
    writers.push_back(std::move(writer));
    if (traits_.reverse_edges) {
      ES_ASSIGN_OR_RETURN(auto reverse_writer, FramedWriter::open(redge_files_[q], plan_.io, codec, options_.scratch_checksums,
                                                                  frame_bytes, &counters[q]));
      reverse_writers.push_back(std::move(reverse_writer));
    }
  }
  const bool same_records = stream_type == graph_.type;
  const std::size_t T = std::min<std::uint64_t>(plan_.threads, K_);
  // Keyed streams (core/keyed_segments.hpp): stream i (forward streams 0..K-1, then the reverse
  // ones) collects a segment, grouped into its task's sorted copy and appended when full.
  const std::uint64_t S = plan_.segment_records;
  const bool keyed = S > 0;
  const std::uint64_t streams = K_ * (traits_.reverse_edges ? 2 : 1);
  // Stream i's writer, and the task that appends to it: partition q's streams (forward q, reverse
  // K + q) belong to task q % T.
  auto writer_of = [&](std::uint64_t i) -> FramedWriter& { return i >= K_ ? *reverse_writers[i - K_] : *writers[i]; };
  auto task_of = [&](std::uint64_t i) { return i % K_ % T; };
  // Records in each stream's segment, in one vector per task (stream i's in task_of(i)'s): the
  // tasks' counters apart, not sharing cache lines.
  std::vector<std::vector<std::uint64_t>> segment_fill(keyed ? T : 0, std::vector<std::uint64_t>(streams));
  std::vector<DestinationKey> stream_keys;
  std::vector<std::vector<std::uint32_t>> task_ends(keyed ? T : 0, std::vector<std::uint32_t>(keys_));
  if (keyed) {
    edge_index_.assign(K_, KeyedStreamIndex(S, keys_));
    if (traits_.reverse_edges) redge_index_.assign(K_, KeyedStreamIndex(S, keys_));
    for (std::uint64_t i = 0; i < streams; ++i) {
      const std::uint64_t q = i % K_;
      const std::uint64_t first = q * plan_.partition_size;
      stream_keys.push_back(DestinationKey{first, std::min<std::uint64_t>(graph_.vertices - first, plan_.partition_size),
                                           plan_.cache_shift, cache_keys_, plan_.partition_size, plan_.partition_magic});
    }
  }
  // The segments: in the vertex state buffer (not touched before the first superstep) when they fit.
  // Programs that tell their active vertices (stream_active_bits) collect runs of many segments per
  // stream there instead, when runs of at least two segments fit (two per stream, and an ordered
  // run): a full run is ordered by reading vertex and cut into segments, each grouped by key
  // (order_run), so that each segment covers a narrow range of reading vertices (a sparse
  // superstep's scatter reads only the frames of segments with an active one: Engine::active_frames).
  // A stream's full run is flushed (ordered, grouped, appended) by a background thread while the
  // stream fills its other run: rmat's partition 0 takes most records, and its flushes in the
  // parallel steps (18 ms each at rmat24) left the other worker and the device idle.
  // A full run is written from memory (FramedWriter::append_through: requests of kRunWriteRequest,
  // kRunWritesInFlight at once, no copy), as it is when unframed; a framed stream's frames are
  // encoded into a room of their own first (a run's size and the frames' headers, after the
  // ordered run).
  const std::uint64_t segment_bytes = S * stream_rs;
  std::uint64_t run_records = S;
  std::uint64_t through_room = 0;
  if (keyed && traits_.stream_active_bits) {
    const bool framed = writers.front()->framed();
    const std::uint64_t per_run = state_.size() / stream_rs / (2 * streams + 1 + (framed ? 1 : 0));
    // Runs of whole frames too, so that every run but the last is written from the room.
    const std::uint64_t unit = std::max<std::uint64_t>(S, frame_records);
    std::uint64_t run = std::min<std::uint64_t>(per_run / unit * unit, kMaxRunRecords / unit * unit);
    const auto room_of = [&](std::uint64_t records) { return framed ? writers.front()->through_room_bytes(records * stream_rs) : 0; };
    while (run >= 2 * S && (2 * streams + 1) * run * stream_rs + room_of(run) > state_.size()) run -= unit;
    if (run >= 2 * S) {
      run_records = run;
      through_room = room_of(run);
    }
  }
  const bool runs = run_records > S;
  AlignedBuffer own_segments;
  if (keyed && !runs && (streams + T) * segment_bytes > state_.size()) own_segments = AlignedBuffer((streams + T) * segment_bytes);
  std::byte* const segment_memory = own_segments.size() > 0 ? own_segments.data() : state_.data();
  const std::uint64_t run_bytes = run_records * stream_rs;
  std::vector<std::uint8_t> run_side(runs ? streams : 0, 0);  // the run stream i fills now
  // Stream i's segment (or the run it fills), task t's grouped segment; the flushes' ordered run.
  auto run_of = [&](std::uint64_t i, unsigned side) { return segment_memory + (2 * i + side) * run_bytes; };
  auto segment_of = [&](std::uint64_t i) { return runs ? run_of(i, run_side[i]) : segment_memory + i * segment_bytes; };
  auto sorted_of = [&](std::size_t t) { return segment_memory + (streams + t) * segment_bytes; };
  std::byte* const ordered = segment_memory + 2 * streams * run_bytes;
  const std::span<std::byte> append_room =
      runs ? std::span<std::byte>(segment_memory + (2 * streams + 1) * run_bytes, through_room) : std::span<std::byte>();
  const std::uint64_t run_segments = runs ? run_records / S : 0;
  std::vector<std::uint32_t> flush_ends(runs ? run_segments * keys_ : 0);
  std::vector<std::pair<VertexId, VertexId>> flush_readers(runs ? run_segments : 0);
  // With runs the staging tasks append to no writer: the workers' compression buffers are free, and
  // the flushes take worker 0's.
  FrameScratch& flush_scratch = frame_scratch_[0];
  // Groups the n records of a segment of stream i at `in` into `out` (S records of room; with
  // by_other `in` is scratch and the result is there), records its key ends (`ends`: keys_ entries
  // of scratch) and reading vertices in the index; returns the grouped records, to be appended.
  // With the delta codec each key's records are nearly sorted by their other vertex (group_segment).
  const bool by_other = codec.id == CodecId::kDelta;
  auto group = [&](std::uint64_t i, std::byte* in, std::uint64_t n, std::byte* out, std::vector<std::uint32_t>& ends) {
    const bool reverse = i >= K_;
    const std::size_t key_offset = reverse ? 0 : sizeof(VertexId);
    const std::byte* grouped = group_segment(in, n, stream_rs, key_offset, stream_keys[i], out, ends, by_other);
    const auto [first_reader, last_reader] = reader_range(grouped, n, stream_rs, key_offset);
    (reverse ? redge_index_ : edge_index_)[i % K_].add_segment(ends, first_reader, last_reader);
    return std::span<const std::byte>(grouped, n * stream_rs);
  };
  // A flush of the n records of stream i's run `side`, in two stages on two threads (each in
  // order, so each stream's runs are ordered and appended in turn): the orderer orders the run
  // (order_run: its segments are then whole, S records but the last) and indexes its segments, then
  // hands it to the appender, which appends it to the stream's writer. The orderer orders the next
  // run while the appender copies and waits for writes (one thread doing both was busy for the
  // whole split, 1.8 of rmat24 bfs's 4.9 s waiting for writes: docs/performance.md, session 50).
  // Run buffer (i, side) is slot 2i + side of the appender: the stream refills it once that is free.
  // (The orderer is destroyed first: a job of its own may wait in the appender's submit.)
  std::optional<BackgroundJobs> appender;
  std::optional<BackgroundJobs> orderer;
  if (runs) {
    appender.emplace(2 * streams, "run appender");
    orderer.emplace(streams, "run orderer");
  }
  auto submit_flush = [&](std::uint64_t i, unsigned side, std::uint64_t n) {
    orderer->submit(i, [&, i, side, n]() -> Status {
      std::byte* const in = run_of(i, side);
      {
        const timeline::Span span("order run", "split", static_cast<std::int64_t>(i));
        const std::uint64_t segments = (n + S - 1) / S;
        order_run(in, n, stream_rs, i >= K_ ? 0 : sizeof(VertexId), stream_keys[i], S, ordered,
                  std::span(flush_ends).first(segments * keys_), std::span(flush_readers).first(segments));
        KeyedStreamIndex& index = (i >= K_ ? redge_index_ : edge_index_)[i % K_];
        for (std::uint64_t g = 0; g < segments; ++g) {
          index.add_segment(std::span(flush_ends).subspan(g * keys_, keys_), flush_readers[g].first, flush_readers[g].second);
        }
      }
      appender->submit(2 * i + side, [&, i, in, n]() -> Status {
        const timeline::Span span("append run", "split", static_cast<std::int64_t>(i));
        return writer_of(i).append_through(std::span<std::byte>(in, n * stream_rs), append_room, flush_scratch,
                                           kRunWriteRequest, kRunWritesInFlight);
      });
      return Status::ok();
    });
  };
  // Each run of input records is split in steps, each in two parts, so that the work is shared
  // even when one stream gets most records (rmat: most sources lie in partition 0):
  //  - staging: share h (of `shares`, in input order) of a step's records is checked and its output
  //    records (as the streams hold them) are staged grouped by stream, in input order;
  //  - appending: task t copies, for each of its streams (partitions q with q % T == t), share 0's
  //    staged records, then share 1's, and so on into the stream (its segment, grouped and appended
  //    when full), so that every stream gets its records in input order.
  // A step's appending runs in the same parallel step as the next step's staging (two staging
  // areas in turn), so that a worker done with a light stream stages instead of waiting for the
  // task of a heavy one. The staging areas take the room the plan gives the workers' batch buffers,
  // which are made after the split (Engine::setup): a step has as many records as fit there.
  const bool undirected = traits_.undirected && !symmetric_one_way_;
  const bool reverse_edges = traits_.reverse_edges;
  const std::uint64_t outputs = 1 + (undirected ? 1 : 0) + (reverse_edges ? 1 : 0);
  const std::size_t shares = T * kSplitSharesPerTask;
  // Per output: the record as the stream holds it, and its stream and direction (4 bytes).
  const std::uint64_t staged_bytes = stream_rs + sizeof(std::uint32_t);
  const std::uint64_t step = std::clamp<std::uint64_t>(plan_.worker_bytes / (2 * outputs * staged_bytes), kMinSplitStepRecords,
                                                       kMaxSplitStepRecords);
  const std::uint64_t share_capacity = (step + shares - 1) / shares * outputs;  // outputs of one share
  AlignedBuffer staging(2 * shares * share_capacity * staged_bytes);
  auto staged_records = [&](std::size_t area, std::size_t h) {
    return staging.data() + (area * shares + h) * share_capacity * stream_rs;
  };
  auto staged_streams = [&](std::size_t area, std::size_t h) {
    return reinterpret_cast<std::uint32_t*>(staging.data() + 2 * shares * share_capacity * stream_rs) + (area * shares + h) * share_capacity;
  };
  // Share h's staged records of stream i in area a: [staged_begin[a][h][i], staged_begin[a][h][i + 1]).
  std::array<std::vector<std::vector<std::uint64_t>>, 2> staged_begin;
  staged_begin.fill(std::vector<std::vector<std::uint64_t>>(shares, std::vector<std::uint64_t>(streams + 1)));
  // Outputs per stream while a share is staged, counted into kCounters arrays in turn (stream i's
  // count of array c at c * (streams + 1) + i + 1): consecutive increments of one counter wait for
  // each other.
  constexpr std::size_t kCounters = 4;
  std::vector<std::vector<std::uint64_t>> staged_counts(shares, std::vector<std::uint64_t>(kCounters * (streams + 1)));
  std::vector<std::uint64_t> bad(shares);
  std::vector<Edge> bad_edges(shares);
  std::vector<PaddedSum> symmetry(shares);  // symmetric_one_way_: each share's records
  std::vector<Status> errors(T);

  // Stages share h of `count` records (the first is input record `first`) into area a.
  // The usual forms (StageForm) and the input's and the streams' record types as template
  // arguments, so that the loops test none of them per record and keep their values in registers
  // (rmat24 bfs at 96M: the split's set-up 5.36 -> 4.50 s; docs/performance.md, session 55).
  auto stage_as = [&]<StageForm kForm, EdgeFileType kInput, EdgeFileType kStream>(std::size_t a, std::size_t h, const std::byte* records,
                                                                                  std::size_t count, std::uint64_t first) {
    // Locals, not members: the loops keep them in registers.
    constexpr bool kAny = kForm == StageForm::kAny;
    const bool symmetric = kAny ? symmetric_one_way_ : kForm == StageForm::kOneWayHash;
    const bool with_weight = kAny && traits_.reads_weights;
    const std::uint64_t record_outputs = kAny ? outputs : kForm == StageForm::kTwoWay ? 2 : 1;
    const bool to_destination = record_outputs > 1;  // an output goes to the destination's partition too
    const bool two_way = kAny ? undirected : kForm == StageForm::kTwoWay;
    const bool reverse = kAny && reverse_edges;
    const EdgeFileType input_type = kAny ? graph_.type : kInput;
    const EdgeFileType output_type = kAny ? stream_type : kStream;
    const bool copy_records = kAny ? same_records : kInput == kStream;
    const std::size_t input_rs = kAny ? rs : edge_record_size(kInput);
    const std::size_t output_rs = kAny ? stream_rs : edge_record_size(kStream);
    const std::uint64_t vertices = graph_.vertices;
    const bool check_weights = traits_.check_weights;
    const std::uint64_t partition_size = plan_.partition_size;
    const std::uint64_t magic = plan_.partition_magic;
    const std::uint64_t K = K_;
    std::uint32_t* const stream_of = staged_streams(a, h);  // per output: stream << 1 | reversed
    std::uint64_t* const counts = staged_counts[h].data();
    std::fill(staged_counts[h].begin(), staged_counts[h].end(), 0);
    const std::uint64_t stride = streams + 1;
    std::uint64_t symmetry_sum = 0;
    std::uint64_t staged = 0;
    bad[h] = UINT64_MAX;
    const std::size_t lo = count * h / shares;
    const std::size_t hi = count * (h + 1) / shares;
    // Check, and count each stream's outputs.
    for (std::size_t i = lo; i < hi; ++i) {
      const Edge e = decode_edge(records + i * input_rs, input_type);
      if (!edge_is_valid(e, vertices, check_weights)) {
        bad[h] = first + i;
        bad_edges[h] = e;
        break;
      }
      const auto qs = static_cast<std::uint32_t>(MemoryPlan::divide(e.src, partition_size, magic));
      std::uint64_t* const count_of = counts + (i % kCounters) * stride + 1;
      stream_of[staged++] = qs << 1;
      ++count_of[qs];
      if (symmetric) symmetry_sum += signed_edge_hash(e, with_weight);
      if (to_destination) {
        const auto qd = static_cast<std::uint32_t>(MemoryPlan::divide(e.dst, partition_size, magic));
        if (two_way) {
          stream_of[staged++] = qd << 1 | 1U;
          ++count_of[qd];
        }
        if (reverse) {
          stream_of[staged++] = static_cast<std::uint32_t>(K + qd) << 1;
          ++count_of[K + qd];
        }
      }
    }
    symmetry[h].value += symmetry_sum;
    if (bad[h] != UINT64_MAX) return;
    // Stage them by stream: at[i] becomes stream i's first staged record, then its end.
    std::vector<std::uint64_t>& begins = staged_begin[a][h];
    std::uint64_t* const at = begins.data();
    at[0] = 0;
    for (std::size_t i = 1; i <= streams; ++i) {
      at[i] = at[i - 1];
      for (std::size_t c = 0; c < kCounters; ++c) at[i] += counts[c * stride + i];
    }
    std::byte* const to = staged_records(a, h);
    std::uint64_t o = 0;
    for (std::size_t i = lo; i < hi; ++i) {
      const std::byte* record = records + i * input_rs;
      const Edge e = decode_edge(record, input_type);
      for (const std::uint64_t end = o + record_outputs; o < end; ++o) {
        const std::uint32_t output = stream_of[o];
        std::byte* const slot = to + at[output >> 1]++ * output_rs;
        if ((output & 1U) != 0) {
          encode_edge(slot, Edge{e.dst, e.src, e.weight}, output_type);
        } else if (copy_records) {
          std::memcpy(slot, record, output_rs);
        } else {
          encode_edge(slot, e, output_type);
        }
      }
    }
    // at[i] is now stream i's end; its begin is at[i - 1] (0 for stream 0).
    std::copy_backward(begins.begin(), begins.end() - 1, begins.end());
    at[0] = 0;
  };
  constexpr EdgeFileType kWeighted = EdgeFileType::kWeighted;
  constexpr EdgeFileType kUnweighted = EdgeFileType::kUnweighted;
  const StageForm form = [&] {
    if (outputs == 1) return !symmetric_one_way_ ? StageForm::kOneWay : traits_.reads_weights ? StageForm::kAny : StageForm::kOneWayHash;
    return outputs == 2 && undirected ? StageForm::kTwoWay : StageForm::kAny;
  }();
  auto stage = [&](std::size_t a, std::size_t h, const std::byte* records, std::size_t count, std::uint64_t first) {
    const auto as_types = [&]<StageForm kForm>() {
      if (graph_.type == kWeighted) {
        return stream_type == kWeighted ? stage_as.template operator()<kForm, kWeighted, kWeighted>(a, h, records, count, first)
                                        : stage_as.template operator()<kForm, kWeighted, kUnweighted>(a, h, records, count, first);
      }
      return stream_type == kWeighted ? stage_as.template operator()<kForm, kUnweighted, kWeighted>(a, h, records, count, first)
                                      : stage_as.template operator()<kForm, kUnweighted, kUnweighted>(a, h, records, count, first);
    };
    switch (form) {
      case StageForm::kOneWay: return as_types.template operator()<StageForm::kOneWay>();
      case StageForm::kOneWayHash: return as_types.template operator()<StageForm::kOneWayHash>();
      case StageForm::kTwoWay: return as_types.template operator()<StageForm::kTwoWay>();
      case StageForm::kAny: break;
    }
    stage_as.template operator()<StageForm::kAny, kUnweighted, kUnweighted>(a, h, records, count, first);  // (types read at run time)
  };

  // Appends area a's staged records of task t's streams (worker: the thread's frame scratch).
  auto append_staged = [&](std::size_t a, std::size_t t, unsigned worker) {
    FrameScratch& scratch = frame_scratch_[worker];
    Status& error = errors[t];
    std::uint64_t* const fill = keyed ? segment_fill[t].data() : nullptr;
    std::byte* const sorted = keyed ? sorted_of(t) : nullptr;
    // Appends n records of stream i: straight to its writer, or (keyed) through its segment, which
    // is grouped and appended whenever it fills.
    auto append = [&](std::uint64_t i, const std::byte* data, std::uint64_t n) {
      FramedWriter& writer = writer_of(i);
      if (!keyed) {
        Status status = writer.append(std::span<const std::byte>(data, n * stream_rs), scratch);
        if (!status.is_ok()) error = std::move(status);
        return;
      }
      while (n > 0 && error.is_ok()) {
        const std::uint64_t take = std::min(n, run_records - fill[i]);
        std::memcpy(segment_of(i) + fill[i] * stream_rs, data, take * stream_rs);
        fill[i] += take;
        data += take * stream_rs;
        n -= take;
        if (fill[i] < run_records) break;
        fill[i] = 0;
        if (runs) {  // flushed in the background; this stream fills its other run meanwhile
          submit_flush(i, run_side[i], run_records);
          run_side[i] ^= 1U;
          // submit_flush returned once the other run was ordered (the orderer's slot was free):
          // that run is the stream's again once appended.
          appender->wait(2 * i + run_side[i]);
          continue;
        }
        Status status = writer.append(group(i, segment_of(i), S, sorted, task_ends[t]), scratch);
        if (!status.is_ok()) error = std::move(status);
      }
    };
    for (std::uint64_t i = t; i < streams; ++i) {
      if (task_of(i) != t) continue;
      for (std::size_t h = 0; h < shares && error.is_ok(); ++h) {
        const std::uint64_t b = staged_begin[a][h][i];
        const std::uint64_t e = staged_begin[a][h][i + 1];
        if (e > b) append(i, staged_records(a, h) + b * stream_rs, e - b);
      }
    }
  };

  {
    std::size_t area = 0;   // the staging area of the next step
    bool pending = false;   // the other area holds a staged step to append
    ES_ASSIGN_OR_RETURN(auto reader, open_input());
    ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, "edge file " + graph_.edge_path.string(),
                                           [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
      if (cancel_requested()) return cancelled();
      const std::size_t n = run.size() / rs;
      for (std::size_t begin = 0; begin < n; begin += step) {
        const std::size_t count = std::min<std::size_t>(step, n - begin);
        const std::byte* const records = run.data() + begin * rs;
        // The previous step's appending first (the heavy streams' tasks start first), then this
        // step's shares.
        const std::size_t appending = pending ? T : 0;
        pool_->run(appending + shares, [&](std::size_t task, unsigned worker) {
          if (task < appending) return append_staged(area ^ 1U, task, worker);
          stage(area, task - appending, records, count, first + begin);
        });
        for (std::size_t t = 0; t < T; ++t) ES_RETURN_IF_ERROR(errors[t]);
        // The first invalid record: that of the first share that met one.
        for (std::size_t h = 0; h < shares; ++h) {
          if (bad[h] != UINT64_MAX) return invalid_edge_error(graph_, bad[h], bad_edges[h], traits_.check_weights);
        }
        pending = true;
        area ^= 1U;
      }
      return Status::ok();
    }));
    if (pending) {
      pool_->run(T, [&](std::size_t t, unsigned worker) { append_staged(area ^ 1U, t, worker); });
      for (std::size_t t = 0; t < T; ++t) ES_RETURN_IF_ERROR(errors[t]);
    }
    if (runs) {  // each stream's last, partial run, after its full ones
      for (std::uint64_t i = 0; i < streams; ++i) {
        if (segment_fill[task_of(i)][i] > 0) submit_flush(i, run_side[i], segment_fill[task_of(i)][i]);
      }
      ES_RETURN_IF_ERROR(orderer->finish());  // every append submitted
      orderer.reset();
      ES_RETURN_IF_ERROR(appender->finish());
      appender.reset();
    }
  }
  edge_frame_bytes_ = frame_bytes;
  edge_bytes_.resize(K_);
  edge_stored_.resize(K_);
  edge_frames_.assign(K_, {});
  redge_bytes_.resize(K_);
  redge_stored_.resize(K_);
  for (std::uint64_t i = 0; keyed && !runs && i < streams; ++i) {  // each keyed stream's last, partial segment
    const std::uint64_t n = segment_fill[task_of(i)][i];
    if (n == 0) continue;
    ES_RETURN_IF_ERROR(writer_of(i).append(group(i, segment_of(i), n, sorted_of(0), task_ends[0]), frame_scratch_[0]));
  }
  FrameScratch& scratch = frame_scratch_[0];
  for (std::uint64_t q = 0; q < K_; ++q) {
    ES_RETURN_IF_ERROR(writers[q]->finish(scratch));
    if (keyed && writers[q]->framed()) edge_frames_[q] = writers[q]->frame_offsets();
    edge_bytes_[q] = writers[q]->bytes_appended();
    edge_stored_[q] = writers[q]->bytes_stored();
    stats_.edges_codec_io += writers[q]->codec_counters();
    if (traits_.reverse_edges) {
      ES_RETURN_IF_ERROR(reverse_writers[q]->finish(scratch));
      redge_bytes_[q] = reverse_writers[q]->bytes_appended();
      redge_stored_[q] = reverse_writers[q]->bytes_stored();
      stats_.edges_codec_io += reverse_writers[q]->codec_counters();
    }
    stats_.edges_io += counters[q];
  }
  for (const PaddedSum& sum : symmetry) symmetry_sum_ += sum.value;
  return Status::ok();
}

Status EngineBase::input_checked() {
  input_validated_ = true;
  if (!symmetric_one_way_ || symmetry_sum_ == 0) return Status::ok();
  return bad_input(graph_.ini_path.string() + " says symmetric=1, but edge file " + graph_.edge_path.string() +
                   " is not symmetric: some edge is not also stored reversed as often as itself" +
                   std::string(traits_.reads_weights ? " (with the same weight)" : "") + "; "
                   "store both directions of every edge, or drop symmetric=1");
}

void EngineBase::close_run() {
  grid_reader_.reset();  // its read ahead finished and counted; before the grid file closes
  if (staging_removal_.valid()) staging_removal_.get();  // the grid's staging files, before their directory goes
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
}

// ---- supersteps ----------------------------------------------------------------------------

Status EngineBase::cancelled() {
  return {StatusCode::kCancelled, "stopped by signal " + std::to_string(cancel_signal())};
}

void EngineBase::select_partition(std::uint64_t p) {
  partition_ = p;
  base_ = p * plan_.partition_size;
  count_ = std::min<std::uint64_t>(graph_.vertices - base_, plan_.partition_vertices());
  if (graph_.vertices == 0) count_ = 0;
}

// One synchronous request on `counters`: its bytes, and the time since `start` as waiting.
void EngineBase::count_request(IoCounters& counters, std::chrono::steady_clock::time_point start, std::uint64_t read,
                              std::uint64_t written) {
  const auto begin = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count());
  const std::uint64_t end = monotonic_ns();  // the same clock (steady_clock)
  counters.wait_ns += end - std::min(begin, end);
  timeline::record(read > 0 ? "sync read" : "sync write", "io", begin, end);
  counters.bytes_read += read;
  counters.bytes_written += written;
  ++counters.requests;
}

Status EngineBase::load_partition(std::uint64_t p) {
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
Status EngineBase::save_partition(std::uint64_t p) {
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

// Runs the pool's workers for FramedReader's parallel decoding.
ParallelFor EngineBase::parallel_for() {
  return [this](std::size_t tasks, const std::function<void(std::size_t)>& fn) {
    pool_->run(tasks, [&](std::size_t task, unsigned) { fn(task); });
  };
}

namespace {

constexpr std::uint64_t kSmallPage = 4096;  // the smallest page: one write in each faults every page in

// Faults in task t of T's share of data[from, upto) (bounds on page boundaries): one write per page.
void fault_in_share(std::byte* data, std::uint64_t from, std::uint64_t upto, std::size_t t, std::size_t T) {
  const std::uint64_t lo = round_up(from + (upto - from) * t / T, kSmallPage);
  const std::uint64_t hi = round_up(from + (upto - from) * (t + 1) / T, kSmallPage);
  for (std::uint64_t at = lo; at < hi; at += kSmallPage) static_cast<volatile std::byte*>(data)[at] = std::byte{0};
}

}  // namespace

// When the input is kept in memory (the edge cache or the in-memory grid), the vertex states' pages
// are first touched while it is read, a share per run and task in step with the input, instead of
// by the first superstep's init with the cores otherwise idle (rmat22 bfs at 4G: superstep 0
// 0.077 -> 0.019 s, wall 3-5% lower; docs/performance.md, session 42). Not while an on-disk grid is built:
// there the states would be resident during its staging (bfs at 256M: peak RSS +10 MB, no gain).
void EngineBase::touch_state_pages(std::uint64_t first, std::uint64_t records, std::size_t t, std::size_t T) {
  const std::uint64_t pages = state_.size() / kSmallPage;
  const std::uint64_t edges = graph_.edges;
  if (plan_.edge_cache_bytes == 0 || pages == 0 || edges == 0) return;
  // pages * at / edges, exact while pages * edges fits 64 bits (up to ~600 GiB of memory), else in
  // long double (monotone either way, so the runs' page ranges neither overlap nor leave gaps).
  const bool exact = pages <= UINT64_MAX / edges;
  auto page_at = [&](std::uint64_t at) {
    at = std::min(at, edges);
    return exact ? pages * at / edges : static_cast<std::uint64_t>(static_cast<long double>(pages) * at / edges);
  };
  fault_in_share(state_.data(), page_at(first) * kSmallPage, page_at(first + records) * kSmallPage, t, T);
}

template <typename OnEdge>
Status EngineBase::check_run(std::span<const std::byte> run, std::uint64_t first, OnEdge&& on_edge, std::byte* copy_to) {
  const std::size_t rs = graph_.record_size();
  const std::size_t n = run.size() / rs;
  const std::size_t T = plan_.threads;
  const EdgeFileType type = graph_.type;
  std::vector<std::uint64_t> bad(T, UINT64_MAX);
  std::vector<Edge> bad_edges(T);
  std::vector<PaddedSum> symmetry(T);
  const bool symmetric = symmetric_one_way_;
  const bool with_weight = traits_.reads_weights;
  pool_->run(T, [&](std::size_t t, unsigned) {
    // Locals (and a copy of on_edge): its stores (memcpy: they may alias anything) would otherwise
    // make the loop read the captured values, its bounds included, again for every record.
    const std::size_t lo = n * t / T;
    const std::size_t hi = n * (t + 1) / T;
    const std::byte* const bytes = run.data();
    const std::size_t record_bytes = rs;
    const EdgeFileType record_type = type;
    const std::uint64_t base = first;
    const bool hash_symmetry = symmetric;
    const bool hash_weight = with_weight;
    const std::uint64_t vertices = graph_.vertices;  // edge_is_valid's bounds, read once (not through this)
    const bool check_weights = traits_.check_weights;
    std::remove_cvref_t<OnEdge> visit = on_edge;
    if (copy_to != nullptr) std::memcpy(copy_to + lo * rs, bytes + lo * rs, (hi - lo) * rs);
    touch_state_pages(first, n, t, T);
    // The record's form and the extras (the weight check: sssp; the symmetry hash: a symmetric
    // input kept one way, cc) as template arguments for the usual combinations, so the loop tests
    // none of them per record and keeps its values in registers; the rare others (both extras, or
    // the hash with the weight) test them all at run time (CheckExtras::kAny). rmat22-sym cc at 4G
    // checked its records at run time: 26% of its CPU (docs/performance.md, session 54).
    const auto scan = [&]<CheckExtras kExtras, EdgeFileType kType>() {
      constexpr bool kAny = kExtras == CheckExtras::kAny;
      const bool weights = kAny ? check_weights : kExtras == CheckExtras::kWeights;
      const bool hash = kAny ? hash_symmetry : kExtras == CheckExtras::kSymmetryHash;
      const bool hashed_weight = kAny && hash_weight;
      std::uint64_t symmetry_sum = 0;
      const std::size_t step = kAny ? record_bytes : edge_record_size(kType);
      const std::byte* record = bytes + lo * step;
      for (std::size_t i = lo; i < hi; ++i, record += step) {
        const Edge e = decode_edge(record, kAny ? record_type : kType);
        if (!edge_is_valid(e, vertices, weights)) {
          bad[t] = base + i;
          bad_edges[t] = e;
          break;
        }
        visit(t, base + i, e);
        if (hash) symmetry_sum += signed_edge_hash(e, hashed_weight);
      }
      return symmetry_sum;
    };
    const auto scan_as = [&]<CheckExtras kExtras>() {
      return record_type == EdgeFileType::kWeighted ? scan.template operator()<kExtras, EdgeFileType::kWeighted>()
                                                    : scan.template operator()<kExtras, EdgeFileType::kUnweighted>();
    };
    std::uint64_t symmetry_sum = 0;
    if (hash_symmetry && (hash_weight || check_weights)) {
      symmetry_sum = scan.template operator()<CheckExtras::kAny, EdgeFileType::kUnweighted>();
    } else if (hash_symmetry) {
      symmetry_sum = scan_as.template operator()<CheckExtras::kSymmetryHash>();
    } else if (check_weights) {
      symmetry_sum = scan_as.template operator()<CheckExtras::kWeights>();
    } else {
      symmetry_sum = scan_as.template operator()<CheckExtras::kNone>();
    }
    symmetry[t].value += symmetry_sum;
  });
  for (const PaddedSum& sum : symmetry) symmetry_sum_ += sum.value;
  for (std::size_t t = 0; t < T; ++t) {  // ranges ascend with t: the first hit is the earliest
    if (bad[t] != UINT64_MAX) return invalid_edge_error(graph_, bad[t], bad_edges[t], traits_.check_weights);
  }
  return Status::ok();
}

// K = 1 with the input kept in memory: reads the whole input once at setup, checking every
// record (in parallel, the first bad one reported), then builds the grid when the plan has room
// (the grid of block-local records is built from that pass itself: load_grid_records).
// Every superstep, including the first and the first after a resume, then runs on the same copy.
Status EngineBase::load_edge_cache() {
  const std::size_t rs = graph_.record_size();
  const std::uint64_t bytes = graph_.edges * rs;
  if (plan_.grid_bytes > 0) {
    init_grid();
    if (grid_layout_ != GridLayout::kFull) {
      if (plan_.edge_cache_bytes < graph_.edges * (grid_record_bytes_ + GridPairIds::of(grid_blocks_, bucketing_).id_bytes())) {
        return Status{StatusCode::kInternal, "edge grid: the plan's copy of the edges is smaller than their grid records"};
      }
      return load_grid_records();
    }
  }
  if (plan_.edge_cache_bytes < bytes) {
    return Status{StatusCode::kInternal, "edge cache: the plan's copy of the edges is smaller than the input"};
  }
  edge_cache_ = AlignedBuffer(plan_.edge_cache_bytes);
  std::uint64_t cached = 0;
  ES_ASSIGN_OR_RETURN(auto reader, open_input());
  ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, "edge file " + input_file_.path(),
                                         [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
    if (cancel_requested()) return cancelled();
    // Each task copies its range too: the cache's pages are first touched (allocated and zeroed by
    // the kernel, ~0.4 s per GiB on this VM) by every worker, not by this thread alone.
    ES_RETURN_IF_ERROR(check_run(run, first, [](std::size_t, std::uint64_t, const Edge&) {}, edge_cache_.data() + cached));
    cached += run.size();
    return Status::ok();
  }));
  if (cached != bytes) {
    return input_ended_early("edge file " + input_file_.path(), cached, bytes);
  }
  edges_cached_ = true;
  ES_RETURN_IF_ERROR(input_checked());
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
void EngineBase::init_grid() {
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
  grid_keys_ = GridKeys::of(plan_.grid_shift, bucketing_.sub_bits, traits_.grid_by_source);
  grid_by_source_ = plan_.grid_window_bytes > 0 && plan_.grid_codec == GridCodec::kEliasFano && grid_keys_.fine == grid_keys_.dst_bits;
  grid_halved_ = false;  // the builders that halve it say so
  grid_sorted_piece_records_ = 0;  // load_grid_records sets it when it sorts the buckets
  stats_.plan.grid_record_bytes = grid_record_bytes_;
}

// Every bucket in the grid's order: cells as the schedule visits them (round by round, task by
// task), each cell's buckets in turn.
std::vector<std::uint32_t> EngineBase::grid_bucket_order() const {
  std::vector<std::uint32_t> order;
  order.reserve(grid_buckets(grid_blocks_, bucketing_.sub_bits));
  if (grid_by_column_) {
    // By destination block: (x -> d) is side 1 of cell {x, d} when d >= x, side 0 otherwise (the
    // diagonal cell's side 0, always empty, goes after its side 1).
    const std::uint64_t subs = std::uint64_t{1} << bucketing_.sub_bits;
    for (std::uint32_t d = 0; d < grid_blocks_; ++d) {
      for (std::uint32_t x = 0; x < grid_blocks_; ++x) {
        const std::uint64_t cell = block_cell(x, d) << grid_bucket_bits_;
        for (const std::uint64_t side : x == d ? std::vector<std::uint64_t>{1, 0} : std::vector<std::uint64_t>{d > x ? 1U : 0U}) {
          for (std::uint64_t sub = 0; sub < subs; ++sub) order.push_back(static_cast<std::uint32_t>(cell | (side << bucketing_.sub_bits) | sub));
        }
      }
    }
    return order;
  }
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
std::uint64_t EngineBase::place_buckets(Total&& total) {
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

// place_buckets for counts[t][b] (task t's records of bucket b), summed over the tasks.
void EngineBase::place_counted_buckets(const std::vector<std::vector<std::uint64_t>>& counts) {
  grid_records_ = place_buckets([&](std::uint64_t b) {
    std::uint64_t sum = 0;
    for (const std::vector<std::uint64_t>& c : counts) sum += c[b];
    return sum;
  });
  stats_.plan.grid_records = grid_records_;
}

std::pair<std::uint64_t, std::uint64_t> EngineBase::grid_records_of(std::uint32_t x, std::uint32_t d) const {
  const std::uint64_t side_bucket = std::uint64_t{1} << (grid_bucket_bits_ - 1);  // first bucket of side 1
  const std::uint64_t c = block_cell(x, d);
  if (!grid_by_column_) {
    // Cell {x, y}, x <= y: its side-0 buckets hold edges y -> x, then its side-1 buckets x -> y.
    const std::uint64_t side1 = bucket_begin_[(c << grid_bucket_bits_) | side_bucket];
    return d >= x ? std::pair{side1, cell_end_[c]} : std::pair{bucket_begin_[c << grid_bucket_bits_], side1};
  }
  auto begin = [&](std::uint32_t from, std::uint32_t to) {
    return bucket_begin_[(block_cell(from, to) << grid_bucket_bits_) | (to >= from ? side_bucket : 0)];
  };
  const std::uint64_t end = x + 1 < grid_blocks_ ? begin(x + 1, d) : d + 1 < grid_blocks_ ? begin(0, d + 1) : grid_records_;
  return {begin(x, d), end};
}

Expected<EngineBase::GridView> EngineBase::start_grid_pass() {
  GridView view;
  if (!grid_on_disk_) {
    view.bytes = grid_.data();
    view.hi = grid_records_;
    return view;
  }
  if (grid_resident_) {  // every window in memory at its file offset
    view.bytes = grid_windows_.data();
    view.hi = grid_records_;
    view.windows = grid_disk_windows_;
    return view;
  }
  if (grid_disk_windows_.empty()) return view;  // no records
  if (grid_reader_) ES_RETURN_IF_ERROR(grid_reader_->rewind());  // reading the first streamed window (ahead)
  ES_RETURN_IF_ERROR(grid_view_from(0, view));
  return view;
}

Status EngineBase::next_grid_window(GridView& view) {
  if (!grid_on_disk_ || grid_resident_ || view.hi >= grid_records_) {
    return Status{StatusCode::kInternal, "edge grid: a task waits for records past the grid"};
  }
  return grid_view_from(static_cast<std::uint64_t>(view.windows.data() - grid_disk_windows_.data()) + view.windows.size(), view);
}

// The view from window w on: the run of kept windows that starts there (packed in grid order, so
// as adjacent in memory as in the file), or the streamed window w, which the reader has read by then.
Status EngineBase::grid_view_from(std::uint64_t w, GridView& view) {
  const std::span<const GridWindow> windows(grid_disk_windows_);
  if (w >= windows.size()) return Status{StatusCode::kInternal, "edge grid: a view past the last window"};
  std::uint64_t end = w + 1;
  if (windows[w].memory != GridWindow::kStreamed) {
    while (end < windows.size() && windows[end].memory != GridWindow::kStreamed) ++end;
    view.bytes = grid_windows_.data() + windows[w].memory;
  } else {
    if (!grid_reader_) return Status{StatusCode::kInternal, "edge grid: a streamed window without a reader"};
    ES_ASSIGN_OR_RETURN(const GridWindowReader::Window read, grid_reader_->next());
    if (read.number != w) return Status{StatusCode::kInternal, "edge grid: windows read out of order"};
    view.bytes = read.bytes.data();
  }
  view.lo = windows[w].first;
  view.hi = windows[end - 1].end;
  view.windows = windows.subspan(w, end - w);
  return Status::ok();
}

// Vertices rounded up to whole grid blocks: the on-disk grid's states and sources cover them.
std::uint64_t EngineBase::grid_padded_vertices() const {
  const std::uint64_t block = std::uint64_t{1} << plan_.grid_shift;
  return (std::max<std::uint64_t>(graph_.vertices, 1) + block - 1) / block * block;
}

// The sources' array of programs with a narrow Source, when `room` bytes allow it; in transparent
// huge pages where the kernel gives them (the scatter reads it at random within a block: fewer TLB
// misses; rmat22 PageRank's rank supersteps ~7% faster, docs/performance.md, session 35).
void EngineBase::allocate_sources(std::uint64_t room) {
  if (traits_.source_bytes == 0) return;
  const std::uint64_t need = (grid_on_disk_ ? grid_padded_vertices() : graph_.vertices) * traits_.source_bytes;
  if (need > 0 && round_up(need, kIoAlignment) <= room) sources_ = AlignedBuffer::huge(need);
}

// The in-memory grid of whole input records (--full_grid_records, or blocks of more than 2^16
// vertices; block-local records are built by load_grid_records), from the edge cache: each thread
// counts and then places one contiguous range of the input, and the input-order copy is freed. The
// plan reserved both copies and the counters (grid_bytes).
void EngineBase::build_grid() {
  const std::size_t rs = graph_.record_size();
  const std::uint64_t n = graph_.edges;
  const std::size_t T = plan_.threads;
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
  place_counted_buckets(cursor);
  for (std::uint64_t b = 0; b < buckets; ++b) {  // thread t's records follow threads 0..t-1's
    std::uint64_t next = bucket_begin_[b];
    for (std::size_t t = 0; t < T; ++t) {
      const std::uint64_t count = cursor[t][b];
      cursor[t][b] = next;
      next += count;
    }
  }
  grid_ = AlignedBuffer(n * rs);
  std::byte* out = grid_.data();
  auto place = [&]<std::size_t kSize>(std::size_t t) {  // a constant size: moves, not calls
    std::uint64_t* next = cursor[t].data();
    for (std::uint64_t i = n * t / T; i < n * (t + 1) / T; ++i) {
      const std::byte* record = in + i * kSize;
      std::memcpy(out + next[bucket_of(record)]++ * kSize, record, kSize);
    }
  };
  pool_->run(T, [&](std::size_t t, unsigned) {
    rs == edge_record_size(EdgeFileType::kWeighted) ? place.template operator()<12>(t) : place.template operator()<8>(t);
  });
  finish_grid();
}

// The in-memory grid is placed: frees the copy it was placed from and allocates the sources' array
// in what the plan reserved for both copies and the grid's records and offsets leave free.
void EngineBase::finish_grid() {
  edge_cache_ = AlignedBuffer();
  const std::uint64_t buckets = grid_buckets(grid_blocks_, bucketing_.sub_bits);
  const std::uint64_t used = round_up(grid_records_ * grid_record_bytes_, kIoAlignment) + (buckets + 1) * sizeof(std::uint64_t);
  const std::uint64_t reserved = plan_.grid_bytes + plan_.edge_cache_bytes;
  allocate_sources(reserved > used ? reserved - used : 0);
  grid_ready_ = true;
}

// The in-memory grid of block-local records (the usual case), in one pass over the input: every
// record is checked and kept as its grid record (4 or 8 bytes) with the id of its bucket (a
// GridPairIds id: 2 bytes up to 256 blocks, else 4: GridPairIds::id_bytes) in edge_cache_; then
// the buckets are counted and the records moved to their buckets, input order kept inside a
// bucket: the same grid as build_grid's, from 6 to 12 bytes per edge kept instead of the input's
// 8 or 12, and with no second pass decoding the input to count.
// The move is cut in two so that neither half writes to thousands of places at once (a write
// that misses the caches per record): while the input is read, each run is checked into a scratch
// buffer of one run (its pages faulted in once), and each task copies its share of it into
// edge_cache_ grouped by placement group (kGridPlacementGroups groups of buckets consecutive in
// the grid's order; a share's groups' offsets are kept: a "segment") and counts the ids it saw,
// in time the cores would otherwise spend waiting for storage; then every group is one task that
// copies its records, segment after segment (input order), into its buckets (about buckets /
// kGridPlacementGroups of them).
// Memory: what the plan reserved for it (core/memory_plan.cpp): (grid_rs + id bytes) * n of edges,
// then grid_rs * n of grid, the bucket arrays (the counters, the cursors, the offsets, the ids'
// buckets and groups), a run's records to group (then the sort's scratch, for programs that tell
// their active vertices: each bucket by source), the segments' offsets and each worker's counts.
// Halved (symmetric_one_way_, like the on-disk grid): only the records with src <= dst are placed
// (the others are their reverses), scattered both ways; the check packs them (each task's from the
// start of its range of the run), so that only they are grouped and placed.
Status EngineBase::load_grid_records() {
  const std::size_t rs = graph_.record_size();
  const std::uint64_t n = graph_.edges;
  const std::size_t T = plan_.threads;
  const std::size_t grid_rs = grid_record_bytes_;
  const std::uint64_t buckets = grid_buckets(grid_blocks_, bucketing_.sub_bits);
  const GridPairIds pair_id = GridPairIds::of(grid_blocks_, bucketing_);
  const std::uint64_t ids = pair_id.space();
  const std::uint32_t local_mask = grid_local_mask();
  const bool local4 = grid_layout_ == GridLayout::kLocal4;
  const std::string input_name = "edge file " + input_file_.path();
  const std::size_t id_bytes = pair_id.id_bytes();
  grid_halved_ = symmetric_one_way_;
  const bool halved = grid_halved_;
  edge_cache_ = AlignedBuffer(n * (grid_rs + id_bytes));
  std::byte* records = edge_cache_.data();
  std::byte* bucket_ids = records + n * grid_rs;
  // The grid's pages are first touched while the input is read (storage-bound: the cores wait),
  // a share per run, instead of by the placement (~0.4 s per GiB of page faults on this VM).
  grid_ = AlignedBuffer(n * grid_rs);
  std::uint64_t touched = 0;
  auto touch_grid = [&](std::uint64_t records_read) {
    // Halved: about half the records read are kept (the placement faults in any pages left).
    const std::uint64_t kept = halved ? records_read / 2 : records_read;
    const std::uint64_t upto = std::min<std::uint64_t>(grid_.size(), round_up(kept * grid_rs, kSmallPage));
    if (upto <= touched) return;
    const std::uint64_t from = touched;
    pool_->run(T, [&](std::size_t t, unsigned) { fault_in_share(grid_.data(), from, upto, t, T); });
    touched = upto;
  };
  // Each id's bucket, and placement groups: the buckets in the grid's order cut into G groups.
  const std::uint64_t G = std::min<std::uint64_t>(kGridPlacementGroups, buckets);
  std::vector<std::uint32_t> bucket_of_id(ids, 0);
  std::vector<std::uint32_t> group_of(ids, static_cast<std::uint32_t>(G));
  const std::vector<std::uint32_t> order = grid_bucket_order();
  std::vector<std::uint64_t> group_first_rank(G + 1, buckets);  // group g's buckets: order[group_first_rank[g], [g + 1])
  {
    std::vector<std::uint32_t> group_of_bucket(buckets, static_cast<std::uint32_t>(G));
    for (std::uint64_t rank = 0; rank < order.size(); ++rank) {
      const std::uint64_t g = rank * G / buckets;  // ascends with rank; every group gets a bucket (G <= buckets)
      group_of_bucket[order[rank]] = static_cast<std::uint32_t>(g);
      if (rank == 0 || g != (rank - 1) * G / buckets) group_first_rank[g] = rank;
    }
    for (std::uint64_t id = 0; id < pair_id.pairs(); ++id) {
      bucket_of_id[id] = static_cast<std::uint32_t>(pair_id.bucket(id));
      group_of[id] = group_of_bucket[bucket_of_id[id]];
    }
  }
  const std::uint64_t stride = G + 2;  // a segment's offsets: where each group starts, and its end
  std::vector<std::uint64_t> segment_first;   // each segment's first record
  std::vector<std::uint64_t> segment_starts;  // stride per segment, relative to its first record
  std::vector<std::byte> run_scratch;         // the run being read, checked: its records, then their ids
  std::vector<TaskCursor> kept_end(T);  // a halved grid: task t's next kept record of the run
  // Each worker's count of every id, while the input is read (the storage-bound read leaves the
  // cores time for it; 8 bytes per id and worker, in the L2 cache here).
  std::vector<std::vector<std::uint64_t>> id_counts(pool_->size(), std::vector<std::uint64_t>(ids, 0));
  // Copies records [lo, hi) of the run starting at record `first` (m records, checked into
  // run_scratch) to edge_cache_, grouped, writing the groups' offsets to `starts`.
  auto group_share = [&]<std::size_t kSize, typename Id>(std::uint64_t first, std::uint64_t m, std::uint64_t lo, std::uint64_t hi,
                                                          std::uint64_t* starts, std::uint64_t* id_count) {
    const std::uint32_t* group = group_of.data();
    // Copies in this frame: the moves' stores could alias the captured pointers, which the loop
    // would then read again (through the closure) for every record.
    const std::byte* const from = run_scratch.data();
    const std::byte* const from_ids = from + m * kSize;
    std::byte* const to = records + lo * kSize;
    std::byte* const to_ids = bucket_ids + lo * sizeof(Id);
    const std::uint64_t a = lo - first;
    const std::uint64_t z = hi - first;
    const auto id_at = [from_ids](std::uint64_t i) {
      Id b = 0;
      std::memcpy(&b, from_ids + i * sizeof(Id), sizeof(Id));
      return b;
    };
    // The groups counted in kGroupCounters interleaved rows (record i in row i % kGroupCounters):
    // an increment waits for the previous one of its counter, and skewed graphs put runs of
    // records in the same group (rmat22 bfs at 4G: group_share's CPU -14%, docs/performance.md,
    // session 54). (A share is part of a run: its counts fit 32 bits.)
    constexpr std::size_t kGroupCounters = 4;
    std::uint32_t group_counts[kGroupCounters][kGridPlacementGroups + 2] = {};
    std::uint64_t i = a;
    for (; i + kGroupCounters <= z; i += kGroupCounters) {
      for (std::size_t c = 0; c < kGroupCounters; ++c) {
        const Id b = id_at(i + c);
        ++group_counts[c][group[b] + 1];
        ++id_count[b];
      }
    }
    for (; i < z; ++i) {
      const Id b = id_at(i);
      ++group_counts[0][group[b] + 1];
      ++id_count[b];
    }
    starts[0] = 0;
    for (std::uint64_t g = 1; g < stride; ++g) {
      std::uint64_t count = 0;
      for (std::size_t c = 0; c < kGroupCounters; ++c) count += group_counts[c][g];
      starts[g] = starts[g - 1] + count;
    }
    std::uint64_t next[kGridPlacementGroups + 1];
    std::copy(starts, starts + G + 1, next);
    for (std::uint64_t i = a; i < z; ++i) {
      const Id b = id_at(i);
      const std::uint64_t at = next[group[b]]++;
      std::memcpy(to + at * kSize, from + i * kSize, kSize);
      std::memcpy(to_ids + at * sizeof(Id), &b, sizeof(Id));
    }
  };
  std::uint64_t seen = 0;  // records read (and checked)
  ES_ASSIGN_OR_RETURN(auto reader, open_input());
  ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, input_name, [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
    if (cancel_requested()) return cancelled();
    const std::uint64_t m = run.size() / rs;
    if (first + m > n) {
      return corruption(input_name + " holds more than the " + std::to_string(n) + " records its graph description gives");
    }
    touch_grid(first + m);
    seen = first + m;
    if (run_scratch.size() < m * (grid_rs + id_bytes)) run_scratch.resize(m * (grid_rs + id_bytes));
    std::byte* const run_records = run_scratch.data();
    std::byte* const run_ids = run_records + m * grid_rs;
    // Captured by value (check_run copies this per task): the values stay in registers; the
    // choices are template arguments, not flags tested for every record (the compiler kept those
    // in memory: the records' stores may alias them).
    // Halved: each task packs the records the grid keeps from the start of its range (kept_end[t]:
    // the end), so that grouping them moves only those (rmat22-sym cc at 4G: CPU 4.35 -> 3.88 s,
    // docs/performance.md, session 54). Every record is written, the cursor moved past the kept
    // ones only: not a branch, which records a symmetric input keeps being a coin flip per record.
    for (std::size_t t = 0; t < T; ++t) kept_end[t].next = m * t / T;
    auto check_as = [&]<bool kHalved, typename Id, GridLayout kLayout>() {
      constexpr std::size_t kGridBytes = kLayout == GridLayout::kLocal4 ? 4 : 8;
      return check_run(run, first, [=, cursor = kept_end.data()](std::size_t t, std::uint64_t i, const Edge& e) {
        const std::uint64_t k = kHalved ? cursor[t].next : i - first;
        const auto id = static_cast<Id>(pair_id(e.src, e.dst));
        std::memcpy(run_ids + k * sizeof(Id), &id, sizeof(Id));
        encode_grid_record<kLayout>(run_records + k * kGridBytes, e, local_mask);
        if constexpr (kHalved) cursor[t].next = k + 1 - src_above_dst(e);
      });
    };
    auto check_with = [&]<bool kHalved>() {
      if (id_bytes == 2) {
        return local4 ? check_as.template operator()<kHalved, std::uint16_t, GridLayout::kLocal4>()
                      : check_as.template operator()<kHalved, std::uint16_t, GridLayout::kLocal8>();
      }
      return local4 ? check_as.template operator()<kHalved, std::uint32_t, GridLayout::kLocal4>()
                    : check_as.template operator()<kHalved, std::uint32_t, GridLayout::kLocal8>();
    };
    ES_RETURN_IF_ERROR(halved ? check_with.template operator()<true>() : check_with.template operator()<false>());
    // The tasks' shares of the run, one segment each (the split of check_run).
    const std::size_t segments = segment_first.size();
    for (std::size_t t = 0; t < T; ++t) segment_first.push_back(first + m * t / T);
    segment_starts.resize((segments + T) * stride);
    pool_->run(T, [&](std::size_t t, unsigned worker) {
      const std::uint64_t lo = first + m * t / T;
      const std::uint64_t hi = halved ? first + kept_end[t].next : first + m * (t + 1) / T;
      std::uint64_t* starts = segment_starts.data() + (segments + t) * stride;
      std::uint64_t* id_count = id_counts[worker].data();
      if (id_bytes == 2) {
        local4 ? group_share.template operator()<4, std::uint16_t>(first, m, lo, hi, starts, id_count)
               : group_share.template operator()<8, std::uint16_t>(first, m, lo, hi, starts, id_count);
      } else {
        local4 ? group_share.template operator()<4, std::uint32_t>(first, m, lo, hi, starts, id_count)
               : group_share.template operator()<8, std::uint32_t>(first, m, lo, hi, starts, id_count);
      }
    });
    return Status::ok();
  }));
  if (seen != n) {
    return input_ended_early(input_name, seen * rs, n * rs);
  }
  edges_cached_ = true;
  ES_RETURN_IF_ERROR(input_checked());
  // visit(i, id) for each record i of group g (its id), segment after segment (input order).
  auto for_each_of_group = [&]<typename Id>(std::uint64_t g, auto&& visit) {
    for (std::size_t s = 0; s < segment_first.size(); ++s) {
      const std::uint64_t* starts = segment_starts.data() + s * stride;
      const std::uint64_t base = segment_first[s];
      for (std::uint64_t i = base + starts[g]; i < base + starts[g + 1]; ++i) {
        Id b = 0;
        std::memcpy(&b, bucket_ids + i * sizeof(Id), sizeof(Id));
        visit(i, b);
      }
    }
  };
  // The ids' counts: the workers'. Counted after the read instead, by groups, this took 0.065 s of
  // rmat22's set-up (docs/performance.md, session 40).
  std::vector<std::uint64_t> per_id(ids, 0);
  for (const std::vector<std::uint64_t>& count : id_counts) {
    for (std::uint64_t id = 0; id < ids; ++id) per_id[id] += count[id];
  }
  id_counts = {};
  {
    std::vector<std::vector<std::uint64_t>> counts(1, std::vector<std::uint64_t>(buckets, 0));
    for (std::uint64_t id = 0; id < pair_id.pairs(); ++id) counts[0][bucket_of_id[id]] += per_id[id];
    place_counted_buckets(counts);
  }
  // Each id's next record in its bucket (its group's task's alone).
  for (std::uint64_t id = 0; id < pair_id.pairs(); ++id) per_id[id] = bucket_begin_[bucket_of_id[id]];
  std::byte* const out = grid_.data();
  // Group g's records to their buckets. Constant sizes: moves, not calls.
  auto place = [&]<std::size_t kSize, typename Id>(std::uint64_t g) {
    std::uint64_t* const next = per_id.data();
    for_each_of_group.template operator()<Id>(g, [next, out, records](std::uint64_t i, Id b) {
      std::memcpy(out + next[b]++ * kSize, records + i * kSize, kSize);
    });
  };
  // traits_.grid_by_source (programs that tell their active vertices): each bucket is sorted by
  // source right after its group is placed (its records still in the CPU cache), so that a
  // source's records are consecutive, as in the on-disk grid's keys (GridKeys): the superstep tests
  // its bit and reads its state once per run, in order, instead of at random. rmat22 at 4G:
  // supersteps sssp ~2.1 -> ~1.5 s for ~0.1 s of set-up (docs/performance.md, session 26); cc's
  // 1.7-1.9 -> 1.3-1.6 s (session 28). Not for a program that scatters from a narrow Source (bfs:
  // 1 byte per vertex, 4 MiB at rmat22, which the caches hold in any order): its supersteps gained
  // 0.1 s on the Intel VM and nothing on the AMD one, where the sort cost 0.3-0.45 s of set-up
  // (session 28: wall 2.98 -> 2.67 s, 8 pairs). Scratch: the run buffer (the plan's), a share per
  // worker; a larger bucket is sorted in pieces of a share.
  const std::uint64_t share_records = run_scratch.size() / pool_->size() / grid_rs;
  const bool by_source = traits_.grid_by_source && traits_.source_bytes == 0 && share_records > 0;
  grid_by_source_ = by_source;  // (in pieces of a share when a bucket is larger: nearly so)
  grid_sorted_piece_records_ = by_source ? share_records : 0;
  auto sort_group = [&]<typename Record>(std::uint64_t g, unsigned worker) {
    auto* const grid = reinterpret_cast<Record*>(grid_.data());
    const std::span<Record> scratch(reinterpret_cast<Record*>(run_scratch.data()) + worker * share_records, share_records);
    for (std::uint64_t rank = group_first_rank[g]; rank < group_first_rank[g + 1]; ++rank) {
      const std::uint64_t lo = bucket_begin_[order[rank]];
      const std::uint64_t hi = rank + 1 < buckets ? bucket_begin_[order[rank + 1]] : grid_records_;
      sort_grid_records_by_source(grid + lo, hi - lo, scratch, local_mask);
    }
  };
  pool_->run(G, [&](std::size_t g, unsigned worker) {
    if (id_bytes == 2) {
      local4 ? place.template operator()<4, std::uint16_t>(g) : place.template operator()<8, std::uint16_t>(g);
    } else {
      local4 ? place.template operator()<4, std::uint32_t>(g) : place.template operator()<8, std::uint32_t>(g);
    }
    if (by_source) {
      local4 ? sort_group.template operator()<std::uint32_t>(g, worker) : sort_group.template operator()<std::uint64_t>(g, worker);
    }
  });
  run_scratch = {};
  finish_grid();
  return Status::ok();
}

// The on-disk grid (K = 1, no room for the edges; the plan's grid_window_bytes > 0; compact
// records only), written in slabs of at most one window of records, each slab one window of the
// file: the slab is filled in the first window buffer and, with --grid_codec ef, encoded into the
// second (core/grid_codec.hpp). Slabs end at bucket boundaries where they can (a bucket is sorted
// as a whole), so the grid's bytes do not depend on the window size unless a bucket is larger than
// a window. A grid of one slab (or windows too small to stage through): one pass over the input
// checks every record and counts the buckets, then one pass per slab places its records
// (place_from_input). Otherwise one pass over the input does it all (build_staged).
Status EngineBase::build_disk_grid() {
  init_grid();
  if (grid_layout_ == GridLayout::kFull) return Status{StatusCode::kInternal, "an on-disk grid needs block-local ids"};
  const std::uint64_t n = graph_.edges;
  const std::size_t grid_rs = grid_record_bytes_;
  ES_RETURN_IF_ERROR(volumes_.create_scratch());
  ES_ASSIGN_OR_RETURN(grid_file_, File::open_striped(volumes_.layout(StreamKind::kEdges, "edge_grid", 0), OpenMode::kCreate,
                                                     plan_.io.direct));
  grid_file_bytes_ = 0;
  grid_kept_bytes_ = 0;
  grid_keep_credit_ = 0;
  grid_halved_ = symmetric_one_way_;
  grid_by_column_ = traits_.by_destination;
  grid_windows_ = AlignedBuffer(plan_.grid_memory_bytes);
  grid_order_ = grid_bucket_order();
  const std::uint64_t slab_records = grid_slab_records();
  // Reserved at their bounds (the memory plan's), so that growing them never holds two copies.
  grid_disk_windows_.clear();
  grid_disk_windows_.reserve(2 * grid_windows_bound(n, slab_records));  // a slab is one or two windows
  grid_pieces_.clear();
  if (plan_.grid_codec == GridCodec::kEliasFano) grid_pieces_.reserve(grid_pieces_bound(n, grid_order_.size(), slab_records));
  const std::uint64_t slabs = (n + slab_records - 1) / slab_records;  // about: slabs end at bucket boundaries
  // Staging groups (build_staged): about a quarter of a slab each, so that the slabs can end at
  // group boundaries (grid_slab_bounds) and every group is read back once; half a slab (as many
  // staging blocks, each twice as large) when quarter-slab groups would make the blocks smaller
  // than kMinStagingBlock.
  // Staging buffers: one per group and kStagingWritesPerTask per staging task for the blocks as
  // written (a page more: its header), all in the two window buffers; read back through one such
  // block, in the room of the input reader (closed by then).
  const std::uint64_t unit = std::lcm<std::uint64_t>(kIoAlignment, 4 + grid_rs);  // whole staged records and pages
  auto staging_block = [&](std::uint64_t groups) {
    const std::uint64_t outs = kStagingWritesPerTask * std::min<std::uint64_t>(plan_.threads, groups);
    const std::uint64_t room = grid_windows_.size() - std::min<std::uint64_t>(grid_windows_.size(), outs * kIoAlignment);
    return round_down(
        std::min<std::uint64_t>(room / (groups + outs), plan_.reader_bytes - std::min(plan_.reader_bytes, kIoAlignment)), unit);
  };
  std::uint64_t groups = 4 * slabs;
  if (staging_block(groups) < kMinStagingBlock) groups = 2 * slabs;
  const std::uint64_t block = staging_block(groups);
  // When the plan gave the grid more room than two windows, the windows are built there, at their
  // file offsets, and not written (grid_slab_buffer): all of them if they fit (nothing to read
  // back), else a set spread over the grid that leaves two window buffers after it.
  grid_keep_ = options_.grid_resident && plan_.grid_memory_bytes > 2 * plan_.grid_window_bytes;
  grid_keep_all_ = grid_keep_;
  if (slabs > 1 && block >= unit) {
    ES_RETURN_IF_ERROR(build_staged(groups, block));
  } else {
    {
      const timeline::Span span("check and count", "setup");
      ES_RETURN_IF_ERROR(check_and_count());
    }
    const timeline::Span place_span("place from input", "setup");
    const std::vector<std::uint64_t> bounds = grid_slab_bounds();
    for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
      ES_ASSIGN_OR_RETURN(std::byte* const records, grid_slab_buffer(bounds[j + 1] - bounds[j]));
      ES_RETURN_IF_ERROR(place_from_input(bounds[j], bounds[j + 1] - bounds[j], records));
      ES_RETURN_IF_ERROR(write_grid_slab(bounds[j], bounds[j + 1] - bounds[j], records));
    }
  }
  grid_order_ = std::vector<std::uint32_t>();
  grid_on_disk_ = true;
  stats_.plan.grid_file_bytes = grid_file_bytes_;
  allocate_sources(round_up(grid_padded_vertices() * traits_.source_bytes, kIoAlignment));
  if (grid_keep_all_) {  // every window is where load_resident_grid would have read it
    mark_grid_resident();
  } else if (options_.grid_resident && grid_file_bytes_ <= grid_windows_.size()) {
    ES_RETURN_IF_ERROR(load_resident_grid());
  } else {
    // The windows not kept, through the two window buffers after the kept ones.
    const std::uint64_t half = plan_.grid_window_bytes;
    if (grid_kept_bytes_ + 2 * half > grid_windows_.size()) {
      return Status{StatusCode::kInternal, "edge grid: no room for two windows after the kept ones"};
    }
    std::vector<std::uint64_t> streamed;
    for (std::uint64_t w = 0; w < grid_disk_windows_.size(); ++w) {
      if (grid_disk_windows_[w].memory == GridWindow::kStreamed) streamed.push_back(w);
    }
    grid_reader_ = std::make_unique<GridWindowReader>(grid_file_, grid_disk_windows_, std::move(streamed),
                                                      std::span(grid_windows_.data() + grid_kept_bytes_, 2 * half),
                                                      options_.scratch_checksums, plan_.io, &edge_read_counters_);
  }
  stats_.plan.grid_kept_bytes = grid_kept_bytes_;
  grid_ready_ = true;
  return Status::ok();
}

// The grid file fits the buffer: the kept windows move to their file offsets (last first: each
// one's offset is at or after its place, packed in grid order, and after every earlier one's), then
// the others are read back once, window by window (each checked against its crc32), to theirs;
// supersteps then scatter it from memory.
Status EngineBase::load_resident_grid() {
  for (auto window = grid_disk_windows_.rbegin(); window != grid_disk_windows_.rend(); ++window) {
    if (window->memory == GridWindow::kStreamed || window->memory == window->offset) continue;
    if (window->memory > window->offset) return Status{StatusCode::kInternal, "edge grid: a kept window after its offset"};
    std::memmove(grid_windows_.data() + window->offset, grid_windows_.data() + window->memory, window->bytes);
  }
  const std::uint64_t chunk = std::max<std::uint64_t>(round_down(plan_.io.read_chunk, kIoAlignment), kIoAlignment);
  for (std::uint64_t w = 0; w < grid_disk_windows_.size(); ++w) {
    if (cancel_requested()) return cancelled();
    const GridWindow& window = grid_disk_windows_[w];
    if (window.memory != GridWindow::kStreamed) continue;
    const std::span<std::byte> into(grid_windows_.data() + window.offset, window.bytes);
    for (std::uint64_t at = 0; at < window.bytes; at += chunk) {
      const std::span<std::byte> part = into.subspan(at, std::min(chunk, window.bytes - at));
      const auto start = std::chrono::steady_clock::now();
      ES_ASSIGN_OR_RETURN(const std::size_t got, grid_file_.read_at(window.offset + at, part));
      count_request(stats_.edges_io, start, got, 0);
      if (got != part.size()) return grid_window_short(grid_file_, w, window.offset + at, got, part.size());
    }
    if (options_.scratch_checksums) ES_RETURN_IF_ERROR(check_grid_window(grid_file_, w, window, into));
  }
  mark_grid_resident();
  return Status::ok();
}

// Every window of the grid is in grid_windows_ at its file offset: supersteps read no storage.
void EngineBase::mark_grid_resident() {
  grid_resident_ = true;
  stats_.plan.grid_resident = true;
  for (GridWindow& window : grid_disk_windows_) window.memory = window.offset;
  grid_kept_bytes_ = grid_file_bytes_;
}

// Where the next slab's `slab` records are placed for write_grid_slab: at the end of the buffers
// to be encoded (Elias-Fano; a slab's encoding takes at most one window) to after the windows kept
// so far, or as they are (one or two windows) right after those. While every window so far stayed
// (grid_keep_all_, at its file offset), the slab's windows stay too if they fit beside them;
// otherwise the grid is kept in part from then on (spread_kept_windows), with room for two windows
// after the kept ones.
Expected<std::byte*> EngineBase::grid_slab_buffer(std::uint64_t slab) {
  std::byte* const buffers = grid_windows_.data();
  const std::uint64_t size = grid_windows_.size();
  const std::uint64_t half = plan_.grid_window_bytes;
  const bool encoded = plan_.grid_codec == GridCodec::kEliasFano;
  if (grid_keep_all_) {
    const std::uint64_t keep = std::min(size, options_.grid_keep_bytes);
    const bool fits = encoded ? grid_kept_bytes_ + half <= keep && grid_kept_bytes_ + 2 * half <= size
                              : grid_kept_bytes_ + round_up(slab * grid_record_bytes_, kIoAlignment) <= keep;
    if (!fits) ES_RETURN_IF_ERROR(spread_kept_windows());
  }
  return encoded ? buffers + size - half : buffers + grid_kept_bytes_;
}

// While the grid is built with --grid_codec ef: the room of the grid's buffers that nothing
// writes until the next slab is placed, between the next encoded window (at most `half` bytes
// after the windows kept so far, write_grid_slab) and the slab buffer (the last `half` bytes,
// above); empty without ef (a slab is built in place, after the kept windows) or without room.
// The windows kept so far only move towards the front (spread_kept_windows). Page-aligned.
std::span<std::byte> EngineBase::grid_free_room() {
  const std::uint64_t half = plan_.grid_window_bytes;
  const std::uint64_t size = grid_windows_.size();
  const std::uint64_t begin = grid_kept_bytes_ + half;  // windows are whole pages
  if (plan_.grid_codec != GridCodec::kEliasFano || begin + half >= size) return {};
  return std::span(grid_windows_.data() + begin, size - half - begin);
}

// The most the windows kept in part may take: the room less two window buffers (or less, by
// --grid_keep_bytes).
std::uint64_t EngineBase::grid_spread_room() const {
  const std::uint64_t size = grid_windows_.size();
  const std::uint64_t buffers = 2 * plan_.grid_window_bytes;
  return std::min(size - std::min(size, buffers), options_.grid_keep_bytes);
}

// Whether `window` (the next in grid order) stays in memory in a grid kept in part: the windows
// kept are spread evenly over the grid, so that every streamed window is read while the windows
// before it are scattered, kept ones too. Each window owes the kept set its bytes times the
// fraction of the grid still to come that the room left can hold (the grid's size estimated from
// the `built_bytes` of its first `built_records` records); a window stays when the debt is at least
// half of it, and when it fits.
bool EngineBase::grid_spread_keeps(const GridWindow& window, std::uint64_t built_bytes, std::uint64_t built_records) {
  const std::uint64_t room = grid_spread_room();
  if (grid_kept_bytes_ + window.bytes > room) return false;
  const double per_record = static_cast<double>(built_bytes) / static_cast<double>(std::max<std::uint64_t>(built_records, 1));
  const double to_come = std::max(static_cast<double>(window.bytes), per_record * static_cast<double>(grid_records_ - window.first));
  const double fraction = std::min(1.0, static_cast<double>(room - grid_kept_bytes_) / to_come);
  grid_keep_credit_ += fraction * static_cast<double>(window.bytes);
  if (2 * grid_keep_credit_ < static_cast<double>(window.bytes)) return false;
  grid_keep_credit_ -= static_cast<double>(window.bytes);
  return true;
}

// The grid does not fit the room: of the windows so far (all kept, at their file offsets), those
// grid_spread_keeps picks stay, packed in grid order; the others are written to their offsets in
// the grid file. Each window moves only towards the front, over windows written or moved before it.
Status EngineBase::spread_kept_windows() {
  grid_keep_all_ = false;
  grid_kept_bytes_ = 0;
  grid_keep_credit_ = 0;
  const std::uint64_t built = grid_disk_windows_.empty() ? 0 : grid_disk_windows_.back().end;
  for (GridWindow& window : grid_disk_windows_) {
    const bool keep = grid_spread_keeps(window, grid_file_bytes_, built);
    ES_RETURN_IF_ERROR(keep_or_write_grid_window(window, grid_windows_.data() + window.memory, keep));
  }
  return Status::ok();
}

// `window`'s bytes at `data` (in the buffers, at or after the end of the windows kept so far):
// kept, moved to that end (packed in grid order), or written to the grid file (GridWindow::kStreamed).
Status EngineBase::keep_or_write_grid_window(GridWindow& window, std::byte* data, bool keep) {
  if (!keep) {
    window.memory = GridWindow::kStreamed;
    return write_grid_window(window, std::span<const std::byte>(data, window.bytes));
  }
  std::byte* const at = grid_windows_.data() + grid_kept_bytes_;
  if (grid_kept_bytes_ + window.bytes > grid_windows_.size() || data < at) {
    return Status{StatusCode::kInternal, "edge grid: a kept window does not fit the buffers"};
  }
  if (data != at) std::memmove(at, data, window.bytes);
  window.memory = grid_kept_bytes_;
  grid_kept_bytes_ += window.bytes;
  return Status::ok();
}

// Records per slab at most: one window buffer's worth when the slab is encoded into the other
// (--grid_codec ef), both buffers' worth otherwise (written as two windows).
std::uint64_t EngineBase::grid_slab_records() const {
  return (plan_.grid_codec == GridCodec::kEliasFano ? 1 : 2) * plan_.grid_window_bytes / grid_record_bytes_;
}

// Where the slabs of the on-disk grid begin, and n at the end: each holds at most
// grid_slab_records(); compressed, a slab ends at a bucket boundary (a bucket is sorted as a
// whole) unless a single bucket does not fit (then it is cut). `cuts` (increasing record indices
// at bucket boundaries: the staging groups' starts, build_staged): a slab ends at the last cut
// that keeps it at least half full, when there is one, so that each group's staged records are
// read back once (a group cut by a slab bound was read for both slabs: rmat22 bfs at 256M read
// 392 MB back for 270 MB staged). At least half full: at most twice the slabs of the plain rule,
// which grid_windows_bound allows for.
std::vector<std::uint64_t> EngineBase::grid_slab_bounds(std::span<const std::uint64_t> cuts) const {
  const std::uint64_t n = grid_records_;
  const std::uint64_t capacity = grid_slab_records();
  std::vector<std::uint64_t> bounds = {0};
  std::uint64_t lo = 0;
  while (lo < n) {
    std::uint64_t hi = lo + capacity;
    const auto cut = std::upper_bound(cuts.begin(), cuts.end(), hi);  // the first cut past the slab's room
    if (hi >= n) {
      hi = n;
    } else if (cut != cuts.begin() && *std::prev(cut) >= lo + (capacity + 1) / 2) {
      hi = *std::prev(cut);
    } else if (plan_.grid_codec == GridCodec::kEliasFano) {
      // The last bucket (in grid order) starting at or before hi; its start is the bound if after lo.
      const auto after = std::upper_bound(grid_order_.begin(), grid_order_.end(), hi,
                                          [&](std::uint64_t at, std::uint32_t b) { return at < bucket_begin_[b]; });
      if (after != grid_order_.begin() && bucket_begin_[*std::prev(after)] > lo) hi = bucket_begin_[*std::prev(after)];
    }
    bounds.push_back(hi);
    lo = hi;
  }
  return bounds;
}

// Checks every input record, in parallel (the first bad one reported), counting each bucket's
// records (counts[t][b] for task t) and calling on_bucket(t, e, b) for each record e the grid
// keeps (b: its bucket; task t's in input order), where on_bucket = on_run(records), called before
// each run's check: a value (a lambda capturing by value), copied into every task of the check so
// that its values stay in registers instead of being read through references for every record.
// `stage(run, first, counts)` sees each checked run of records (with the counts so far). Ends with
// the buckets placed (place_buckets). With kFirstRunOnly the buckets are counted in the first run
// only (what stage needs to estimate their shares) and not placed: the caller counts and places
// them itself (build_staged, from its staged blocks: counting every record here, in a row of
// counters per task, 266 KiB on rmat22, cost rmat22 bfs at 256M 0.3-0.4 s of user CPU more).
template <bool kFirstRunOnly, typename Stage, typename OnRun>
Status EngineBase::check_count_and(Stage&& stage, OnRun&& on_run) {
  const std::size_t rs = graph_.record_size();
  const std::uint64_t n = graph_.edges;
  const std::size_t T = plan_.threads;
  const GridBucketing bucket_of = bucketing_;
  const std::uint64_t buckets = grid_buckets(grid_blocks_, bucketing_.sub_bits);
  const std::string input_name = "edge file " + input_file_.path();
  std::vector<std::vector<std::uint64_t>> counts(T, std::vector<std::uint64_t>(buckets, 0));
  std::vector<std::uint64_t*> rows(T);
  for (std::size_t t = 0; t < T; ++t) rows[t] = counts[t].data();
  const bool halved = grid_halved_;
  std::uint64_t seen = 0;
  ES_ASSIGN_OR_RETURN(auto reader, open_input());
  ES_RETURN_IF_ERROR(for_each_record_run(*reader, rs, input_name, [&](std::span<const std::byte> run, std::uint64_t first) -> Status {
    if (cancel_requested()) return cancelled();
    const auto on_bucket = on_run(run.size() / rs);
    // By value (check_run copies the callback per task): the values stay in registers. Always
    // inlined into the check's loop: with build_staged's on_bucket in it, gcc called it for every
    // record (rmat22-sym cc at 256M: 18.5% of the CPU in the call, docs/performance.md, session 54).
    auto check_as = [&]<bool kHalved, bool kCount>() {
      return check_run(run, first, [row = rows.data(), bucket_of, on_bucket](std::size_t t, std::uint64_t, const Edge& e)
                                       __attribute__((always_inline)) {
        // A branch, although which of a pair of reverse records comes first is a coin flip: adding
        // 0 for the reverse records instead cost more CPU (docs/performance.md, session 34).
        if (kHalved && e.src > e.dst) return;  // the reverse of a record the grid keeps
        const std::uint64_t b = bucket_of(e.src, e.dst);
        if constexpr (kCount) ++row[t][b];
        on_bucket(t, e, b);
      });
    };
    const bool count = !kFirstRunOnly || seen == 0;
    ES_RETURN_IF_ERROR(halved ? (count ? check_as.template operator()<true, true>() : check_as.template operator()<true, false>())
                              : (count ? check_as.template operator()<false, true>() : check_as.template operator()<false, false>()));
    ES_RETURN_IF_ERROR(stage(run, first, counts));
    seen += run.size() / rs;
    return Status::ok();
  }));
  if (seen != n) {
    return input_ended_early(input_name, seen * rs, n * rs);
  }
  if constexpr (!kFirstRunOnly) place_counted_buckets(counts);
  ES_RETURN_IF_ERROR(input_checked());
  return Status::ok();
}

Status EngineBase::check_and_count() {
  return check_count_and<false>([](std::span<const std::byte>, std::uint64_t, const auto&) { return Status::ok(); },
                                [](std::size_t) { return [](std::size_t, const Edge&, std::uint64_t) {}; });
}

Expected<std::unique_ptr<FramedReader>> EngineBase::open_input() {
  return open_input_edges(graph_, input_file_, plan_.io, plan_.threads, parallel_for(), &stats_.input_io,
                          &stats_.input_codec_io);
}

// Which task places a bucket's records when every task reads every record: groups of 8 buckets
// (one cache line of cursors) round robin.
std::vector<std::uint8_t> EngineBase::bucket_owners() const {
  std::vector<std::uint8_t> owner(grid_buckets(grid_blocks_, bucketing_.sub_bits));
  for (std::size_t b = 0; b < owner.size(); ++b) owner[b] = static_cast<std::uint8_t>((b >> 3) % plan_.threads);
  return owner;
}

// Fills `out` (grid_slab_buffer) with the grid records [lo, lo + slab) in one pass over the input
// (checked already): every thread reads every record and places those of its buckets.
Status EngineBase::place_from_input(std::uint64_t lo, std::uint64_t slab, std::byte* out) {
  const std::size_t rs = graph_.record_size();
  const std::size_t T = plan_.threads;
  const EdgeFileType type = graph_.type;
  const GridBucketing bucket_of = bucketing_;
  const std::uint32_t local_mask = grid_local_mask();
  const bool local4 = grid_layout_ == GridLayout::kLocal4;
  std::vector<std::uint64_t> next = bucket_begin_;
  const std::vector<std::uint8_t> owners = bucket_owners();
  const bool halved = grid_halved_;
  ES_ASSIGN_OR_RETURN(auto reader, open_input());
  return for_each_record_run(*reader, rs, "edge file " + input_file_.path(), [&](std::span<const std::byte> run, std::uint64_t) -> Status {
    if (cancel_requested()) return cancelled();
    const std::size_t m = run.size() / rs;
    pool_->run(T, [&](std::size_t t, unsigned) {
      // Copies in this frame: the records' stores (std::byte: they may alias anything) would
      // otherwise make the loop read the captured values again for every record (as in
      // build_staged's staging loop).
      std::uint64_t* const cursor = next.data();
      const std::uint8_t* const owner = owners.data();
      const std::byte* const input = run.data();
      const std::size_t record_bytes = rs;
      const EdgeFileType input_type = type;
      const GridBucketing bucket = bucket_of;
      const std::uint32_t mask = local_mask;
      const bool drop_reversed = halved;
      const bool compact4 = local4;
      const std::uint64_t first = lo;
      const std::uint64_t records = slab;
      std::byte* const to = out;
      const std::size_t run_records = m;
      for (std::size_t i = 0; i < run_records; ++i) {
        const Edge e = decode_edge(input + i * record_bytes, input_type);
        if (drop_reversed && e.src > e.dst) continue;  // not in a halved grid
        const std::uint64_t b = bucket(e.src, e.dst);
        if (owner[b] != t) continue;
        const std::uint64_t at = cursor[b]++ - first;
        if (at >= records) continue;  // another slab's record
        if (compact4) {
          encode_grid_record<GridLayout::kLocal4>(to + at * 4, e, mask);
        } else {
          encode_grid_record<GridLayout::kLocal8>(to + at * 8, e, mask);
        }
      }
    });
    return Status::ok();
  });
}

// Writes the slab at `records` (grid_slab_buffer), the grid's records [lo, lo + slab), as the next
// windows of the grid file: as it is (one or two windows of at most grid_window_bytes), or
// (--grid_codec ef) its buckets' portions sorted and encoded (core/grid_codec.hpp) into the second
// window buffer (or, keeping the windows, to after the kept ones), one window.
Status EngineBase::write_grid_slab(std::uint64_t lo, std::uint64_t slab, std::byte* records) {
  const timeline::Span span("write grid slab", "setup");
  const std::size_t grid_rs = grid_record_bytes_;
  const std::uint64_t half = plan_.grid_window_bytes;
  if (plan_.grid_codec != GridCodec::kEliasFano) {
    const std::uint64_t per_window = half / grid_rs;  // whole pages: half is a multiple of 4096, grid_rs 4 or 8
    for (std::uint64_t first = 0; first < slab; first += per_window) {
      const std::uint64_t count = std::min(per_window, slab - first);
      ES_RETURN_IF_ERROR(append_grid_window(lo + first, count, records + first * grid_rs, count * grid_rs, grid_pieces_.size()));
    }
    return Status::ok();
  }
  // The portions of the buckets that lie in the slab, in grid order.
  std::vector<GridPortion> portions;
  const auto from = std::upper_bound(grid_order_.begin(), grid_order_.end(), lo,
                                     [&](std::uint64_t at, std::uint32_t b) { return at < bucket_begin_[b]; });
  for (auto it = from == grid_order_.begin() ? from : std::prev(from); it != grid_order_.end(); ++it) {
    const std::uint64_t begin = std::max(bucket_begin_[*it], lo);
    const std::uint64_t end = std::min(std::next(it) == grid_order_.end() ? grid_records_ : bucket_begin_[*std::next(it)], lo + slab);
    if (begin >= lo + slab) break;
    if (begin >= end) continue;
    const std::uint32_t sub = *it & ((std::uint32_t{1} << bucketing_.sub_bits) - 1);
    portions.push_back(GridPortion{begin - lo, end - begin, static_cast<std::uint16_t>(sub << grid_keys_.dst_bits)});
  }
  std::byte* out = grid_windows_.data() + grid_kept_bytes_;
  const std::uint64_t first_piece = grid_pieces_.size();
  const std::uint64_t used = encode_grid_slab(std::span(records, slab * grid_rs), grid_rs, portions, grid_keys_, lo,
                                              *pool_, std::span(out, half), grid_pieces_);
  return append_grid_window(lo, slab, out, used, first_piece);
}

// Writes `used` bytes at `data` (the records [first, first + count): as they are, or the pieces
// from first_piece to the last one) as the grid file's next window, zero-padded to the I/O
// alignment (data has room for that) with a crc32 when scratch checksums are on; or keeps it in
// the buffers after the windows kept so far (keep_or_write_grid_window), not written.
Status EngineBase::append_grid_window(std::uint64_t first, std::uint64_t count, std::byte* data, std::uint64_t used,
                                      std::uint64_t first_piece) {
  GridWindow window;
  window.offset = grid_file_bytes_;
  window.first = first;
  window.end = first + count;
  window.first_piece = first_piece;
  window.end_piece = grid_pieces_.size();
  window.used = used;
  window.bytes = round_up(used, kIoAlignment);
  std::memset(data + used, 0, window.bytes - used);
  // Kept: every window so far was (room made by grid_slab_buffer), or the spread picks it (moved
  // when it follows a slab's first window, which was written).
  const bool keep = grid_keep_all_ || (grid_keep_ && grid_spread_keeps(window, grid_file_bytes_ + window.bytes, window.end));
  ES_RETURN_IF_ERROR(keep_or_write_grid_window(window, data, keep));
  grid_file_bytes_ += window.bytes;
  grid_disk_windows_.push_back(window);
  return Status::ok();
}

// A window's `bytes` (padded) to the grid file at its offset, its crc32 set when scratch checksums are on.
Status EngineBase::write_grid_window(GridWindow& window, std::span<const std::byte> bytes) {
  if (options_.scratch_checksums) window.crc = frame_crc(bytes);
  const auto start = std::chrono::steady_clock::now();
  ES_RETURN_IF_ERROR(grid_file_.write_at(window.offset, bytes));
  count_request(stats_.edges_io, start, 0, window.bytes);
  return Status::ok();
}

// The grid in more than one slab from one pass over the input. Buckets, in schedule order, are
// cut into `groups` runs of about equal size (estimated from the first run of input records);
// while the pass checks and counts, every record goes, as a staged entry (32-bit bucket, grid
// record) in input order, to its group's buffer of `block` bytes (in the slab buffer); a full
// buffer is written to the group's staging file (grid_group.G) as one block, sorted into runs by
// bucket when that is smaller (core/staged_block.hpp; a crc32 per block). Then each slab is filled
// by reading the blocks of the groups whose records fall in it: a bucket's records take its places
// in input order. The staging files are then removed by a thread of their own (staging_removal_).
Status EngineBase::build_staged(std::uint64_t groups, std::uint64_t block) {
  const std::size_t rs = graph_.record_size();
  const std::size_t grid_rs = grid_record_bytes_;
  const std::size_t staged_record = 4 + grid_rs;  // u32 bucket, then the grid record
  const std::size_t T = plan_.threads;
  const std::size_t flushers = std::min<std::uint64_t>(T, groups);  // task t stages the groups g % T == t
  const EdgeFileType type = graph_.type;
  const GridBucketing bucket_of = bucketing_;
  const std::uint32_t local_mask = grid_local_mask();
  const bool local4 = grid_layout_ == GridLayout::kLocal4;
  const std::uint64_t buckets = grid_buckets(grid_blocks_, bucketing_.sub_bits);
  const bool halved = grid_halved_;
  const std::vector<std::uint32_t>& order = grid_order_;
  std::vector<std::uint32_t> group_of(buckets, 0);
  std::vector<std::uint32_t> rank(buckets, 0);          // a bucket's position among its group's
  std::vector<std::uint64_t> group_first(groups + 1, 0);  // group g's buckets: order[group_first[g], group_first[g + 1])
  const std::vector<std::uint8_t> place_owner = bucket_owners();
  ES_RETURN_IF_ERROR(ensure_open_file_limit(groups + 64));  // a staging file per group, open at once
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
  std::vector<std::vector<std::uint64_t>> block_bytes(groups);  // each block's stored (padded) size
  std::vector<std::vector<std::uint32_t>> sort_counts(flushers);
  // Each bucket's records, counted per staged block as it is flushed (a task flushes its own
  // groups, whose buckets no other task's share): one row for place_counted_buckets.
  std::vector<std::vector<std::uint64_t>> bucket_records(1, std::vector<std::uint64_t>(buckets, 0));
  std::vector<IoCounters> written(T);
  std::vector<Status> errors(T);
  // The slab buffer: the groups' buffers, then kStagingWritesPerTask blocks as written (a
  // group's, sorted) per task.
  std::byte* buffers = grid_windows_.data();
  const std::uint64_t out_capacity = round_up(staged_block_capacity(block / staged_record, grid_rs), kIoAlignment);
  const std::uint64_t outs = kStagingWritesPerTask * flushers;
  if (groups * block + outs * out_capacity > grid_windows_.size() || out_capacity > plan_.reader_bytes) {
    // build_disk_grid sized `block` for exactly this layout (a written block: `block` + one page).
    return Status{StatusCode::kInternal, "edge grid staging: " + std::to_string(groups) + " group buffers of " + std::to_string(block) +
                                             " bytes and " + std::to_string(outs) + " output blocks of " + std::to_string(out_capacity) +
                                             " bytes do not fit the slab buffer or the reader's room"};
  }
  // A block as written, and its write while in flight (a thread of its own: std::async).
  struct StagingWrite {
    std::future<Status> done;
    std::uint64_t bytes = 0;
  };
  std::vector<StagingWrite> writes(outs);  // task t's: [t * kStagingWritesPerTask, (t + 1) * kStagingWritesPerTask)
  std::vector<std::size_t> next_write(flushers, 0);
  // Waits for write i (if any) to finish: counted as the time its task waited for storage.
  auto wait_write = [&](std::size_t i, std::size_t t) -> Status {
    if (!writes[i].done.valid()) return Status::ok();
    const auto start = std::chrono::steady_clock::now();
    Status status = writes[i].done.get();
    count_request(written[t], start, 0, writes[i].bytes);
    return status;
  };
  auto wait_all_writes = [&]() -> Status {
    Status first = Status::ok();
    for (std::size_t i = 0; i < outs; ++i) {
      Status status = wait_write(i, i / kStagingWritesPerTask);
      if (first.is_ok()) first = std::move(status);
    }
    return first;
  };
  // Task t encodes group g's buffer into its next output block (once that block's previous write
  // is done) and starts writing it to g's staging file; the buffer is free again at return.
  auto flush = [&](std::uint64_t g, std::size_t t) -> Status {
    const std::size_t i = t * kStagingWritesPerTask + next_write[t];
    next_write[t] = (next_write[t] + 1) % kStagingWritesPerTask;
    ES_RETURN_IF_ERROR(wait_write(i, t));
    std::byte* out = buffers + groups * block + i * out_capacity;
    const StagedGroupBuckets members{rank, std::span<const std::uint32_t>(order).subspan(group_first[g], group_first[g + 1] - group_first[g])};
    const std::size_t used = encode_staged_block(std::span<const std::byte>(buffers + g * block, group[g].filled), grid_rs, members,
                                                 sort_counts[t], std::span<std::byte>(out, out_capacity), bucket_records[0].data());
    const std::uint64_t bytes = round_up(used, kIoAlignment);
    std::memset(out + used, 0, bytes - used);
    if (options_.scratch_checksums) block_crc[g].push_back(frame_crc(std::span<const std::byte>(out, bytes)));
    block_bytes[g].push_back(bytes);
    const File* file = &files[g];
    const std::uint64_t offset = group[g].flushed;
    const std::span<const std::byte> data(out, bytes);
    writes[i].bytes = bytes;
    writes[i].done = std::async(std::launch::async | std::launch::deferred, [file, offset, data] { return file->write_at(offset, data); });
    group[g].flushed += bytes;
    group[g].filled = 0;
    return Status::ok();
  };
  std::vector<std::byte> run_staged;  // the current run's records as (bucket, grid record), by group
  std::vector<std::uint64_t> run_groups(T * groups);  // per task and group: entries, then their next place
  std::vector<std::uint64_t> slice_begin(groups + 1);  // group g's entries: run_staged[slice_begin[g], slice_begin[g + 1])
  std::vector<std::uint8_t> direct(groups, 0);         // this run's entries of group g go straight to its buffer
  std::vector<std::byte*> into(groups, nullptr);        // where this run's first entry of group g goes
  bool grouped = false;
  // Once the groups are known (from the second run on), the check counts each task's entries per
  // group as it goes (on_bucket), so staging needs no counting pass of its own; a row per task,
  // whole cache lines apart.
  struct alignas(64) CounterLine {
    std::uint64_t count[8] = {};
  };
  const std::size_t row_lines = (groups + 7) / 8 + 1;
  std::vector<CounterLine> check_groups(T * row_lines);
  // Task t's counter of group g in `lines` (check_groups' rows).
  const auto counter_of = [](CounterLine* lines, std::size_t row_lines, std::size_t t, std::uint64_t g) -> std::uint64_t& {
    return lines[t * row_lines + g / 8].count[g % 8];
  };
  auto group_count = [&](std::size_t t, std::uint64_t g) -> std::uint64_t& { return counter_of(check_groups.data(), row_lines, t, g); };
  // From the second run on, the grid takes its staged entries from the check: for each record it
  // keeps, the check's task writes the entry (bucket, grid record: 8 or 12 bytes) and the group, in
  // input order from the start of its range of the run (a halved grid's entries packed), and
  // staging only moves them to their groups. (Staging that decoded, bucketed and looked up every
  // record again cost ~6 ns of CPU a record more: rmat22 bfs at 256M, docs/performance.md, session
  // 41; for 8-byte grid records, which read the weights, since session 54: rmat22 sssp at 256M,
  // CPU 8.67 -> 8.17 s.) Such a run's entries all go straight to their groups' buffers, a buffer
  // flushed first when they would not fit it (and when a group's share is larger than a whole
  // buffer, one task moves them all in order, flushing as it goes), so the run needs no copy by
  // group: the entries and groups take run_staged's room instead (the memory plan counts the
  // larger of the two).
  const std::uint64_t run_records = std::max<std::uint64_t>(plan_.io.read_chunk, graph_.framed() ? graph_.frame_bytes : 0) / rs;
  const bool fused = groups <= std::uint64_t{UINT16_MAX} + 1;
  const std::uint64_t entries_room = run_records * (staged_record + 2);  // a run's entries, then their groups
  if (fused) run_staged.reserve(entries_room);  // the first run's copy by group, then the check's entries
  std::byte* check_entries = nullptr;  // where the check of this run writes them, staged_record bytes each (null: it does not)
  std::byte* check_entry_groups = nullptr;  // ... and their groups, 2 bytes each
  std::vector<TaskCursor> entry_end(T);  // task t's next entry of this run; after the check, the end of its entries
  // Before each run's check: where its entries go, and the check's visitor of the records the grid
  // keeps (its values captured by value: read through references, they were loaded again for every
  // record, the entries' stores may alias them).
  // (The layout a template argument: check_count_and is instantiated for each.)
  auto on_run_as = [&]<GridLayout kLayout>(std::size_t records) {
    constexpr std::size_t kStaged = kLayout == GridLayout::kLocal4 ? 8 : 12;  // staged_record
    check_entries = nullptr;
    check_entry_groups = nullptr;
    if (fused && grouped && records <= run_records) {  // (a longer run than the reader's chunk: not expected)
      if (run_staged.size() < entries_room) run_staged.resize(entries_room);
      check_entries = run_staged.data();
      check_entry_groups = run_staged.data() + run_records * kStaged;
      for (std::size_t t = 0; t < T; ++t) entry_end[t].next = records * t / T;  // the start of task t's range
    }
    // (Always inlined into the check's loop: gcc otherwise calls it for every record.)
    return [counting = grouped, group_index = group_of.data(), lines = check_groups.data(), row_lines, entries = check_entries,
            entry_groups = check_entry_groups, cursor = entry_end.data(), counter_of,
            local_mask](std::size_t t, const Edge& e, std::uint64_t b) __attribute__((always_inline)) {
      if (!counting) return;
      const std::uint32_t g = group_index[b];
      ++counter_of(lines, row_lines, t, g);
      if (entries != nullptr) {
        const std::uint64_t i = cursor[t].next++;
        const auto bucket = static_cast<std::uint32_t>(b);
        const auto group = static_cast<std::uint16_t>(g);
        std::memcpy(entries + i * kStaged, &bucket, 4);
        encode_grid_record<kLayout>(entries + i * kStaged + 4, e, local_mask);
        std::memcpy(entry_groups + i * 2, &group, 2);
      }
    };
  };
  auto on_run4 = [&](std::size_t records) { return on_run_as.template operator()<GridLayout::kLocal4>(records); };
  auto on_run8 = [&](std::size_t records) { return on_run_as.template operator()<GridLayout::kLocal8>(records); };
  auto stage = [&](std::span<const std::byte> run, std::uint64_t, const std::vector<std::vector<std::uint64_t>>& counts) -> Status {
    const std::size_t m = run.size() / rs;
    const bool counted = grouped;  // the check of this run counted its groups
    const bool from_check = check_entries != nullptr;  // ... and wrote its staged entries
    if (!grouped) {  // the first run's counts estimate each bucket's share: equal shares per group
      std::uint64_t sample = 0;
      for (std::size_t t = 0; t < T; ++t) sample += std::accumulate(counts[t].begin(), counts[t].end(), std::uint64_t{0});
      std::uint64_t so_far = 0;
      for (std::size_t i = 0; i < order.size(); ++i) {
        const std::uint32_t b = order[i];
        group_of[b] = static_cast<std::uint32_t>(std::min<std::uint64_t>(groups - 1, so_far * groups / std::max<std::uint64_t>(sample, 1)));
        group_first[group_of[b] + 1] = i + 1;  // groups are increasing along the order
        for (std::size_t t = 0; t < T; ++t) so_far += counts[t][b];
      }
      for (std::uint64_t g = 1; g <= groups; ++g) group_first[g] = std::max(group_first[g], group_first[g - 1]);  // empty groups
      for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = static_cast<std::uint32_t>(i - group_first[group_of[order[i]]]);
      grouped = true;
    }
    // The run as staged entries sorted by group (a parallel counting sort: each task counts its
    // range's entries per group, then writes them after the earlier tasks' entries of that group;
    // input order kept within a group), then each group's slice appended to its buffer. (From
    // the check's entries: each task moves its range's, which the check's task of the same range
    // counted.)
    if (!from_check) run_staged.resize(m * staged_record);
    if (counted) {
      for (std::size_t t = 0; t < T; ++t) {
        for (std::uint64_t g = 0; g < groups; ++g) {
          run_groups[t * groups + g] = std::exchange(group_count(t, g), 0);
        }
      }
    } else {
      pool_->run(T, [&](std::size_t t, unsigned) {
        std::vector<std::uint64_t> count(groups, 0);  // the task's own (the tasks' rows share cache lines)
        const std::uint32_t* group_index = group_of.data();
        for (std::size_t i = m * t / T; i < m * (t + 1) / T; ++i) {
          const Edge e = decode_edge(run.data() + i * rs, type);
          if (halved && e.src > e.dst) continue;  // not in a halved grid
          ++count[group_index[bucket_of(e.src, e.dst)]];
        }
        std::copy(count.begin(), count.end(), run_groups.begin() + static_cast<std::ptrdiff_t>(t * groups));
      });
    }
    std::uint64_t place = 0;  // run_groups[t * groups + g]: where task t's first entry of group g goes
    for (std::uint64_t g = 0; g < groups; ++g) {
      slice_begin[g] = place;
      for (std::size_t t = 0; t < T; ++t) {
        const std::uint64_t count = run_groups[t * groups + g];
        run_groups[t * groups + g] = place;
        place += count;
      }
    }
    slice_begin[groups] = place;
    if (from_check) {  // every group's entries go to its buffer: flushed first where they would not fit
      stats_.grid_staged_from_check += place;
      bool oversized = false;  // a group's share larger than its buffer (rare: the groups share the records evenly)
      for (std::uint64_t g = 0; g < groups; ++g) oversized |= (slice_begin[g + 1] - slice_begin[g]) * staged_record > block;
      if (oversized) {  // one task, in input order (the tasks' ranges in turn), flushing each buffer when full
        ++stats_.grid_runs_staged_serially;
        for (std::size_t t = 0; t < T; ++t) {
          for (std::uint64_t i = m * t / T; i < entry_end[t].next; ++i) {
            std::uint16_t g;
            std::memcpy(&g, check_entry_groups + i * 2, 2);
            std::memcpy(buffers + g * block + group[g].filled, check_entries + i * staged_record, staged_record);
            group[g].filled += staged_record;
            ++group[g].staged;
            if (group[g].filled == block) ES_RETURN_IF_ERROR(flush(g, g % flushers));  // (the group's staging task's output blocks)
          }
        }
        return Status::ok();
      }
      pool_->run(flushers, [&](std::size_t t, unsigned) {
        for (std::uint64_t g = t; g < groups && errors[t].is_ok(); g += flushers) {
          if (group[g].filled + (slice_begin[g + 1] - slice_begin[g]) * staged_record > block) errors[t] = flush(g, t);
        }
      });
      for (const Status& error : errors) ES_RETURN_IF_ERROR(error);
    }
    // A group whose share of the run fits its buffer's free room gets its entries written there
    // directly (the common case: a run's share is a fraction of a block); the others go through
    // run_staged and are appended below, flushing full buffers on the way.
    for (std::uint64_t g = 0; g < groups; ++g) {
      direct[g] = group[g].filled + (slice_begin[g + 1] - slice_begin[g]) * staged_record <= block ? 1 : 0;
      into[g] = direct[g] != 0 ? buffers + g * block + group[g].filled : run_staged.data() + slice_begin[g] * staged_record;
    }
    auto encode = [&]<GridLayout kLayout, std::size_t kInput>(std::size_t t) {
      constexpr std::size_t kStaged = kLayout == GridLayout::kLocal4 ? 8 : 12;
      std::vector<std::byte*> next_of(groups);  // where the task's next entry of each group goes
      for (std::uint64_t g = 0; g < groups; ++g) next_of[g] = into[g] + (run_groups[t * groups + g] - slice_begin[g]) * kStaged;
      // Copies in this frame: the entries' stores (std::byte: they may alias anything) would
      // otherwise make the loop read the captured values, the vector's array among them, again
      // for every record.
      std::byte** const next = next_of.data();
      const std::uint32_t* const group_index = group_of.data();
      const std::byte* const input = run.data();
      const EdgeFileType input_type = type;
      const GridBucketing bucket = bucket_of;
      const std::uint32_t mask = local_mask;
      const bool drop_reversed = halved;
      const std::size_t end = m * (t + 1) / T;
      if (from_check) {  // the check's entries: task t's of the check (which counted them) from the start of its range
        const std::byte* const entries = check_entries;
        const std::byte* const entry_groups = check_entry_groups;
        const std::uint64_t entries_end = entry_end[t].next;
        for (std::size_t i = m * t / T; i < entries_end; ++i) {
          std::uint16_t g;
          std::memcpy(&g, entry_groups + i * 2, 2);
          std::byte*& at = next[g];
          std::memcpy(at, entries + i * kStaged, kStaged);
          at += kStaged;
        }
        return;
      }
      for (std::size_t i = m * t / T; i < end; ++i) {
        const Edge e = decode_edge(input + i * kInput, input_type);
        if (drop_reversed && e.src > e.dst) continue;  // not in a halved grid
        const auto b = static_cast<std::uint32_t>(bucket(e.src, e.dst));
        std::byte*& at = next[group_index[b]];
        std::byte* to = at;
        at += kStaged;
        std::memcpy(to, &b, 4);
        encode_grid_record<kLayout>(to + 4, e, mask);
      }
    };
    pool_->run(T, [&](std::size_t t, unsigned) {
      if (!local4) return encode.template operator()<GridLayout::kLocal8, 12>(t);  // weights: 12-byte input
      rs == 12 ? encode.template operator()<GridLayout::kLocal4, 12>(t) : encode.template operator()<GridLayout::kLocal4, 8>(t);
    });
    // Task t appends the slices of the groups g with g % T == t, flushing each full buffer.
    pool_->run(T, [&](std::size_t t, unsigned) {
      for (std::uint64_t g = t; g < groups; g += T) {
        const std::byte* from = run_staged.data() + slice_begin[g] * staged_record;
        std::uint64_t left = (slice_begin[g + 1] - slice_begin[g]) * staged_record;
        group[g].staged += slice_begin[g + 1] - slice_begin[g];
        if (direct[g] != 0) {  // already in the buffer
          group[g].filled += left;
          left = 0;
          if (group[g].filled == block) {
            errors[t] = flush(g, t);
            if (!errors[t].is_ok()) return;
          }
        }
        while (left > 0) {
          const std::uint64_t bytes = std::min(left, block - group[g].filled);  // block is a multiple of the entry
          std::memcpy(buffers + g * block + group[g].filled, from, bytes);
          group[g].filled += bytes;
          from += bytes;
          left -= bytes;
          if (group[g].filled == block) {
            errors[t] = flush(g, t);
            if (!errors[t].is_ok()) return;
          }
        }
      }
    });
    for (const Status& error : errors) ES_RETURN_IF_ERROR(error);
    return Status::ok();
  };
  {
    const timeline::Span span("check and stage", "setup");
    Status status = local4 ? check_count_and<true>(stage, on_run4) : check_count_and<true>(stage, on_run8);
    for (std::uint64_t g = 0; g < groups && status.is_ok(); ++g) {
      if (group[g].filled > 0) status = flush(g, 0);
    }
    Status written_all = wait_all_writes();  // before the blocks are read back (and on an error, before returning)
    ES_RETURN_IF_ERROR(status);
    ES_RETURN_IF_ERROR(written_all);
  }
  place_counted_buckets(bucket_records);  // every staged record was counted in its block
  bucket_records = {};
  const timeline::Span place_span("place staged", "setup");  // the rest: the slabs filled from the staged blocks
  for (const IoCounters& c : written) stats_.edges_io += c;

  // The grid's records [first[g], end[g]) are group g's (groups are runs of buckets in grid
  // order, so a bucket ends where the next one in that order begins).
  std::vector<std::uint64_t> first(groups, UINT64_MAX);
  std::vector<std::uint64_t> end(groups, 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::uint32_t g = group_of[order[i]];
    first[g] = std::min(first[g], bucket_begin_[order[i]]);
    end[g] = std::max(end[g], i + 1 < order.size() ? bucket_begin_[order[i + 1]] : grid_records_);
  }
  std::vector<std::uint64_t> next;
  std::vector<std::uint8_t> bad(T, 0);
  std::vector<std::uint64_t> group_starts;  // where each group with records begins: the slabs end there when they can
  for (std::uint64_t g = 0; g < groups; ++g) {
    if (group[g].staged > 0) group_starts.push_back(first[g]);
  }
  const std::vector<std::uint64_t> bounds = grid_slab_bounds(group_starts);
  // The staged blocks in the order the slabs take them (each group's blocks, for every slab it has
  // records in), read ahead: up to `ahead` blocks are in flight while one is placed, in the input
  // reader's room (closed by then). With --grid_codec ef, the grid's buffers also have free room
  // (grid_free_room): as many of a slab's blocks as fit there are read into it at once, the first
  // slab's at the start and each next slab's before the slab before it is encoded, so that storage
  // reads them while the cores encode. Each block is
  // read whole by one pread (std::async; run at get() where no thread can be started).
  struct StagedRead {
    std::uint64_t group = 0;
    std::size_t block = 0;  // index among the group's blocks
    std::uint64_t offset = 0;
  };
  std::vector<StagedRead> reads;
  std::vector<std::size_t> slab_reads(bounds.size(), 0);  // slab j's reads: [slab_reads[j], slab_reads[j + 1])
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    slab_reads[j] = reads.size();
    for (std::uint64_t g = 0; g < groups; ++g) {
      if (group[g].staged == 0 || end[g] <= bounds[j] || first[g] >= bounds[j + 1]) continue;  // nothing of g in this slab
      std::uint64_t offset = 0;
      for (std::size_t k = 0; k < block_bytes[g].size(); offset += block_bytes[g][k++]) reads.push_back(StagedRead{g, k, offset});
    }
  }
  slab_reads.back() = reads.size();
  const std::size_t ahead = std::clamp<std::size_t>(plan_.reader_bytes / out_capacity, 1, kStagedReadAhead);
  std::vector<AlignedBuffer> in;  // declared before the reads in flight: their destructors wait for them first
  for (std::size_t q = 0; q < ahead; ++q) in.emplace_back(out_capacity);
  std::vector<std::byte*> read_into(reads.size(), nullptr);  // where read i lands, once started
  std::vector<std::future<Expected<std::size_t>>> in_flight(reads.size());
  auto start_read = [&](std::size_t i, std::byte* into_bytes) {
    if (i >= reads.size() || read_into[i] != nullptr) return;  // none, or already in flight
    const StagedRead r = reads[i];
    const File* file = &files[r.group];
    const std::span<std::byte> into(into_bytes, block_bytes[r.group][r.block]);
    read_into[i] = into_bytes;
    in_flight[i] = std::async(std::launch::async | std::launch::deferred, [file, r, into] { return file->read_at(r.offset, into); });
  };
  // Read i in the reader's room, buffer i % ahead: free once read i - ahead is placed (reads are
  // placed in order; those in between were placed or are in the grid's room).
  auto start_ring_read = [&](std::size_t i) { start_read(i, in[i % ahead].data()); };
  // Slab j's blocks not yet in flight, as many as fit, in the grid's free room (grid_free_room:
  // written by nothing until slab j is placed).
  auto start_grid_room_reads = [&](std::size_t j) {
    if (j + 1 >= bounds.size()) return;
    std::span<std::byte> room = grid_free_room();
    const std::size_t stop = std::min(slab_reads[j + 1], slab_reads[j] + kStagedGridRoomReads);
    for (std::size_t i = slab_reads[j]; i < stop; ++i) {
      if (read_into[i] != nullptr) continue;
      const std::uint64_t bytes = block_bytes[reads[i].group][reads[i].block];  // whole pages
      if (bytes > room.size()) break;
      start_read(i, room.data());
      room = room.subspan(bytes);
    }
  };
  for (std::size_t i = 0; i < ahead; ++i) start_ring_read(i);
  start_grid_room_reads(0);
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    if (cancel_requested()) return cancelled();
    const std::uint64_t lo = bounds[j];
    const std::uint64_t slab = bounds[j + 1] - lo;
    ES_ASSIGN_OR_RETURN(std::byte* const out, grid_slab_buffer(slab));
    for (std::size_t ri = slab_reads[j]; ri < slab_reads[j + 1]; ++ri) {
      const std::uint64_t g = reads[ri].group;
      const std::size_t k = reads[ri].block;
      const std::uint64_t offset = reads[ri].offset;
      if (ri == slab_reads[j] || reads[ri - 1].group != g) next = bucket_begin_;  // the scan below counts g's buckets from their first place
      const std::span<std::byte> into(read_into[ri], block_bytes[g][k]);
      auto damaged = [&](const std::string& what) {
        return corruption("edge grid staging file " + files[g].path() + ": " + what + " at byte offset " + std::to_string(offset) +
                          " (" + std::to_string(into.size()) + " bytes; damaged scratch data)");
      };
      const auto start = std::chrono::steady_clock::now();  // the wait for the read, not its time in flight
      ES_ASSIGN_OR_RETURN(const std::size_t got, in_flight[ri].get());
      count_request(stats_.edges_io, start, got, 0);
      if (got != into.size()) return damaged("short read");
      if (options_.scratch_checksums && frame_crc(into) != block_crc[g][k]) return damaged("checksum mismatch");
      Expected<StagedBlock> parsed = parse_staged_block(into, grid_rs);
      if (!parsed.has_value()) return damaged(parsed.status().message());
      const StagedBlock staged = *parsed;
      // Task t places the records of its buckets (groups of 8: one cache line of cursors); a
      // bucket of another group is damage only a file without checksums can show.
      auto place = [&]<std::size_t kGrid>(std::size_t t) {
        constexpr std::size_t kStaged = 4 + kGrid;
        std::uint64_t* cursor = next.data();
        const std::uint32_t* group_index = group_of.data();
        const std::uint8_t* owner = place_owner.data();
        auto own = [&](std::uint32_t b) {
          if (b >= buckets || group_index[b] != g) {
            bad[t] = 1;
            return false;
          }
          return owner[b] == t;
        };
        if (staged.kind == StagedBlockKind::kEntries) {
          const std::byte* record = staged.payload;
          for (std::uint64_t i = 0; i < staged.records; ++i, record += kStaged) {
            std::uint32_t b;
            std::memcpy(&b, record, 4);
            if (!own(b)) {
              if (bad[t] != 0) return;
              continue;
            }
            const std::uint64_t at = cursor[b]++ - lo;
            if (at < slab) std::memcpy(out + at * kGrid, record + 4, kGrid);
          }
          return;
        }
        const std::byte* records = staged.payload;
        for (std::uint64_t i = 0; i < staged.runs; ++i) {
          const std::uint32_t b = staged.run_bucket(i);
          const std::uint64_t count = staged.run_count(i);
          if (own(b)) {
            // The run's places [from, from + count) in the grid, cut to this slab's [lo, lo + slab).
            const std::uint64_t from = cursor[b];
            cursor[b] += count;
            const std::uint64_t begin = std::max(from, lo);
            const std::uint64_t stop = std::min(from + count, lo + slab);
            if (begin < stop) std::memcpy(out + (begin - lo) * kGrid, records + (begin - from) * kGrid, (stop - begin) * kGrid);
          } else if (bad[t] != 0) {
            return;
          }
          records += count * kGrid;
        }
      };
      pool_->run(T, [&](std::size_t t, unsigned) {
        local4 ? place.template operator()<4>(t) : place.template operator()<8>(t);
      });
      if (std::count(bad.begin(), bad.end(), 1) > 0) return damaged("a record names a bucket of another group");
      start_ring_read(ri + ahead);  // into the reader's buffer after ri's (if ri was there, just placed from)
    }
    start_grid_room_reads(j + 1);  // read while slab j is encoded
    ES_RETURN_IF_ERROR(write_grid_slab(lo, slab, out));
  }
  // Removing a staging file frees its extents: ~1.2 ms each on ext4 here, 0.15 s for rmat22 sssp's
  // 128 files at 256M, with every core waiting. A thread of its own removes them while the
  // supersteps run (close_run waits for it; where no thread can start, close_run does it).
  staging_removal_ = std::async(std::launch::async | std::launch::deferred, [files = std::move(files)]() mutable {
    for (File& file : files) {
      const std::string path = file.path();
      file.close();
      std::error_code ignored;
      std::filesystem::remove(path, ignored);  // the scratch directory goes at the end of the run anyway
    }
  });
  return Status::ok();
}

void EngineBase::collect_io_counters() {
  stats_.edges_io += edge_read_counters_;
  stats_.updates_io += update_read_counters_;
  for (int set = 0; set < 2; ++set) {
    for (const auto& c : update_counters_[set]) stats_.updates_io += c;
    for (const auto& w : writers_[set]) stats_.updates_codec_io += w->codec_counters();
  }
}

}  // namespace edgestream
