// write_hilbert_ordered: read -> curve positions -> sorted runs (radix sort) -> k-way merge -> file.
#include "utils/hilbert_order.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <queue>
#include <vector>

#include "compress/graph_input.hpp"
#include "io/file.hpp"
#include "utils/hilbert_curve.hpp"
#include "utils/radix_sort.hpp"

namespace edgestream {
namespace {

namespace fs = std::filesystem;

struct KeyedEdge {
  std::uint64_t key;        // Hilbert position of (src, dst)
  std::uint32_t weight;     // the weight's bits (type 1), 0 for type 2
};
constexpr std::size_t kRunRecord = 12;  // key + weight bits on disk

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Removes the listed files when destroyed (temporary runs and a partial output).
struct Cleanup {
  std::vector<fs::path> paths;
  ~Cleanup() {
    for (const auto& p : paths) ::unlink(p.c_str());
  }
};

Expected<FilePtr> open_file(const fs::path& path, const char* mode, std::size_t buffer) {
  FilePtr f(std::fopen(path.c_str(), mode));
  if (!f) return errno_status(errno, mode[0] == 'r' ? "open" : "create", path.string());
  std::setvbuf(f.get(), nullptr, _IOFBF, buffer);
  return f;
}

Status write_all(std::FILE* f, const void* data, std::size_t bytes, const fs::path& path) {
  if (bytes != 0 && std::fwrite(data, 1, bytes, f) != bytes) return errno_status(errno, "write", path.string());
  return Status::ok();
}

// Buffered output of edge records.
class EdgeWriter {
 public:
  EdgeWriter(std::FILE* f, fs::path path, EdgeFileType type, unsigned k)
      : f_(f), path_(std::move(path)), type_(type), k_(k), buffer_(edge_record_size(type) * 65536) {}
  Status put(const KeyedEdge& r) {
    const auto [src, dst] = hilbert_cell(k_, r.key);
    Edge e{src, dst, 0.0F};
    std::memcpy(&e.weight, &r.weight, 4);
    encode_edge(buffer_.data() + used_, e, type_);
    used_ += edge_record_size(type_);
    if (used_ == buffer_.size()) return flush();
    return Status::ok();
  }
  Status flush() {
    ES_RETURN_IF_ERROR(write_all(f_, buffer_.data(), used_, path_));
    used_ = 0;
    return Status::ok();
  }

