// Checkpoint files: serialisation of the small fields, identity checks, the atomic writer, the
// verifying reader and the per-run schedule (core/checkpoint.hpp, docs/checkpoint.md).
#include "core/checkpoint.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include "compress/crc32.hpp"
#include "io/aligned_buffer.hpp"
#include "io/fault_injection.hpp"

namespace edgestream {
namespace {

constexpr std::array<char, 8> kMagic = {'E', 'S', 'C', 'K', 'P', 'T', '0', '1'};
constexpr std::array<char, 8> kEndMagic = {'E', 'S', 'C', 'K', 'P', 'E', 'N', 'D'};
constexpr std::uint32_t kVersion = 2;  // 2: the identity holds the plan's edge order
constexpr std::uint64_t kHeaderBytes = 32;
constexpr std::uint64_t kTrailerBytes = 16;
constexpr std::uint64_t kMaxMetaBytes = std::uint64_t{1} << 30;  // sanity bound before allocating
constexpr const char* kTempPrefix = "checkpoint.tmp-";

template <typename T>
void store(std::byte* at, const T& value) {
  std::memcpy(at, &value, sizeof(T));
}
template <typename T>
T fetch(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

std::string hex32(std::uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, v);
  return text;
}

Status fsync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_status(errno, "open directory", dir.string());
  Status status;
  const long long result = fault_injection::adjust(fault_injection::Op::kSync, dir.string(), 0, ::fsync(fd) != 0 ? -errno : 0);
  if (result < 0 && result != -EINVAL) status = errno_status(static_cast<int>(-result), "fsync directory", dir.string());
  ::close(fd);
  return status;
}

// Temporary files of checkpoints whose writer is gone (a killed run): removed so they do not pile up.
void remove_stale_temporaries(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kTempPrefix, 0) != 0) continue;
    const std::string pid_text = name.substr(std::string(kTempPrefix).size());
    char* end = nullptr;
    const long pid = std::strtol(pid_text.c_str(), &end, 10);
    if (end == pid_text.c_str() || *end != '\0' || pid <= 0) continue;
    if (pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

}  // namespace

// ---- StateWriter / StateReader ------------------------------------------------------------------

void StateWriter::put_string(const std::string& s) {
  put_bytes(std::span(reinterpret_cast<const std::byte*>(s.data()), s.size()));
}

void StateWriter::put_bytes(std::span<const std::byte> data) {
  put(static_cast<std::uint64_t>(data.size()));
  bytes_.insert(bytes_.end(), data.begin(), data.end());
}

Status StateReader::truncated(std::size_t wanted) const {
  return corruption(what_ + ": its fields end after " + std::to_string(pos_) + " bytes where " + std::to_string(wanted) +
                    " more were expected");
}

Status StateReader::get_string(std::string& s) {
  std::vector<std::byte> data;
  ES_RETURN_IF_ERROR(get_bytes(data));
  s.assign(reinterpret_cast<const char*>(data.data()), data.size());
  return Status::ok();
}

Status StateReader::get_bytes(std::vector<std::byte>& data) {
  std::uint64_t n = 0;
  ES_RETURN_IF_ERROR(get(n));
  if (bytes_.size() - pos_ < n) return truncated(static_cast<std::size_t>(std::min<std::uint64_t>(n, SIZE_MAX)));
  data.assign(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_), bytes_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
  pos_ += n;
  return Status::ok();
}

Status StateReader::expect_end() const {
  if (pos_ == bytes_.size()) return Status::ok();
  return corruption(what_ + ": " + std::to_string(bytes_.size() - pos_) + " unexpected bytes after its fields");
}

// ---- identity -----------------------------------------------------------------------------------

