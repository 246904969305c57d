// Which device holds a path: the MAJ:MIN of its filesystem (stat's st_dev), the key of
// /sys/dev/block/MAJ:MIN and of /proc/self/mountinfo. Shared by the device sampler (io/) and the
// device probe (utils/).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace edgestream {

struct DeviceNumber {
  unsigned major_id = 0;  // 0: no block device behind it (tmpfs, FUSE, NFS, overlay)
  unsigned minor_id = 0;
  /// "MAJ:MIN", as sysfs and mountinfo write it.
  std::string text() const { return std::to_string(major_id) + ":" + std::to_string(minor_id); }
};

/// The device number of the filesystem holding `path`; nullopt when `path` cannot be stat()ed.
std::optional<DeviceNumber> device_number_of(const std::filesystem::path& path);

}  // namespace edgestream
