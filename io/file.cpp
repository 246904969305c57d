// File: open with O_DIRECT (falling back to buffered where refused), pread/pwrite loops with EINTR
// and short-transfer retries, and errors that name the file and offset.
#include "io/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <mutex>
#include <set>

#include "io/aligned_buffer.hpp"
#include "io/fault_injection.hpp"
#include "io/striped_file.hpp"

namespace edgestream {

void warn_once(const std::string& key, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard lock(mutex);
  if (seen.insert(key).second) std::cerr << "warning: " << message << std::endl;
}

File::File(File&& other) noexcept
    : fd_(other.fd_), direct_(other.direct_), path_(std::move(other.path_)), stripes_(std::move(other.stripes_)) {
  other.fd_ = -1;
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    direct_ = other.direct_;
    path_ = std::move(other.path_);
    stripes_ = std::move(other.stripes_);
    other.fd_ = -1;
  }
  return *this;
}

File::~File() { close(); }

void File::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  stripes_.reset();
}

std::size_t File::alignment() const { return direct_ ? kIoAlignment : 1; }

std::size_t File::member_count() const { return stripes_ ? stripes_->files.size() : 1; }
const File& File::member(std::size_t m) const { return stripes_ ? stripes_->files[m] : *this; }
const IoOptions* File::member_io(std::size_t m) const { return stripes_ ? &stripes_->io[m] : nullptr; }
VolumeCounters* File::member_counters(std::size_t m) const { return stripes_ ? stripes_->counters[m] : nullptr; }
std::uint64_t File::stripe_unit() const { return stripes_ ? stripes_->unit : 0; }

FileSegment File::segment(std::uint64_t offset) const {
  if (!stripes_) return {this, offset, UINT64_MAX, 0};
  const StripeLocation at = locate_stripe(offset, stripes_->files.size(), stripes_->unit);
  return {&stripes_->files[at.member], at.member_offset, at.contiguous, at.member};
}

std::string File::describe_offset(std::uint64_t offset) const {
  const FileSegment seg = segment(offset);
  std::string s = seg.file->path() + " at offset " + std::to_string(seg.offset);
  if (stripes_) s += " (offset " + std::to_string(offset) + " of the striped stream)";
  return s;
}