Expected<CheckpointIdentity> CheckpointIdentity::of_run(const GraphInfo& graph, const EngineOptions& options,
                                                        std::size_t vertex_bytes, std::size_t update_bytes) {
  CheckpointIdentity id;
  id.run = options.checkpoint.run_identity;
  id.graph = graph.ini_path.string();
  std::ifstream ini(graph.ini_path, std::ios::binary);
  if (!ini) return errno_status(errno, "read", graph.ini_path.string());
  const std::string text((std::istreambuf_iterator<char>(ini)), std::istreambuf_iterator<char>());
  id.ini_crc = crc32_update(0, std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
  struct stat st {};
  if (::stat(graph.edge_path.c_str(), &st) != 0) return errno_status(errno, "stat", graph.edge_path.string());
  id.edge_file_bytes = static_cast<std::uint64_t>(st.st_size);
  id.edge_file_mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.vertices = graph.vertices;
  id.edges = graph.edges;
  id.record_bytes = static_cast<std::uint32_t>(graph.record_size());
  id.vertex_bytes = static_cast<std::uint32_t>(vertex_bytes);
  id.update_bytes = static_cast<std::uint32_t>(update_bytes);
  id.edges_codec = codec_name(options.edges_codec);
  id.updates_codec = codec_name(options.updates_codec);
  return id;
}

void CheckpointIdentity::set_plan(const MemoryPlan& plan) {
  partitions = plan.partitions;
  partition_size = plan.partition_size;
  threads = plan.threads;
  batch_records = plan.batch_records;
  combiner_slots = plan.combiner_slots;
  read_chunk = plan.io.read_chunk;
  write_chunk = plan.io.write_chunk;
  segment_records = plan.segment_records;
  grid_shift = plan.grid_bytes > 0 ? plan.grid_shift : 0;
  grid_sorted_window = plan.grid_window_bytes > 0 && plan.grid_codec == GridCodec::kEliasFano ? plan.grid_window_bytes : 0;
}

void CheckpointIdentity::save(StateWriter& out) const {
  out.put_string(run);
  out.put_string(graph);
  out.put(ini_crc);
  out.put(edge_file_bytes);
  out.put(edge_file_mtime_ns);
  out.put(vertices);
  out.put(edges);
  out.put(record_bytes);
  out.put(vertex_bytes);
  out.put(update_bytes);
  out.put_string(edges_codec);
  out.put_string(updates_codec);
  for (const std::uint64_t v : {partitions, partition_size, threads, batch_records, combiner_slots, read_chunk, write_chunk,
                                segment_records, grid_shift, grid_sorted_window}) {
    out.put(v);
  }
}

Status CheckpointIdentity::load(StateReader& in) {
  ES_RETURN_IF_ERROR(in.get_string(run));
  ES_RETURN_IF_ERROR(in.get_string(graph));
  ES_RETURN_IF_ERROR(in.get(ini_crc));
  ES_RETURN_IF_ERROR(in.get(edge_file_bytes));
  ES_RETURN_IF_ERROR(in.get(edge_file_mtime_ns));
  ES_RETURN_IF_ERROR(in.get(vertices));
  ES_RETURN_IF_ERROR(in.get(edges));
  ES_RETURN_IF_ERROR(in.get(record_bytes));
  ES_RETURN_IF_ERROR(in.get(vertex_bytes));
  ES_RETURN_IF_ERROR(in.get(update_bytes));
  ES_RETURN_IF_ERROR(in.get_string(edges_codec));
  ES_RETURN_IF_ERROR(in.get_string(updates_codec));
  for (std::uint64_t* v : {&partitions, &partition_size, &threads, &batch_records, &combiner_slots, &read_chunk, &write_chunk,
                           &segment_records, &grid_shift, &grid_sorted_window}) {
    ES_RETURN_IF_ERROR(in.get(*v));
  }
  return Status::ok();
}

Status check_identity(const CheckpointIdentity& saved, const CheckpointIdentity& now, const std::string& file, bool plan) {
  auto refuse = [&](const std::string& what) {
    return invalid_argument("cannot resume from checkpoint " + file + ": " + what);
  };
  if (saved.run != now.run) return refuse("it was written by " + saved.run + ", this run is " + now.run);
  if (saved.ini_crc != now.ini_crc || saved.vertices != now.vertices || saved.edges != now.edges ||
      saved.record_bytes != now.record_bytes) {
    return refuse("it was written for graph " + saved.graph + " (" + std::to_string(saved.vertices) + " vertices, " +
                  std::to_string(saved.edges) + " edges, .ini crc32 " + hex32(saved.ini_crc) + "), this run's graph " +
                  now.graph + " differs (" + std::to_string(now.vertices) + " vertices, " + std::to_string(now.edges) +
                  " edges, .ini crc32 " + hex32(now.ini_crc) + ")");
  }
  if (saved.edge_file_bytes != now.edge_file_bytes || saved.edge_file_mtime_ns != now.edge_file_mtime_ns) {
    return refuse("the edge file of " + now.graph + " changed since the checkpoint was written (size " +
                  std::to_string(saved.edge_file_bytes) + " -> " + std::to_string(now.edge_file_bytes) +
                  ", modification time " + std::to_string(saved.edge_file_mtime_ns) + " -> " +
                  std::to_string(now.edge_file_mtime_ns) + " ns)");
  }
  if (saved.vertex_bytes != now.vertex_bytes || saved.update_bytes != now.update_bytes) {
    return refuse("its vertex/update records are " + std::to_string(saved.vertex_bytes) + "/" +
                  std::to_string(saved.update_bytes) + " bytes, this build's are " + std::to_string(now.vertex_bytes) + "/" +
                  std::to_string(now.update_bytes) + " (another build or algorithm variant)");
  }
  if (saved.edges_codec != now.edges_codec || saved.updates_codec != now.updates_codec) {
    return refuse("it was written with --edges_codec " + saved.edges_codec + " --updates_codec " + saved.updates_codec +
                  ", this run uses " + now.edges_codec + " and " + now.updates_codec);
  }
  if (!plan) return Status::ok();
  const std::pair<const char*, std::pair<std::uint64_t, std::uint64_t>> fields[] = {
      {"threads (-p)", {saved.threads, now.threads}},
      {"streaming partitions", {saved.partitions, now.partitions}},
      {"vertices per partition", {saved.partition_size, now.partition_size}},
      {"batch records", {saved.batch_records, now.batch_records}},
      {"combiner slots", {saved.combiner_slots, now.combiner_slots}},
      {"read request bytes", {saved.read_chunk, now.read_chunk}},
      {"write request bytes", {saved.write_chunk, now.write_chunk}},
      {"records per keyed segment", {saved.segment_records, now.segment_records}},
      {"edge grid block shift (0: no grid)", {saved.grid_shift, now.grid_shift}},
      {"sorted (Elias-Fano) grid window bytes (0: unsorted)", {saved.grid_sorted_window, now.grid_sorted_window}},
  };
  for (const auto& [name, values] : fields) {
    if (values.first != values.second) {
      return refuse(std::string("the memory plan differs: ") + name + " " + std::to_string(values.first) +
                    " in the checkpoint, " + std::to_string(values.second) +
                    " now (an exact resume needs the same plan: give the same -p, -k, --physical_memory, "
                    "--read_chunk/--write_chunk and grid and segment options as the checkpointed run)");
    }
  }
  return Status::ok();
}

void save_progress(const RunStats& stats, StateWriter& out) {
  out.put(stats.supersteps);
  out.put(stats.updates_emitted);
  out.put(stats.updates_in_memory);
  out.put(stats.updates_spilled);
  out.put(static_cast<std::uint64_t>(stats.per_superstep.size()));
  for (const SuperstepStats& s : stats.per_superstep) {
    out.put(s.superstep);
    out.put(s.emitted);
    out.put(s.in_memory);
    out.put(s.spilled);
    out.put(s.changed);
    out.put(s.active);
  }
}

Status load_progress(StateReader& in, RunStats& stats) {
  ES_RETURN_IF_ERROR(in.get(stats.supersteps));
  ES_RETURN_IF_ERROR(in.get(stats.updates_emitted));
  ES_RETURN_IF_ERROR(in.get(stats.updates_in_memory));
  ES_RETURN_IF_ERROR(in.get(stats.updates_spilled));
  std::uint64_t n = 0;
  ES_RETURN_IF_ERROR(in.get(n));
  if (n != stats.supersteps) {
    return corruption(in.what() + ": " + std::to_string(n) + " per-superstep records for " +
                      std::to_string(stats.supersteps) + " supersteps");
  }
  stats.per_superstep.clear();
  for (std::uint64_t i = 0; i < n; ++i) {
    SuperstepStats s;
    ES_RETURN_IF_ERROR(in.get(s.superstep));
    ES_RETURN_IF_ERROR(in.get(s.emitted));
    ES_RETURN_IF_ERROR(in.get(s.in_memory));
    ES_RETURN_IF_ERROR(in.get(s.spilled));
    ES_RETURN_IF_ERROR(in.get(s.changed));
    ES_RETURN_IF_ERROR(in.get(s.active));
    stats.per_superstep.push_back(s);
  }
  return in.expect_end();
}

// ---- CheckpointFileWriter -----------------------------------------------------------------------

CheckpointFileWriter::CheckpointFileWriter(CheckpointFileWriter&& other) noexcept { *this = std::move(other); }

CheckpointFileWriter& CheckpointFileWriter::operator=(CheckpointFileWriter&& other) noexcept {
  if (this != &other) {
    if (open_) remove_temporary();
    dir_ = std::move(other.dir_);
    temp_ = std::move(other.temp_);
    file_ = std::move(other.file_);
    offset_ = other.offset_;
    state_end_ = other.state_end_;
    synced_ = other.synced_;
    crc_ = other.crc_;
    open_ = std::exchange(other.open_, false);
    renamed_ = other.renamed_;
  }
  return *this;
}

CheckpointFileWriter::~CheckpointFileWriter() {
  if (open_) remove_temporary();
}

void CheckpointFileWriter::remove_temporary() {
  file_.close();
  std::error_code ec;
  std::filesystem::remove(temp_, ec);
  open_ = false;
}

Expected<CheckpointFileWriter> CheckpointFileWriter::begin(const std::filesystem::path& dir, std::uint64_t state_bytes) {
  CheckpointFileWriter w;
  w.dir_ = dir;
  w.temp_ = dir / (kTempPrefix + std::to_string(::getpid()));
  ES_ASSIGN_OR_RETURN(w.file_, File::open(w.temp_, OpenMode::kCreate, /*direct=*/false));
  w.open_ = true;
  // The header is written by commit(), once the fields are known: until then the file is no checkpoint.
  w.offset_ = kHeaderBytes;
  w.synced_ = kHeaderBytes;
  w.state_end_ = kHeaderBytes + state_bytes;
  return w;
}

Status CheckpointFileWriter::append(std::span<const std::byte> states) {
  if (!open_) return internal_error("checkpoint " + temp_.string() + ": append after commit");
  if (states.size() > state_end_ - offset_) {
    return internal_error("checkpoint " + temp_.string() + ": more vertex state than announced");
  }
  ES_RETURN_IF_ERROR(file_.write_at(offset_, states));
  crc_ = crc32_update(crc_, states);
  offset_ += states.size();
  // Start write-back now so that commit's fdatasync has little left to wait for.
  if (offset_ - synced_ >= (std::uint64_t{8} << 20)) {
    ::sync_file_range(file_.fd(), static_cast<off64_t>(synced_), static_cast<off64_t>(offset_ - synced_),
                      SYNC_FILE_RANGE_WRITE);
    synced_ = offset_;
  }
  return Status::ok();
}

Status CheckpointFileWriter::commit(std::span<const std::byte> meta) {
  if (!open_) return internal_error("checkpoint " + temp_.string() + ": committed twice");
  if (offset_ != state_end_) {
    const std::uint64_t missing = state_end_ - offset_;
    remove_temporary();
    return internal_error("checkpoint " + temp_.string() + ": " + std::to_string(missing) +
                          " bytes of vertex state missing at commit");
  }
  std::array<std::byte, kHeaderBytes> head{};
  std::memcpy(head.data(), kMagic.data(), kMagic.size());
  store(head.data() + 8, kVersion);
  store(head.data() + 16, state_end_ - kHeaderBytes);
  store(head.data() + 24, static_cast<std::uint64_t>(meta.size()));
  // crc32(header | state | meta) from the pieces' checksums.
  std::uint32_t crc = crc32_update(0, head);
  crc = static_cast<std::uint32_t>(::crc32_combine(crc, crc_, static_cast<z_off_t>(state_end_ - kHeaderBytes)));
  crc = crc32_update(crc, meta);
  std::vector<std::byte> tail(meta.size() + kTrailerBytes);
  if (!meta.empty()) std::memcpy(tail.data(), meta.data(), meta.size());
  std::memcpy(tail.data() + meta.size(), kEndMagic.data(), kEndMagic.size());
  store(tail.data() + meta.size() + 8, crc);
  store(tail.data() + meta.size() + 12, std::uint32_t{0});
  ES_RETURN_IF_ERROR(file_.write_at(offset_, tail));
  offset_ += tail.size();
  ES_RETURN_IF_ERROR(file_.write_at(0, head));
  ES_RETURN_IF_ERROR(file_.sync());
  // The pages are on the device: drop them from the page cache (a checkpoint is read only to resume).
  ::posix_fadvise(file_.fd(), 0, 0, POSIX_FADV_DONTNEED);
  file_.close();
  const std::filesystem::path target = dir_ / kCheckpointFileName;
  // An injected rename failure is decided before renaming, so that it leaves the files as a real one.
  long long renamed = fault_injection::adjust(fault_injection::Op::kRename, temp_.string(), 0, 0);
  if (renamed == 0 && ::rename(temp_.c_str(), target.c_str()) != 0) renamed = -errno;
  if (renamed < 0) {
    remove_temporary();
    return errno_status(static_cast<int>(-renamed), "rename " + temp_.string() + " to", target.string());
  }
  open_ = false;
  renamed_ = true;
  return fsync_directory(dir_);
}

void CheckpointFileWriter::abandon_like_a_crash() {
  file_.close();
  open_ = false;
}

// ---- CheckpointFileReader -----------------------------------------------------------------------

Expected<CheckpointFileReader> CheckpointFileReader::open(const std::filesystem::path& dir) {
  CheckpointFileReader r;
  const std::filesystem::path path = dir / kCheckpointFileName;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return not_found("--resume: checkpoint directory " + dir.string() + " does not exist");
  if (!std::filesystem::exists(path, ec)) {
    return not_found("--resume: no checkpoint in " + dir.string() + " (" + path.string() +
                     " is missing: the run was killed before its first checkpoint was complete?)");
  }
  ES_ASSIGN_OR_RETURN(r.file_, File::open(path, OpenMode::kReadOnly, /*direct=*/false));
  const std::string name = "checkpoint " + path.string();
  ES_ASSIGN_OR_RETURN(const std::uint64_t size, r.file_.size());
  if (size < kHeaderBytes + kTrailerBytes) {
    return corruption(name + " is truncated: " + std::to_string(size) + " bytes, less than a header and a trailer");
  }
  std::array<std::byte, kHeaderBytes> head{};
  ES_ASSIGN_OR_RETURN(const std::size_t got, r.file_.read_at(0, head));
  if (got != head.size()) return corruption(name + " is truncated in its header");
  if (std::memcmp(head.data(), kMagic.data(), kMagic.size()) != 0) {
    return corruption(name + " is not an EdgeStream checkpoint (bad magic at offset 0)");
  }
  const auto version = fetch<std::uint32_t>(head.data() + 8);
  if (version != kVersion) {
    return corruption(name + " has format version " + std::to_string(version) + ", this build reads version " +
                      std::to_string(kVersion));
  }
  const auto state_bytes = fetch<std::uint64_t>(head.data() + 16);
  const auto meta_bytes = fetch<std::uint64_t>(head.data() + 24);
  if (meta_bytes > kMaxMetaBytes || state_bytes > size ||
      size != kHeaderBytes + meta_bytes + state_bytes + kTrailerBytes) {
    return corruption(name + " is truncated or damaged: " + std::to_string(size) + " bytes, its header announces " +
                      std::to_string(kHeaderBytes) + " + " + std::to_string(state_bytes) + " + " +
                      std::to_string(meta_bytes) + " + " + std::to_string(kTrailerBytes));
  }
  // One sequential pass over everything but the trailer: the checksum.
  std::uint32_t crc = 0;
  {
    AlignedBuffer buffer(std::size_t{1} << 20);
    const std::uint64_t end = size - kTrailerBytes;
    for (std::uint64_t offset = 0; offset < end;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - offset));
      ES_ASSIGN_OR_RETURN(const std::size_t read, r.file_.read_at(offset, std::span(buffer.data(), n)));
      if (read != n) return corruption(name + " is truncated at offset " + std::to_string(offset + read));
      crc = crc32_update(crc, std::span<const std::byte>(buffer.data(), n));
      offset += n;
    }
  }
  std::array<std::byte, kTrailerBytes> trailer{};
  ES_ASSIGN_OR_RETURN(const std::size_t tail, r.file_.read_at(size - kTrailerBytes, trailer));
  if (tail != trailer.size() || std::memcmp(trailer.data(), kEndMagic.data(), kEndMagic.size()) != 0) {
    return corruption(name + " is damaged: no end marker at offset " + std::to_string(size - kTrailerBytes));
  }
  const auto stored = fetch<std::uint32_t>(trailer.data() + 8);
  if (stored != crc) {
    return corruption(name + " is corrupt: checksum " + hex32(crc) + " over bytes 0.." + std::to_string(size - kTrailerBytes) +
                      " does not match the stored " + hex32(stored));
  }
  r.meta_.resize(meta_bytes);
  ES_ASSIGN_OR_RETURN(const std::size_t meta_read, r.file_.read_at(kHeaderBytes + state_bytes, r.meta_));
  if (meta_read != meta_bytes) return corruption(name + " is truncated in its fields");
  r.state_offset_ = kHeaderBytes;
  r.state_bytes_ = state_bytes;
  return r;
}

