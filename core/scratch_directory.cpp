// ScratchDirectory: unique per-run directories on the scratch volumes, each locked by its owner for
// its whole life, removed at the end; the stale ones of killed runs are removed by the next run.
#include "core/scratch_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <random>
#include <system_error>

namespace edgestream {
namespace {

constexpr const char* kPrefix = "edgestream-";

// "edgestream-<digits>-<digits>": the only names create() makes.
bool is_scratch_name(const std::string& name) {
  if (name.rfind(kPrefix, 0) != 0) return false;
  const std::string rest = name.substr(std::string(kPrefix).size());
  const std::size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == rest.size()) return false;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (i != dash && (rest[i] < '0' || rest[i] > '9')) return false;
  }
  return true;
}

// Creates dir/edgestream.lock already locked: the file is made and locked under a temporary name
// and then renamed, so that no other process can ever see the final name unlocked while we live.
// Returns the descriptor (kept open for the directory's life), or -1 when the filesystem does not
// support flock() (the directory then is never removed by remove_stale_scratch).
int create_lock(const std::filesystem::path& dir) {
  const std::filesystem::path temp = dir / ".edgestream.lock.new";
  const int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::rename(temp.c_str(), (dir / kScratchLockName).c_str()) != 0) {
    ::unlink(temp.c_str());
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::size_t remove_stale_scratch(const std::filesystem::path& volume) {
  std::size_t removed = 0;
  std::error_code ec;
  std::filesystem::directory_iterator it(volume, ec);
  if (ec) return 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::filesystem::path dir = it->path();
    if (!is_scratch_name(dir.filename().string())) continue;
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
    const std::filesystem::path lock = dir / kScratchLockName;
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat lst {};
    if (::fstat(fd, &lst) != 0 || !S_ISREG(lst.st_mode) || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);  // a live run holds it (EWOULDBLOCK), or no flock() here: leave it
      continue;
    }
    // Still the directory's lock file (not removed and replaced since we opened it)?
    struct stat now {};
    if (::stat(lock.c_str(), &now) == 0 && now.st_ino == lst.st_ino && now.st_dev == lst.st_dev) {
      std::error_code remove_ec;
      const auto count = std::filesystem::remove_all(dir, remove_ec);
      if (count > 0 && count != static_cast<std::uintmax_t>(-1)) {
        ++removed;
        std::cerr << "removed stale scratch directory " << dir.string() << " left by a killed run" << std::endl;
      }
    }
    ::close(fd);
  }
  return removed;
}

Expected<ScratchDirectory> ScratchDirectory::create(const std::vector<std::filesystem::path>& volumes) {
  std::vector<std::filesystem::path> roots = volumes;
  if (roots.empty()) roots.emplace_back(".");
  std::random_device device;
  ScratchDirectory scratch;
  for (const auto& root : roots) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) {
      return not_found("scratch volume " + root.string() + " is not an existing directory");
    }
    remove_stale_scratch(root);
    std::filesystem::path dir;
    for (int attempt = 0;; ++attempt) {
      dir = root / (kPrefix + std::to_string(::getpid()) + "-" + std::to_string(device() % 1000000000U));
      if (std::filesystem::create_directory(dir, ec)) break;
      if (ec || attempt > 100) {
        return errno_status(ec ? ec.value() : EEXIST, "create scratch directory", dir.string());
      }
    }
    scratch.dirs_.push_back(dir);
    scratch.lock_fds_.push_back(create_lock(dir));
  }
  return scratch;
}

ScratchDirectory::ScratchDirectory(ScratchDirectory&& other) noexcept
    : dirs_(std::move(other.dirs_)), lock_fds_(std::move(other.lock_fds_)) {
  other.dirs_.clear();
  other.lock_fds_.clear();
}

ScratchDirectory& ScratchDirectory::operator=(ScratchDirectory&& other) noexcept {
  if (this != &other) {
    remove();
    dirs_ = std::move(other.dirs_);
    lock_fds_ = std::move(other.lock_fds_);
    other.dirs_.clear();
    other.lock_fds_.clear();
  }
  return *this;
}

ScratchDirectory::~ScratchDirectory() { remove(); }

std::filesystem::path ScratchDirectory::file(const std::string& name, std::size_t index) const {
  return dirs_[index % dirs_.size()] / name;
}

void ScratchDirectory::remove() {
  // The lock is released only once the directory is gone, so no other run can race for it.
  for (const auto& dir : dirs_) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  for (const int fd : lock_fds_) {
    if (fd >= 0) ::close(fd);
  }
  dirs_.clear();
  lock_fds_.clear();
}

}  // namespace edgestream
