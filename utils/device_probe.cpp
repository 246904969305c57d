// Device probe: a sequential read/write bandwidth matrix over request sizes × queue depths with
// direct I/O through io_uring (File + UringQueue + AlignedBuffer), bounded time per cell.
#include "utils/device_probe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <iomanip>
#include <sstream>

#include "io/aligned_buffer.hpp"
#include "io/block_device.hpp"
#include "io/file.hpp"
#include "io/io_options.hpp"
#include "io/uring_queue.hpp"

namespace edgestream {

namespace {

using Clock = std::chrono::steady_clock;

// Unescapes the octal escapes (\040 for space) of /proc/self/mountinfo fields.
std::string unescape_mount_field(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (std::all_of(oct.begin(), oct.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out.push_back(static_cast<char>(std::stoi(oct, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// One cell: keeps `depth` requests of `size` bytes in flight over the file, sequentially from
// `start` (wrapping at `span`), until `seconds` have passed; then drains. Buffered writes are
// followed by fdatasync inside the timed region so that the page cache does not flatter them.
Expected<ProbeCell> run_cell(const File& file, bool is_write, std::uint64_t size, unsigned depth, std::uint64_t span,
                             double seconds, bool use_uring, std::vector<AlignedBuffer>& buffers) {
  ProbeCell cell;
  cell.op = is_write ? "write" : "read";
  cell.request_bytes = size;
  cell.queue_depth = depth;
  const std::uint64_t slots = span / size;  // requests that fit in the file
  std::uint64_t next = 0;                   // index of the next request
  auto offset_of = [&](std::uint64_t index) { return (index % slots) * size; };
  // Buffered I/O: at most one pass over the file, since a second pass would read (or overwrite)
  // pages the first one left in the page cache.
  const std::uint64_t max_requests = file.use_direct_io() ? std::numeric_limits<std::uint64_t>::max() : slots;
  auto more = [&](Clock::time_point deadline) { return next < max_requests && Clock::now() < deadline; };
  if (!file.use_direct_io() && !is_write) {
    // Buffered reads: drop the file's cached pages so the device, not memory, is measured.
    (void)::posix_fadvise(file.fd(), 0, 0, POSIX_FADV_DONTNEED);
  }
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  if (use_uring) {
    UringQueue queue;
    ES_RETURN_IF_ERROR(queue.init(depth, IoOptions::kDefaultCompletionTimeout));
    std::vector<std::uint64_t> offsets(depth);
    auto submit = [&](unsigned slot) -> Status {
      offsets[slot] = offset_of(next++);
      void* buf = buffers[slot].data();
      return is_write ? queue.submit_write(file.fd(), buf, size, offsets[slot], slot)
                      : queue.submit_read(file.fd(), buf, size, offsets[slot], slot);
    };
    for (unsigned slot = 0; slot < depth && next < max_requests; ++slot) ES_RETURN_IF_ERROR(submit(slot));
    while (queue.in_flight() > 0) {
      ES_ASSIGN_OR_RETURN(const UringQueue::Completion c, queue.wait());
      const unsigned slot = static_cast<unsigned>(c.tag);
      if (c.result < 0) {
        return errno_status(-c.result, is_write ? "write" : "read", file.path(), static_cast<long long>(offsets[slot]));
      }
      cell.bytes += static_cast<std::uint64_t>(c.result);
      ++cell.requests;
      if (more(deadline)) ES_RETURN_IF_ERROR(submit(slot));
    }
  } else {
    do {
      const std::uint64_t off = offset_of(next++);
      if (is_write) {
        ES_RETURN_IF_ERROR(file.write_at(off, std::span<const std::byte>(buffers[0].data(), size)));
        cell.bytes += size;
      } else {
        ES_ASSIGN_OR_RETURN(const std::size_t n, file.read_at(off, std::span<std::byte>(buffers[0].data(), size)));
        cell.bytes += n;
      }
      ++cell.requests;
    } while (more(deadline));
  }
  if (is_write && !file.use_direct_io()) ES_RETURN_IF_ERROR(file.sync());
  cell.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return cell;
}

// Writes the whole test file once (large sequential writes) so that read cells read real blocks
// and write cells overwrite allocated ones, as fio does with a laid-out file.
Status lay_out(const File& file, std::uint64_t bytes) {
  const std::uint64_t piece = std::min<std::uint64_t>(bytes, 16ull << 20);
  AlignedBuffer buf(piece);
  for (std::size_t i = 0; i < buf.size(); ++i) buf.data()[i] = static_cast<std::byte>((i * 2654435761u) >> 24);
  for (std::uint64_t off = 0; off < bytes; off += piece) {
    ES_RETURN_IF_ERROR(file.write_at(off, std::span<const std::byte>(buf.data(), std::min(piece, bytes - off))));
  }
  return file.sync();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string format_size(std::uint64_t bytes) {
  static const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (u < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

std::pair<std::string, std::string> device_of(const std::filesystem::path& dir) {
  const std::optional<DeviceNumber> number = device_number_of(dir);
  if (!number) return {"unknown", "unknown"};
  const std::string want = number->text();
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  // Fields: id parent major:minor root mountpoint options [optional...] - fstype source superopts.
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, majmin;
    fields >> id >> parent >> majmin;
    if (majmin != want) continue;
    std::string field;
    while (fields >> field && field != "-") {
    }
    std::string fstype, source;
    fields >> fstype >> source;
    return {unescape_mount_field(source), fstype};
  }
  return {"unknown", "unknown"};
}

Expected<ProbeResult> run_probe(const ProbeOptions& options, const std::function<void(const std::string&)>& progress) {
  std::error_code ec;
  if (!std::filesystem::is_directory(options.dir, ec)) {
    return not_found(options.dir.string() + " is not an existing directory");
  }
  if (options.request_sizes.empty() || options.depths.empty()) return invalid_argument("no request sizes or depths");
  for (std::uint64_t s : options.request_sizes) {
    if (s == 0 || s % kIoAlignment != 0) {
      return invalid_argument("request size " + std::to_string(s) + " is not a positive multiple of 4096");
    }
    if (s > (1ull << 30)) return invalid_argument("request size " + std::to_string(s) + " is over 1 GiB");
  }
  for (unsigned d : options.depths) {
    if (d == 0 || d > 1024) return invalid_argument("queue depth " + std::to_string(d) + " is not in 1..1024");
  }
  const std::uint64_t max_size = *std::max_element(options.request_sizes.begin(), options.request_sizes.end());
  const std::uint64_t file_bytes = round_down(options.file_bytes, kIoAlignment);
  if (file_bytes < max_size) {
    return invalid_argument("--file_size " + std::to_string(file_bytes) +
                            " is smaller than the largest request size " + std::to_string(max_size));
  }
  if (!(options.seconds_per_cell > 0)) return invalid_argument("--seconds must be positive");

  ProbeResult result;
  std::tie(result.device, result.filesystem) = device_of(options.dir);
  result.file_bytes = file_bytes;
  const std::filesystem::path path = options.dir / ("edgestream-probe-" + std::to_string(::getpid()));
  ES_ASSIGN_OR_RETURN(File file, File::open(path, OpenMode::kCreate, options.direct));
  struct Remover {  // the test file goes away on every exit path
    std::filesystem::path path;
    bool keep;
    ~Remover() {
      std::error_code ignored;
      if (!keep) std::filesystem::remove(path, ignored);
    }
  } remover{path, options.keep_file};
  result.direct_io = file.use_direct_io();
  if (options.direct && !result.direct_io) {
    result.notes.push_back("O_DIRECT refused by " + result.filesystem + " at " + options.dir.string() +
                           ": buffered I/O (reads after POSIX_FADV_DONTNEED, writes timed with fdatasync, at most one pass over the file per cell)");
  }
  result.uring = uring_available();
  if (!result.uring) result.notes.push_back("io_uring unavailable: synchronous pread/pwrite, queue depth 1 only");

  if (progress) progress("laying out " + format_size(file_bytes) + " test file " + path.string());
  ES_RETURN_IF_ERROR(lay_out(file, file_bytes));

  for (const bool is_write : {false, true}) {
    if (is_write ? !options.write : !options.read) continue;
    for (const std::uint64_t size : options.request_sizes) {
      for (const unsigned requested_depth : options.depths) {
        const unsigned depth = result.uring ? requested_depth : 1;
        if (!result.uring && requested_depth != options.depths.front()) continue;
        if (size * depth > options.max_inflight_bytes) {
          result.notes.push_back(std::string(is_write ? "write" : "read") + " " + format_size(size) + " x " +
                                 std::to_string(depth) + " skipped: over --max_inflight " +
                                 format_size(options.max_inflight_bytes));
          continue;
        }
        std::vector<AlignedBuffer> buffers;
        for (unsigned i = 0; i < depth; ++i) {
          buffers.emplace_back(size);
          if (is_write) std::memset(buffers.back().data(), 0x5a + static_cast<int>(i), size);
        }
        ES_ASSIGN_OR_RETURN(ProbeCell cell, run_cell(file, is_write, size, depth, file_bytes, options.seconds_per_cell,
                                                     result.uring, buffers));
        if (progress) {
          std::ostringstream line;
          line << std::fixed << std::setprecision(1) << cell.op << " " << format_size(size) << " depth " << depth << ": "
               << cell.mbps() << " MB/s, " << cell.iops() << " IOPS";
          progress(line.str());
        }
        result.cells.push_back(cell);
      }
    }
  }
  return result;
}

ProbeRecommendation recommend(const ProbeResult& result, double fraction) {
  ProbeRecommendation rec;
  unsigned read_depth = 0, write_depth = 0;
  for (const bool is_write : {false, true}) {
    const std::string op = is_write ? "write" : "read";
    double best = 0;
    for (const ProbeCell& c : result.cells) {
      if (c.op == op) best = std::max(best, c.mbps());
    }
    const ProbeCell* chosen = nullptr;
    for (const ProbeCell& c : result.cells) {
      if (c.op != op || c.mbps() < fraction * best) continue;
      const auto cost = [](const ProbeCell* p) { return p->request_bytes * p->queue_depth; };
      if (chosen == nullptr || cost(&c) < cost(chosen) || (cost(&c) == cost(chosen) && c.mbps() > chosen->mbps())) {
        chosen = &c;
      }
    }
    if (chosen == nullptr) continue;
    if (is_write) {
      rec.write_chunk = chosen->request_bytes;
      write_depth = chosen->queue_depth;
      rec.write_mbps = chosen->mbps();
      rec.best_write_mbps = best;
    } else {
      rec.read_chunk = chosen->request_bytes;
      read_depth = chosen->queue_depth;
      rec.read_mbps = chosen->mbps();
      rec.best_read_mbps = best;
    }
  }
  rec.io_depth = std::max(read_depth, write_depth);
  double slowest = 0;  // the slower op's best bandwidth, of the ops measured
  for (const double best : {rec.best_read_mbps, rec.best_write_mbps}) {
    if (best > 0) slowest = slowest > 0 ? std::min(slowest, best) : best;
  }
  if (slowest > 0) {
    const bool slow = slowest < kDeltaEdgesBelowMbps;
    rec.edges_codec = slow ? "delta" : "auto";
    rec.grid_codec = slow ? "ef" : "";
  }
  return rec;
}

void write_probe_csv(std::ostream& out, const ProbeResult& result) {
  out << "op,request_bytes,queue_depth,MBps,IOPS,seconds,bytes,direct_io,device,filesystem\n";
  for (const ProbeCell& c : result.cells) {
    out << c.op << "," << c.request_bytes << "," << c.queue_depth << "," << std::fixed << std::setprecision(3)
        << c.mbps() << "," << std::setprecision(1) << c.iops() << "," << std::setprecision(3) << c.seconds << "," << c.bytes << ","
        << (result.direct_io ? 1 : 0) << "," << csv_field(result.device) << "," << csv_field(result.filesystem) << "\n";
  }
  out.unsetf(std::ios::floatfield);
}

void write_preset(std::ostream& out, const ProbeResult& result, const ProbeRecommendation& rec, const std::string& dir) {
  out << std::fixed << std::setprecision(0);
  out << "# Preset generated by device_probe for " << dir << " (device " << result.device << ", " << result.filesystem
      << (result.direct_io ? ", direct I/O" : ", BUFFERED: O_DIRECT refused") << ").\n"
      << "# Smallest request size x depth reaching 90% of the best bandwidth: read " << rec.read_mbps << " MB/s (best "
      << rec.best_read_mbps << "), write " << rec.write_mbps << " MB/s (best " << rec.best_write_mbps << ").\n"
      << "# Use: benchmark_driver --config FILE ...  Regenerate: device_probe DIR --preset_out FILE\n";
  if (rec.read_chunk != 0) out << "read_chunk = " << format_size(rec.read_chunk) << "\n";
  if (rec.write_chunk != 0) out << "write_chunk = " << format_size(rec.write_chunk) << "\n";
  if (rec.io_depth != 0) out << "io_depth = " << rec.io_depth << "\n";
  if (!rec.edges_codec.empty()) {
    if (rec.grid_codec.empty()) {
      out << "# At " << kDeltaEdgesBelowMbps << " MB/s or more the engine picks the edge streams' coding per program (auto).\n";
    } else {
      out << "# Below " << kDeltaEdgesBelowMbps << " MB/s fewer bytes pay for every program: delta coded edge streams\n"
          << "# (~4.4 instead of 8 bytes per rmat edge) and an Elias-Fano coded grid (docs/compression.md).\n";
    }
    out << "edges_codec = " << rec.edges_codec << "\n";
    if (!rec.grid_codec.empty()) out << "grid_codec = " << rec.grid_codec << "\n";
  }
  if (!result.direct_io) out << "# O_DIRECT is refused there: the engine falls back to buffered I/O by itself.\n";
  out.unsetf(std::ios::floatfield);
}

}  // namespace edgestream