Status CheckpointFileReader::read_state(std::uint64_t offset, std::span<std::byte> out) const {
  if (offset > state_bytes_ || out.size() > state_bytes_ - offset) {
    return internal_error("checkpoint " + file_.path() + ": vertex state read past its end");
  }
  ES_ASSIGN_OR_RETURN(const std::size_t n, file_.read_at(state_offset_ + offset, out));
  if (n != out.size()) return corruption("checkpoint " + file_.path() + " shrank while it was read");
  return Status::ok();
}

// ---- CheckpointSession --------------------------------------------------------------------------

Expected<std::unique_ptr<CheckpointSession>> CheckpointSession::start(const CheckpointOptions& options, CheckpointIdentity now,
                                                                      EngineOptions& engine) {
  auto session = std::make_unique<CheckpointSession>();
  session->counters_.enabled = true;
  session->options_ = options;
  if (session->options_.writes() && session->options_.every == 0 && session->options_.seconds <= 0) {
    session->options_.seconds = kDefaultCheckpointSeconds;
  }
  session->identity_ = std::move(now);
  session->last_time_ = std::chrono::steady_clock::now();
  if (options.resumes()) {
    ES_ASSIGN_OR_RETURN(CheckpointFileReader reader, CheckpointFileReader::open(options.resume));
    session->reader_ = std::make_unique<CheckpointFileReader>(std::move(reader));
    const std::string file = session->reader_->path();
    StateReader in(session->reader_->meta(), "checkpoint " + file);
    ES_RETURN_IF_ERROR(session->saved_.load(in));
    std::uint32_t superstep = 0;
    ES_RETURN_IF_ERROR(in.get(superstep));
    ES_RETURN_IF_ERROR(in.get_bytes(session->resumed_program_));
    ES_RETURN_IF_ERROR(in.get_bytes(session->resumed_progress_));
    ES_RETURN_IF_ERROR(in.get(session->resumed_changed_));
    ES_RETURN_IF_ERROR(in.expect_end());
    ES_RETURN_IF_ERROR(check_identity(session->saved_, session->identity_, file, /*plan=*/false));
    if (superstep == 0 || session->reader_->state_bytes() != session->saved_.vertices * session->saved_.vertex_bytes) {
      return corruption("checkpoint " + file + " is inconsistent: superstep " + std::to_string(superstep) + ", " +
                        std::to_string(session->reader_->state_bytes()) + " bytes of vertex state for " +
                        std::to_string(session->saved_.vertices) + " vertices");
    }
    session->first_superstep_ = superstep;
    session->last_superstep_ = superstep;
    session->counters_.resumed_from = superstep;
    if (engine.forced_partitions != 0 && engine.forced_partitions != session->saved_.partitions) {
      return invalid_argument("cannot resume from checkpoint " + file + ": it was written with " +
                              std::to_string(session->saved_.partitions) + " streaming partitions, this run asks for -k " +
                              std::to_string(engine.forced_partitions));
    }
    engine.forced_partitions = session->saved_.partitions;
    engine.batch_records = session->saved_.batch_records;
    engine.io.read_chunk = session->saved_.read_chunk;
    engine.io.write_chunk = session->saved_.write_chunk;
  }
  if (options.writes()) {
    std::error_code ec;
    std::filesystem::create_directories(options.dir, ec);
    if (ec || !std::filesystem::is_directory(options.dir)) {
      return errno_status(ec ? ec.value() : ENOTDIR, "create --checkpoint directory", options.dir.string());
    }
    if (::access(options.dir.c_str(), W_OK) != 0) return errno_status(errno, "write to --checkpoint directory", options.dir.string());
    remove_stale_temporaries(options.dir);
  }
  return session;
}

