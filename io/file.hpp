// One file abstraction for every stream, input and state file: knows whether it uses direct I/O
// and the alignment that requires, retries EINTR and short transfers in one place, and reports
// every failure as a Status naming the file, the operation and the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "io/io_options.hpp"
#include "io/status.hpp"

namespace edgestream {

struct Stripes;
struct StripeLayout;
struct VolumeCounters;
class File;

/// A piece of a (possibly striped) file: the real file holding logical offset `offset`, the offset
/// in it, and how many logical bytes stay contiguous there (UINT64_MAX for a plain file).
struct FileSegment {
  const File* file;
  std::uint64_t offset;
  std::uint64_t contiguous;
  std::size_t member;
};

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
  /// Opens one member file per stripe member (io/striped_file.hpp), each with its own direct-I/O
  /// fallback. The result reads and writes the logical stream; path() names the first member.
  static Expected<File> open_striped(const StripeLayout& layout, OpenMode mode, bool direct);

  /// Striped files: the members, their per-volume I/O settings and counters. A plain file is its
  /// own single member with no settings of its own (member_io() == nullptr).
  bool striped() const { return stripes_ != nullptr; }
  std::size_t member_count() const;
  const File& member(std::size_t m) const;
  const IoOptions* member_io(std::size_t m) const;
  VolumeCounters* member_counters(std::size_t m) const;
  std::uint64_t stripe_unit() const;
  /// The member file and offset holding logical `offset` (the file itself when not striped).
  FileSegment segment(std::uint64_t offset) const;
  /// "PATH at offset N" naming the real file of logical `offset` (and the logical offset when striped).
  std::string describe_offset(std::uint64_t offset) const;

  /// True when O_DIRECT is in effect (on any member): buffers, sizes and offsets must then be multiples of alignment().
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
  Expected<std::size_t> striped_read_at(std::uint64_t offset, std::span<std::byte> buffer) const;
  Status striped_write_at(std::uint64_t offset, std::span<const std::byte> data) const;

  int fd_ = -1;
  bool direct_ = false;
  std::string path_;
  std::shared_ptr<Stripes> stripes_;  // set for striped files (fd_ is then -1); shared_ptr: Stripes is incomplete here
};

/// Prints `message` to stderr the first time `key` is seen in this process; later calls are silent.
void warn_once(const std::string& key, const std::string& message);

}  // namespace edgestream
