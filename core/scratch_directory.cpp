// ScratchDirectory: unique per-run directories on the scratch volumes, removed at the end.
#include "core/scratch_directory.hpp"

#include <unistd.h>

#include <random>
#include <system_error>

namespace edgestream {

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
    std::filesystem::path dir;
    for (int attempt = 0;; ++attempt) {
      dir = root / ("edgestream-" + std::to_string(::getpid()) + "-" + std::to_string(device() % 1000000000U));
      if (std::filesystem::create_directory(dir, ec)) break;
      if (ec || attempt > 100) {
        return errno_status(ec ? ec.value() : EEXIST, "create scratch directory", dir.string());
      }
    }
    scratch.dirs_.push_back(dir);
  }
  return scratch;
}

ScratchDirectory::ScratchDirectory(ScratchDirectory&& other) noexcept : dirs_(std::move(other.dirs_)) {
  other.dirs_.clear();
}

ScratchDirectory& ScratchDirectory::operator=(ScratchDirectory&& other) noexcept {
  if (this != &other) {
    remove();
    dirs_ = std::move(other.dirs_);
    other.dirs_.clear();
  }
  return *this;
}

ScratchDirectory::~ScratchDirectory() { remove(); }

std::filesystem::path ScratchDirectory::file(const std::string& name, std::size_t index) const {
  return dirs_[index % dirs_.size()] / name;
}

void ScratchDirectory::remove() {
  for (const auto& dir : dirs_) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  dirs_.clear();
}

}  // namespace edgestream
