// One file abstraction for every stream, input and state file: knows whether it uses direct I/O
// and the alignment that requires, retries EINTR and short transfers in one place, and reports
// every failure as a Status naming the file, the operation and the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "io/status.hpp"

namespace edgestream {

enum class OpenMode {
  kReadOnly,   // existing file, never modified (input graphs)
  kReadWrite,  // existing file
  kCreate,     // create or truncate, read-write
};

class File {
 public:
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  File(File&& other) noexcept;
  File& operator=(File&& other) noexcept;
  ~File();

  /// Opens `path`. With `direct` the file is opened with O_DIRECT; where the filesystem refuses
  /// (tmpfs, some FUSE mounts) it falls back to buffered I/O and prints ONE warning per process.
  static Expected<File> open(const std::filesystem::path& path, OpenMode mode, bool direct);

  /// True when O_DIRECT is in effect: buffers, sizes and offsets must then be multiples of alignment().
  bool use_direct_io() const { return direct_; }
  std::size_t alignment() const;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  /// Reads up to `buffer.size()` bytes at `offset`, retrying EINTR and short reads until the buffer
  /// is full or end of file. Returns the number of bytes read (less than requested only at EOF).
  Expected<std::size_t> read_at(std::uint64_t offset, std::span<std::byte> buffer) const;
  /// Writes all of `data` at `offset` (in pieces of at most 1 GiB), retrying EINTR and short writes.
  Status write_at(std::uint64_t offset, std::span<const std::byte> data) const;
  Expected<std::uint64_t> size() const;
  Status truncate(std::uint64_t size) const;
  /// Flushes to the device (fdatasync).
  Status sync() const;
  void close();

 private:
  int fd_ = -1;
  bool direct_ = false;
  std::string path_;
};

/// Prints `message` to stderr the first time `key` is seen in this process; later calls are silent.
void warn_once(const std::string& key, const std::string& message);

}  // namespace edgestream