Status CheckpointSession::check_plan(const MemoryPlan& plan) {
  identity_.set_plan(plan);
  if (resuming()) return check_identity(saved_, identity_, reader_->path(), /*plan=*/true);
  return Status::ok();
}

std::string CheckpointSession::resumed_file() const { return reader_ ? reader_->path() : options_.resume.string(); }

Status CheckpointSession::read_state(std::uint64_t first_vertex, std::span<std::byte> out) const {
  if (!reader_) return internal_error("checkpoint state read after the resumed superstep");
  return reader_->read_state(first_vertex * identity_.vertex_bytes, out);
}

bool CheckpointSession::due(std::uint32_t superstep) const {
  if (!options_.writes() || superstep == 0 || superstep <= last_superstep_) return false;
  if (options_.every > 0 && superstep - last_superstep_ >= options_.every) return true;
  if (options_.seconds > 0) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_time_).count();
    if (elapsed >= options_.seconds) return true;
  }
  return false;
}

Status CheckpointSession::failed(Status status) {
  if (status.is_ok()) return status;
  // A stop request and a bug end the run; a checkpoint the storage refused does not.
  if (status.code() == StatusCode::kCancelled || status.code() == StatusCode::kInternal) return status;
  const bool renamed = writer_ && writer_->renamed();
  writer_.reset();  // removes the temporary file (unless it was renamed)
  ++counters_.failed;
  const std::filesystem::path target = options_.dir / kCheckpointFileName;
  std::string previous;
  if (renamed) {
    previous = "it is in place as " + target.string() + " but may not survive a power loss";
  } else if (last_committed_ != 0) {
    previous = "the previous checkpoint " + target.string() + " (before superstep " + std::to_string(last_committed_) +
               ") stays valid";
  } else {
    std::error_code ec;
    previous = std::filesystem::exists(target, ec) ? "the checkpoint already in " + target.string() + " is left as it was"
                                                   : "there is no checkpoint to resume from yet";
  }
  std::cerr << "warning: checkpoint before superstep " << superstep_ << " failed: " << status.message()
            << "; the run goes on without it (" << previous << ")" << std::endl;
  return Status::ok();
}

