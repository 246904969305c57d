// Graph -> text edge list (see export_text.hpp).
#include "utils/export_text.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/cancellation.hpp"
#include "compress/graph_input.hpp"
#include "io/graph_format.hpp"
#include "utils/edge_record_file.hpp"
#include "utils/ingest.hpp"

namespace edgestream {
namespace {

// A text sink: stdout, a plain file, or a gzip file.
class TextSink {
 public:
  ~TextSink() {
    if (gz_ != nullptr) gzclose(gz_);
    if (file_ != nullptr && file_ != stdout) std::fclose(file_);
  }
  Status open(const std::string& path, bool to_stdout, bool gzip) {
    path_ = path;
    if (to_stdout) {
      file_ = stdout;
    } else if (gzip) {
      gz_ = gzopen(path.c_str(), "wb6");
      if (gz_ == nullptr) return errno_status(errno, "create", path);
      gzbuffer(gz_, 1 << 17);
    } else {
      file_ = std::fopen(path.c_str(), "we");
      if (file_ == nullptr) return errno_status(errno, "create", path);
    }
    return Status::ok();
  }
  Status write(const char* data, std::size_t n) {
    if (gz_ != nullptr) {
      if (gzwrite(gz_, data, static_cast<unsigned>(n)) != static_cast<int>(n)) {
        int err = 0;
        return {StatusCode::kIoError, "write " + path_ + ": " + gzerror(gz_, &err)};
      }
    } else if (std::fwrite(data, 1, n, file_) != n) {
      return errno_status(errno, "write", path_);
    }
    return Status::ok();
  }
  Status close() {
    if (gz_ != nullptr) {
      const int rc = gzclose(gz_);
      gz_ = nullptr;
      if (rc != Z_OK) return {StatusCode::kIoError, "close " + path_ + ": zlib error " + std::to_string(rc)};
    } else if (file_ != nullptr) {
      const bool failed = file_ == stdout ? std::fflush(file_) != 0 : std::fclose(file_) != 0;
      file_ = nullptr;
      if (failed) return errno_status(errno, "write", path_);
    }
    return Status::ok();
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
};

}  // namespace

Expected<ExportSummary> export_text(const std::filesystem::path& ini_path, const std::string& output) {
  ES_ASSIGN_OR_RETURN(const GraphInfo info, read_graph_ini(ini_path));
  const bool to_stdout = output == "-";
  const bool gzip = output.size() > 3 && output.compare(output.size() - 3, 3, ".gz") == 0;
  const std::string tmp = to_stdout ? output : output + ".export-partial";
  ExportSummary summary{info.vertices, 0};
  {
    TextSink sink;
    ES_RETURN_IF_ERROR(sink.open(tmp, to_stdout, gzip));
    auto fail = [&](Status s) {
      std::error_code ec;
      if (!to_stdout) std::filesystem::remove(tmp, ec);
      return s;
    };
    const std::string header = "# EdgeStream export of " + ini_path.string() + "\n" + std::string(kVerticesComment) +
                               std::to_string(info.vertices) + " type=" + std::to_string(static_cast<int>(info.type)) +
                               " edges=" + std::to_string(info.edges) + "\n# src\tdst" +
                               (info.type == EdgeFileType::kWeighted ? "\tweight" : "") + "\n";
    if (Status s = sink.write(header.data(), header.size()); !s.is_ok()) return fail(s);
    auto reader = InputEdgeReader::open(info);  // raw or compressed (compress/graph_input.hpp)
    if (!reader) return fail(reader.status());
    const std::size_t rs = info.record_size();
    std::vector<std::byte> records(rs * 4096);
    std::size_t filled = 0;
    std::size_t at = 0;
    Edge e{};
    char line[96];
    for (;;) {
      if ((summary.edges & 0xFFFF) == 0 && cancel_requested()) {
        return fail({StatusCode::kCancelled, "interrupted by a signal; no text was written"});
      }
      if (at == filled) {
        auto got = (*reader)->read(records);
        if (!got) return fail(got.status());
        if (*got % rs != 0) return fail(corruption("edge file " + info.edge_path.string() + " ends inside a record"));
        filled = *got;
        at = 0;
        if (filled == 0) break;
      }
      e = decode_edge(records.data() + at, info.type);
      at += rs;
      const int n = info.type == EdgeFileType::kWeighted
                        ? std::snprintf(line, sizeof line, "%u\t%u\t%.9g\n", e.src, e.dst, static_cast<double>(e.weight))
                        : std::snprintf(line, sizeof line, "%u\t%u\n", e.src, e.dst);
      if (Status s = sink.write(line, static_cast<std::size_t>(n)); !s.is_ok()) return fail(s);
      ++summary.edges;
    }
    if (Status s = sink.close(); !s.is_ok()) return fail(s);
  }
  if (!to_stdout) {
    std::error_code ec;
    std::filesystem::rename(tmp, output, ec);
    if (ec) return errno_status(ec.value(), "rename to " + output, tmp);
  }
  return summary;
}

}  // namespace edgestream
