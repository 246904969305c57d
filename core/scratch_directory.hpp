// A per-run scratch directory on each volume (X-Stream's [disk] mnt0.. or --work_dir): a fresh,
// uniquely named subdirectory, so two runs in the same place never clash, removed with everything
// in it when the run ends — on success, on error and after SIGINT/SIGTERM (the engine unwinds).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

class ScratchDirectory {
 public:
  /// Creates "<volume>/edgestream-<pid>-<random>" on every volume (the current directory when
  /// `volumes` is empty). Fails with a message naming the volume when it is missing or unwritable.
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
  /// Removes the directories now (also done by the destructor).
  void remove();

 private:
  std::vector<std::filesystem::path> dirs_;
};

}  // namespace edgestream