Status CheckpointSession::begin(std::uint32_t superstep, std::vector<std::byte> program, std::vector<std::byte> progress) {
  begin_time_ = std::chrono::steady_clock::now();
  superstep_ = superstep;
  last_superstep_ = superstep;  // a failed checkpoint is not retried before the next one is due
  program_ = std::move(program);
  progress_ = std::move(progress);
  auto writer = CheckpointFileWriter::begin(options_.dir, identity_.vertices * identity_.vertex_bytes);
  Status status = writer.status();
  if (writer) writer_ = std::make_unique<CheckpointFileWriter>(std::move(*writer));
  counters_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_time_).count();
  return failed(std::move(status));
}

Status CheckpointSession::add_state(std::span<const std::byte> states) {
  if (!writer_) return Status::ok();  // this checkpoint failed (warned once)
  const auto start = std::chrono::steady_clock::now();
  Status status = writer_->append(states);
  counters_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return failed(std::move(status));
}

Status CheckpointSession::commit(std::uint64_t changed) {
  if (!writer_) {  // this checkpoint failed (warned once)
    last_time_ = begin_time_;
    return Status::ok();
  }
  const auto start = std::chrono::steady_clock::now();
  StateWriter meta;
  identity_.save(meta);
  meta.put(superstep_);
  meta.put_bytes(program_);
  meta.put_bytes(progress_);
  meta.put(changed);
  Status status = writer_->commit(meta.bytes());
  if (status.is_ok()) {
    ++counters_.written;
    counters_.bytes += writer_->bytes();
    last_committed_ = superstep_;
  }
  status = failed(std::move(status));
  writer_.reset();
  const auto now = std::chrono::steady_clock::now();
  counters_.seconds += std::chrono::duration<double>(now - start).count();
  // The interval runs from the moment this checkpoint's state was taken.
  last_time_ = begin_time_;
  return status;
}

}  // namespace edgestream
