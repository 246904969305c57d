// VertexOutput: buffered text lines, to_chars formatting, atomic rename on commit.
#include "core/vertex_output.hpp"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

#include "io/fault_injection.hpp"

namespace edgestream {

VertexOutput::~VertexOutput() { abandon(); }

Status VertexOutput::open(const std::filesystem::path& path) {
  if (path.empty()) return Status::ok();
  path_ = path;
  tmp_path_ = path.string() + ".tmp-" + std::to_string(::getpid());
  file_ = std::fopen(tmp_path_.c_str(), "w");
  if (file_ == nullptr) return errno_status(errno, "create output file", tmp_path_.string());
  // The stdio buffer is the object's own (freed after fclose), not a thread_local array: 1 MiB of
  // static TLS is zeroed (and faulted in) at every thread's creation, and the engine starts a thread
  // per staged block read (rmat22 sssp at 256M: ~0.1 s of the main thread's set-up; docs/performance.md,
  // session 43).
  buffer_ = std::make_unique_for_overwrite<char[]>(kBufferBytes);
  std::setvbuf(file_, buffer_.get(), _IOFBF, kBufferBytes);
  return Status::ok();
}

void VertexOutput::begin_line(std::uint64_t vertex) {
  length_ = 0;
  add_unsigned(vertex);
}

void VertexOutput::add(std::int64_t value) {
  if (length_ > 0) line_[length_++] = '\t';
  length_ = static_cast<std::size_t>(std::to_chars(line_ + length_, line_ + sizeof line_, value).ptr - line_);
}

void VertexOutput::add_unsigned(std::uint64_t value) {
  if (length_ > 0) line_[length_++] = '\t';
  length_ = static_cast<std::size_t>(std::to_chars(line_ + length_, line_ + sizeof line_, value).ptr - line_);
}

void VertexOutput::add(double value) {
  if (length_ > 0) line_[length_++] = '\t';
  if (std::isinf(value)) {
    const char* text = value > 0 ? "inf" : "-inf";
    std::memcpy(line_ + length_, text, std::strlen(text));
    length_ += std::strlen(text);
    return;
  }
  const int n = std::snprintf(line_ + length_, sizeof line_ - length_, "%.9g", value);
  length_ += static_cast<std::size_t>(n);
}

void VertexOutput::add(float value) { add(static_cast<double>(value)); }

void VertexOutput::end_line() {
  if (file_ == nullptr) return;
  line_[length_++] = '\n';
  std::fwrite(line_, 1, length_, file_);
  // The output goes through stdio, not io/File: give fault injection (EIO, ENOSPC) its say here.
  if (fault_injection::enabled() && injected_error_ == 0) {
    const long long r = fault_injection::adjust(fault_injection::Op::kWrite, tmp_path_.string(), length_,
                                                static_cast<long long>(length_));
    if (r < 0 && r != -EINTR) injected_error_ = static_cast<int>(-r);
  }
}

Status VertexOutput::commit() {
  if (file_ == nullptr) return Status::ok();
  bool write_failed = std::fflush(file_) != 0 || std::ferror(file_) != 0;
  int err = errno;
  if (!write_failed && injected_error_ != 0) {
    write_failed = true;
    err = injected_error_;
  }
  std::fclose(file_);
  file_ = nullptr;
  if (write_failed) {
    std::error_code ec;
    std::filesystem::remove(tmp_path_, ec);
    return errno_status(err, "write output file", tmp_path_.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp_path_, path_, ec);
  if (ec) {
    const int rename_error = ec.value();
    std::filesystem::remove(tmp_path_, ec);
    return errno_status(rename_error, "rename output file to " + path_.string(), tmp_path_.string());
  }
  return Status::ok();
}

void VertexOutput::abandon() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::remove(tmp_path_, ec);
}

}  // namespace edgestream
