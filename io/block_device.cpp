// device_number_of (io/block_device.hpp): stat() and the major/minor halves of st_dev.
#include "io/block_device.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace edgestream {

std::optional<DeviceNumber> device_number_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return DeviceNumber{major(st.st_dev), minor(st.st_dev)};
}

}  // namespace edgestream
