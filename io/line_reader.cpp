// LineReader: zlib's gzread (which reads plain files transparently) over a file or stdin.
#include "io/line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace edgestream {
namespace {
constexpr std::size_t kChunk = 1 << 18;
}

Expected<LineReader> LineReader::open(const std::string& path, std::size_t max_line_bytes) {
  int fd = 0;
  std::uint64_t size = 0;
  if (path == "-") {
    fd = ::dup(STDIN_FILENO);
    if (fd < 0) return errno_status(errno, "dup", "standard input");
  } else {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return not_found("input " + path + " does not exist");
      return errno_status(errno, "open", path);
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        return bad_input("input " + path + " is a directory");
      }
      if (S_ISREG(st.st_mode)) size = static_cast<std::uint64_t>(st.st_size);
    }
  }
  gzFile gz = gzdopen(fd, "rb");
  if (gz == nullptr) {
    ::close(fd);
    return resource_exhausted("cannot allocate a zlib stream for " + path);
  }
  gzbuffer(gz, 1 << 17);
  return LineReader(path == "-" ? std::string("<stdin>") : path, gz, max_line_bytes, size);
}

LineReader::LineReader(std::string path, gzFile gz, std::size_t max_line_bytes, std::uint64_t file_size)
    : path_(std::move(path)), gz_(gz), max_line_(max_line_bytes), file_size_(file_size), buffer_(kChunk) {}

LineReader::LineReader(LineReader&& other) noexcept
    : path_(std::move(other.path_)),
      gz_(other.gz_),
      max_line_(other.max_line_),
      file_size_(other.file_size_),
      buffer_(std::move(other.buffer_)),
      begin_(other.begin_),
      end_(other.end_),
      eof_(other.eof_),
      long_line_(std::move(other.long_line_)),
      line_number_(other.line_number_),
      bytes_(other.bytes_),
      pending_error_(std::move(other.pending_error_)) {
  other.gz_ = nullptr;
}

LineReader::~LineReader() {
  if (gz_ != nullptr) gzclose_r(gz_);
}

std::uint64_t LineReader::raw_offset() const {
  const z_off_t off = gzoffset(gz_);
  return off < 0 ? 0 : static_cast<std::uint64_t>(off);
}

Status LineReader::fill() {
  begin_ = 0;
  end_ = 0;
  if (!pending_error_.empty()) {
    return bad_input("reading " + path_ + " after line " + std::to_string(line_number_) + " (uncompressed byte " +
                     std::to_string(bytes_) + "): " + pending_error_);
  }
  const int n = gzread(gz_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  int err = Z_OK;
  const char* message = gzerror(gz_, &err);
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
    // gzread reports a gzip stream cut short as end of input with Z_BUF_ERROR set: the GAPBS #26
    // silent truncation. Everything but a clean end is an error here; bytes decoded before it are
    // delivered first so that the message names the line reached.
    pending_error_ = err == Z_ERRNO       ? std::string(std::strerror(errno))
                     : err == Z_BUF_ERROR ? "unexpected end of the gzip stream (truncated file?)"
                                          : std::string(message != nullptr ? message : "zlib error");
    if (n <= 0) return fill();
  }
  if (n == 0) {
    eof_ = true;
    return Status::ok();
  }
  end_ = static_cast<std::size_t>(n);
  bytes_ += static_cast<std::uint64_t>(n);
  return Status::ok();
}

Expected<bool> LineReader::next(Line& line) {
  long_line_.clear();
  bool cut = false;
  bool any = false;
  for (;;) {
    if (begin_ == end_) {
      if (eof_) break;
      ES_RETURN_IF_ERROR(fill());
      if (eof_) break;
    }
    any = true;
    const char* start = buffer_.data() + begin_;
    const std::size_t avail = end_ - begin_;
    const void* nl = std::memchr(start, '\n', avail);
    const std::size_t take = nl == nullptr ? avail : static_cast<std::size_t>(static_cast<const char*>(nl) - start);
    begin_ += take + (nl == nullptr ? 0 : 1);
    if (nl != nullptr && long_line_.empty() && !cut) {  // common case: the whole line is in the buffer
      ++line_number_;
      line.text = std::string_view(start, std::min(take, max_line_));
      line.too_long = take > max_line_;
      return true;
    }
    const std::size_t room = max_line_ - std::min(max_line_, long_line_.size());
    if (take > room) cut = true;
    long_line_.append(start, std::min(take, room));
    if (nl != nullptr) break;
  }
  if (!any) return false;
  ++line_number_;
  line.text = long_line_;
  line.too_long = cut;
  return true;
}

}  // namespace edgestream