 private:
  std::FILE* f_;
  fs::path path_;
  EdgeFileType type_;
  unsigned k_;
  std::vector<std::byte> buffer_;
  std::size_t used_ = 0;
};

// Sequential reader of one run file.
struct RunReader {
  FilePtr file;
  fs::path path;
  std::uint64_t left = 0;  // records not yet read
  Expected<bool> next(KeyedEdge& r) {
    if (left == 0) return false;
    unsigned char rec[kRunRecord];
    if (std::fread(rec, 1, kRunRecord, file.get()) != kRunRecord) {
      return corruption("temporary run " + path.string() + " ended early (" + std::to_string(left) + " records missing)");
    }
    std::memcpy(&r.key, rec, 8);
    std::memcpy(&r.weight, rec + 8, 4);
    --left;
    return true;
  }
};

}  // namespace

Status write_hilbert_ordered(const GraphInfo& input, const HilbertOrderOptions& options) {
  const fs::path out_path(options.output);
  if (options.output.empty() || !out_path.has_filename()) return invalid_argument("--output must name the output edge file");
  if (out_path.extension() == ".ini") {
    return invalid_argument("--output " + options.output + " ends in .ini: give the edge file's name (G); G and G.ini are written");
  }
  std::error_code ec;
  if (fs::exists(out_path, ec) && fs::equivalent(out_path, input.edge_path, ec)) {
    return invalid_argument("--output " + options.output + " is the input edge file; the input is never modified");
  }
  if (fs::exists(fs::path(options.output + ".ini"), ec) && fs::equivalent(fs::path(options.output + ".ini"), input.ini_path, ec)) {
    return invalid_argument("--output " + options.output + ".ini is the input's .ini; the input is never modified");
  }
  if (options.memory_bytes < (std::uint64_t{1} << 20)) return invalid_argument("--memory must be at least 1M");

  const unsigned k = hilbert_order_for(input.vertices);
  const std::uint64_t run_capacity = std::max<std::uint64_t>(1 << 15, options.memory_bytes / (2 * sizeof(KeyedEdge)));
  const std::size_t rs = input.record_size();
  const std::string tmp_prefix = options.output + ".tmp-" + std::to_string(::getpid());
  const fs::path partial(tmp_prefix + ".edges");
  Cleanup cleanup;
  auto cancelled = [&] { return options.cancel != nullptr && options.cancel(); };
  auto cancelled_status = [&] { return Status(StatusCode::kCancelled, "interrupted while writing " + options.output + "; nothing written"); };

  ES_ASSIGN_OR_RETURN(auto in, InputEdgeReader::open(input));  // raw or compressed (compress/graph_input.hpp)
  std::vector<KeyedEdge> run;
  run.reserve(static_cast<std::size_t>(std::min(run_capacity, input.edges)));
  std::vector<std::byte> buffer(rs * 65536);
  std::vector<RunReader> runs;
  std::uint64_t index = 0;
  unsigned last_percent = 0;
  auto progress = [&](std::uint64_t done, std::uint64_t total, const char* phase) {
    if (!options.progress || total == 0) return;
    const auto percent = static_cast<unsigned>(done * 100 / total);
    if (percent != last_percent) {
      last_percent = percent;
      std::fprintf(stderr, "\rhilbert_order: %s %3u%%", phase, percent);
      std::fflush(stderr);
    }
  };

  FilePtr out;
  std::unique_ptr<EdgeWriter> writer;
  auto open_output = [&]() -> Status {
    cleanup.paths.push_back(partial);
    ES_ASSIGN_OR_RETURN(out, open_file(partial, "wb", 4 << 20));
    writer = std::make_unique<EdgeWriter>(out.get(), partial, input.type, k);
    return Status::ok();
  };

  while (index < input.edges || (index == 0 && input.edges == 0)) {
    // Fill one run.
    while (index < input.edges && run.size() < run_capacity) {
      if (cancelled()) return cancelled_status();
      const std::uint64_t n = std::min<std::uint64_t>({65536, input.edges - index, run_capacity - run.size()});
      ES_ASSIGN_OR_RETURN(const std::size_t got, in->read(std::span(buffer.data(), n * rs)));
      if (got != n * rs) return corruption("edge file " + input.edge_path.string() + " ended early at record " + std::to_string(index + got / rs));
      for (std::uint64_t i = 0; i < n; ++i) {
        const Edge e = decode_edge(buffer.data() + i * rs, input.type);
        if (e.src >= input.vertices || e.dst >= input.vertices) {
          return bad_input("edge file " + input.edge_path.string() + ": record " + std::to_string(index + i) + " (byte offset " +
                           std::to_string((index + i) * rs) + ") has an id >= vertices=" + std::to_string(input.vertices));
        }
        KeyedEdge r{hilbert_index(k, e.src, e.dst), 0};
        if (input.type == EdgeFileType::kWeighted) std::memcpy(&r.weight, &e.weight, 4);
        run.push_back(r);
      }
      index += n;
      progress(index, input.edges, "sorting");
    }
    radix_sort_by_key(run, 2 * k, [](const KeyedEdge& r) { return r.key; });
    if (runs.empty() && index == input.edges) {
      // Everything fit in one run: write the output directly.
      ES_RETURN_IF_ERROR(open_output());
      for (const KeyedEdge& r : run) ES_RETURN_IF_ERROR(writer->put(r));
      run.clear();
      break;
    }
    const fs::path run_path(tmp_prefix + ".run" + std::to_string(runs.size()));
    cleanup.paths.push_back(run_path);
    {
      ES_ASSIGN_OR_RETURN(FilePtr f, open_file(run_path, "wb", 4 << 20));
      unsigned char rec[kRunRecord];
      for (const KeyedEdge& r : run) {
        std::memcpy(rec, &r.key, 8);
        std::memcpy(rec + 8, &r.weight, 4);
        ES_RETURN_IF_ERROR(write_all(f.get(), rec, kRunRecord, run_path));
      }
      if (std::fflush(f.get()) != 0) return errno_status(errno, "write", run_path.string());
      if (std::fclose(f.release()) != 0) return errno_status(errno, "close", run_path.string());
    }
    runs.push_back(RunReader{nullptr, run_path, run.size()});
    run.clear();
    if (index == input.edges) break;
  }
  std::vector<KeyedEdge>().swap(run);  // the merge needs only the readers' buffers

  if (!runs.empty()) {
    ES_RETURN_IF_ERROR(open_output());
    const std::size_t per_run = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(options.memory_bytes / 2 / runs.size(), 64 << 10, 8 << 20));
    for (auto& r : runs) {
      ES_ASSIGN_OR_RETURN(r.file, open_file(r.path, "rb", per_run));
    }
    // Min-heap on (key, run): equal keys come out in run order, i.e. input order (stable).
    using Head = std::pair<std::pair<std::uint64_t, std::size_t>, std::uint32_t>;
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      KeyedEdge r{};
      ES_ASSIGN_OR_RETURN(const bool has, runs[i].next(r));
      if (has) heap.push({{r.key, i}, r.weight});
    }
    last_percent = 0;
    for (std::uint64_t written = 0; !heap.empty(); ++written) {
      const Head head = heap.top();
      heap.pop();
      ES_RETURN_IF_ERROR(writer->put(KeyedEdge{head.first.first, head.second}));
      KeyedEdge r{};
      ES_ASSIGN_OR_RETURN(const bool has, runs[head.first.second].next(r));
      if (has) heap.push({{r.key, head.first.second}, r.weight});
      if ((written & 0xFFFFF) == 0) {
        if (cancelled()) return cancelled_status();
        progress(written, input.edges, "merging");
      }
    }
    runs.clear();
  }
  if (options.progress) std::fputc('\n', stderr);
  ES_RETURN_IF_ERROR(writer->flush());
  if (std::fflush(out.get()) != 0) return errno_status(errno, "write", partial.string());
  if (std::fclose(out.release()) != 0) return errno_status(errno, "close", partial.string());

  // Publish like the generators: drop an old .ini, rename the edge file, write the new .ini last.
  const fs::path ini_path(options.output + ".ini");
  fs::remove(ini_path, ec);
  if (ec) return errno_status(ec.value(), "remove old", ini_path.string());
  if (::rename(partial.c_str(), out_path.c_str()) != 0) return errno_status(errno, "rename " + partial.string() + " to", options.output);
  cleanup.paths.erase(std::remove(cleanup.paths.begin(), cleanup.paths.end(), partial), cleanup.paths.end());
  GraphInfo info;
  info.ini_path = ini_path;
  info.name = out_path.filename().string();
  info.edge_path = out_path;
  info.type = input.type;
  info.vertices = input.vertices;
  info.edges = input.edges;
  info.symmetric = input.symmetric;  // the same records, reordered
  if (Status s = write_graph_ini(info); !s.is_ok()) {
    ::unlink(out_path.c_str());
    return s;
  }
  return Status::ok();
}

}  // namespace edgestream
