// Samples the block devices that hold some directories (the run's input and scratch volumes) while
// a timeline records (io/timeline.hpp): every period, each device's read and write throughput,
// requests in flight and busy share from /sys/dev/block/MAJ:MIN/stat, as counter series beside the
// threads' spans. That shows when the device sat idle while the threads computed, and the totals
// give the device's busy time over the run. Directories on no block device (tmpfs, FUSE, NFS) are
// listed as skipped.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace edgestream {

/// One block device's counters from its stat file (sectors of 512 bytes; milliseconds).
struct BlockDeviceStat {
  std::uint64_t read_sectors = 0;
  std::uint64_t write_sectors = 0;
  std::uint64_t in_flight = 0;
  std::uint64_t busy_ms = 0;  // io_ticks: time with at least one request in flight
};

/// Parses the text of a /sys/block/.../stat file; false when it has fewer than 10 fields.
bool parse_block_device_stat(const std::string& text, BlockDeviceStat& out);

class DeviceSampler {
 public:
  struct Totals {
    std::string device;  // "MAJ:MIN"
    std::string dir;     // the first directory given on it
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
    double busy_seconds = 0;
    double seconds = 0;  // sampled for
  };

  /// Starts a thread sampling, every `period`, each distinct block device holding one of `dirs`
  /// (a device is sampled once whatever the number of its directories). Without any block device
  /// it samples nothing (skipped() lists the directories). When the system refuses the thread,
  /// stop() still gives the totals (no_samples() says why there are no samples over time).
  DeviceSampler(const std::vector<std::filesystem::path>& dirs, std::chrono::milliseconds period);
  DeviceSampler(const DeviceSampler&) = delete;
  DeviceSampler& operator=(const DeviceSampler&) = delete;
  ~DeviceSampler();

  /// Stops sampling and returns each device's totals from start to the first stop() (all the
  /// device's traffic, the run's and any other process's); later calls return the same.
  std::vector<Totals> stop();
  /// The directories on no block device (or whose statistics could not be read).
  const std::vector<std::string>& skipped() const { return skipped_; }
  /// Why the devices have totals but no samples over time ("" when they are sampled): the
  /// sampling thread could not be started (a limit on threads or processes).
  const std::string& no_samples() const { return no_samples_; }

 private:
  struct Device {
    std::string id;
    std::string dir;
    std::string stat_path;
    BlockDeviceStat first;
    BlockDeviceStat last;
  };
  void loop();
  void sample(std::uint64_t now_ns, std::uint64_t elapsed_ns);

  std::vector<Device> devices_;
  std::vector<std::string> skipped_;
  std::string no_samples_;
  std::chrono::milliseconds period_;
  std::uint64_t start_ns_ = 0;
  std::uint64_t stop_ns_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<Totals> totals_;  // stop()'s
  std::thread thread_;
};

}  // namespace edgestream