Expected<File> File::open(const std::filesystem::path& path, OpenMode mode, bool direct) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case OpenMode::kReadOnly: flags |= O_RDONLY; break;
    case OpenMode::kReadWrite: flags |= O_RDWR; break;
    case OpenMode::kCreate: flags |= O_RDWR | O_CREAT | O_TRUNC; break;
  }
  File file;
  file.path_ = path.string();
  int fd = -1;
  if (direct) {
    do {
      fd = ::open(file.path_.c_str(), flags | O_DIRECT, 0644);
    } while (fd < 0 && errno == EINTR);
    const long long injected = fault_injection::adjust(fault_injection::Op::kOpenDirect, file.path_, 0, fd < 0 ? -errno : 0);
    if (fd >= 0 && injected < 0) {
      ::close(fd);
      fd = -1;
      errno = static_cast<int>(-injected);
    }
    if (fd < 0 && errno == EINVAL) {
      warn_once("no-odirect:" + path.parent_path().string(),
                "the filesystem holding " + path.parent_path().string() +
                    " refuses O_DIRECT (tmpfs or FUSE?); using buffered I/O there, so the page cache may hold data");
    } else if (fd >= 0) {
      file.direct_ = true;
    } else {
      return errno_status(errno, "open", file.path_);
    }
  }
  if (fd < 0) {
    do {
      fd = ::open(file.path_.c_str(), flags, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return errno_status(errno, "open", file.path_);
  }
  file.fd_ = fd;
  return file;
}

namespace {
// A request that keeps making no progress (e.g. sub-block short transfers in direct mode) is
// reported as an error after this many attempts instead of looping forever.
constexpr int kMaxAttemptsWithoutProgress = 1000;
}  // namespace

Expected<std::size_t> File::read_at(std::uint64_t offset, std::span<std::byte> buffer) const {
  if (stripes_) return striped_read_at(offset, buffer);
  std::size_t done = 0;
  int stalled = 0;
  while (done < buffer.size()) {
    if (stalled > kMaxAttemptsWithoutProgress) {
      return errno_status(EIO, "read (no progress after repeated short reads)", path_, static_cast<long long>(offset + done));
    }
    const std::size_t want = std::min<std::size_t>(buffer.size() - done, std::size_t{1} << 30);
    long long n = ::pread(fd_, buffer.data() + done, want, static_cast<off_t>(offset + done));
    if (n < 0) n = -errno;
    n = fault_injection::adjust(fault_injection::Op::kRead, path_, want, n);
    if (n == -EINTR) {
      ++stalled;
      continue;
    }
    if (n < 0) return errno_status(static_cast<int>(-n), "read", path_, static_cast<long long>(offset + done));
    if (n == 0) break;  // end of file
    std::size_t advanced = static_cast<std::size_t>(n);
    if (direct_ && (advanced % kIoAlignment) != 0) {
      // In direct mode an unaligned short read is normally the end of the file; otherwise keep
      // the aligned part and read the rest again from a block boundary.
      ES_ASSIGN_OR_RETURN(const std::uint64_t file_size, size());
      if (offset + done + advanced >= file_size) return done + advanced;
      advanced = round_down(advanced, kIoAlignment);
    }
    stalled = advanced == 0 ? stalled + 1 : 0;
    done += advanced;
  }
  return done;
}

Status File::write_at(std::uint64_t offset, std::span<const std::byte> data) const {
  if (stripes_) return striped_write_at(offset, data);
  std::size_t done = 0;
  int stalled = 0;
  while (done < data.size()) {
    if (stalled > kMaxAttemptsWithoutProgress) {
      return errno_status(EIO, "write (no progress after repeated short writes)", path_, static_cast<long long>(offset + done));
    }
    const std::size_t want = std::min<std::size_t>(data.size() - done, std::size_t{1} << 30);
    long long n = ::pwrite(fd_, data.data() + done, want, static_cast<off_t>(offset + done));
    if (n < 0) n = -errno;
    n = fault_injection::adjust(fault_injection::Op::kWrite, path_, want, n);
    if (n == -EINTR) {
      ++stalled;
      continue;
    }
    if (n < 0) return errno_status(static_cast<int>(-n), "write", path_, static_cast<long long>(offset + done));
    if (n == 0) return errno_status(ENOSPC, "write", path_, static_cast<long long>(offset + done));
    // Direct I/O must resume on a block boundary: keep the aligned part of a short write.
    std::size_t advanced = static_cast<std::size_t>(n);
    if (direct_) advanced = round_down(advanced, kIoAlignment);
    stalled = advanced == 0 ? stalled + 1 : 0;
    done += advanced;
  }
  return Status::ok();
}

Expected<std::uint64_t> File::size() const {
  if (stripes_) {
    // The logical size: members hold whole stripes in turn, so the last byte is on the member
    // whose file ends furthest into the stream.
    std::uint64_t size = 0;
    const std::size_t n = stripes_->files.size();
    for (std::size_t m = 0; m < n; ++m) {
      ES_ASSIGN_OR_RETURN(const std::uint64_t len, stripes_->files[m].size());
      if (len == 0) continue;
      const std::uint64_t last = len - 1;  // member offset of its last byte
      const std::uint64_t logical = (last / stripes_->unit * n + m) * stripes_->unit + last % stripes_->unit + 1;
      size = std::max(size, logical);
    }
    return size;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return errno_status(errno, "stat", path_);
  return static_cast<std::uint64_t>(st.st_size);
}

Status File::truncate(std::uint64_t size) const {
  if (stripes_) {
    const std::size_t n = stripes_->files.size();
    for (std::size_t m = 0; m < n; ++m) {
      ES_RETURN_IF_ERROR(stripes_->files[m].truncate(stripe_member_length(size, m, n, stripes_->unit)));
    }
    return Status::ok();
  }
  int rc = 0;
  do {
    rc = ::ftruncate(fd_, static_cast<off_t>(size));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return errno_status(errno, "truncate", path_, static_cast<long long>(size));
  return Status::ok();
}

Status File::sync() const {
  if (stripes_) {
    for (const File& f : stripes_->files) ES_RETURN_IF_ERROR(f.sync());
    return Status::ok();
  }
  const long long result = fault_injection::adjust(fault_injection::Op::kSync, path_, 0, ::fdatasync(fd_) != 0 ? -errno : 0);
  if (result < 0) return errno_status(static_cast<int>(-result), "fdatasync", path_);
  return Status::ok();
}

}  // namespace edgestream
