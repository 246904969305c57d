// A per-run scratch directory on each volume (X-Stream's [disk] mnt0.. or --work_dir): a fresh,
// uniquely named subdirectory, so two runs in the same place never clash, removed with everything
// in it when the run ends — on success, on error and after SIGINT/SIGTERM (the engine unwinds).
//
// A run killed with SIGKILL (or by the OOM killer, or a power loss) cannot remove its directory.
// So every scratch directory holds a lock file, "edgestream.lock", on which its owner holds an
// exclusive flock() for the directory's whole life (the kernel drops it when the process dies,
// however it dies), and creating a scratch directory first removes the directories on that volume
// that a dead run left: see remove_stale_scratch().
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

/// Name of the lock file inside every scratch directory.
inline constexpr const char* kScratchLockName = "edgestream.lock";

class ScratchDirectory {
 public:
  /// Removes the stale scratch directories of every volume (remove_stale_scratch), then creates
  /// "<volume>/edgestream-<pid>-<random>" holding a locked "edgestream.lock" on every volume (the
  /// current directory when `volumes` is empty). Fails with a message naming the volume when it is
  /// missing or unwritable.
  static Expected<ScratchDirectory> create(const std::vector<std::filesystem::path>& volumes);
  ScratchDirectory() = default;
  ScratchDirectory(ScratchDirectory&& other) noexcept;
  ScratchDirectory& operator=(ScratchDirectory&& other) noexcept;
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory();

  /// Path of a scratch file `name` placed on volume (index % number of volumes).
  std::filesystem::path file(const std::string& name, std::size_t index = 0) const;
  const std::vector<std::filesystem::path>& directories() const { return dirs_; }
  /// Removes the directories now (also done by the destructor), then releases their locks.
  void remove();

 private:
  std::vector<std::filesystem::path> dirs_;
  std::vector<int> lock_fds_;  // one per directory; -1 where the filesystem has no flock()
};

/// Removes from `volume` every directory that a dead EdgeStream run left behind, and only those:
/// an entry is removed when (1) its name is "edgestream-<digits>-<digits>", (2) it is a directory
/// (not a symbolic link) owned by this user, (3) it holds a regular file "edgestream.lock", and
/// (4) a non-blocking exclusive flock() on that file succeeds — its owner is dead (pid reuse does
/// not matter: the lock belongs to the open file, not to a pid) — and is held while removing.
/// A live run's directory is never removed: its owner holds the lock from before the lock file has
/// its final name until the directory is gone. Directories without a lock file (older builds, or a
/// run killed within the microseconds between mkdir and its lock) are left alone. Prints one line
/// per removal on stderr: "removed stale scratch directory X left by a killed run". Returns how
/// many were removed; never fails (an unreadable volume is reported later by create()).
std::size_t remove_stale_scratch(const std::filesystem::path& volume);

}  // namespace edgestream
