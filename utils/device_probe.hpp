// Device probe: measures the sequential read and write bandwidth of a directory's device the way
// EdgeStream's streams use it (direct I/O through io_uring, fixed request size, N requests in
// flight), over a matrix of request sizes × queue depths, and recommends chunk sizes and a depth.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

struct ProbeOptions {
  std::filesystem::path dir;                 // directory whose device is measured (must exist)
  std::vector<std::uint64_t> request_sizes;  // bytes, multiples of 4096
  std::vector<unsigned> depths;              // requests in flight
  bool read = true;
  bool write = true;
  std::uint64_t file_bytes = 1ull << 30;     // test file size (rounded down to 4 KiB)
  double seconds_per_cell = 1.0;             // time bound of one (op, size, depth) cell
  std::uint64_t max_inflight_bytes = 256ull << 20;  // cells with size × depth above this are skipped
  bool direct = true;                        // O_DIRECT (falls back to buffered where refused)
  bool keep_file = false;                    // leave the test file behind (for debugging)
};

struct ProbeCell {
  std::string op;  // "read" or "write"
  std::uint64_t request_bytes = 0;
  unsigned queue_depth = 0;
  std::uint64_t bytes = 0;     // completed
  std::uint64_t requests = 0;  // completed
  double seconds = 0;
  double mbps() const { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0; }
  double iops() const { return seconds > 0 ? static_cast<double>(requests) / seconds : 0; }
};

struct ProbeResult {
  std::string device;      // mount source (e.g. /dev/vda, /dev/loop0, user@host:/path)
  std::string filesystem;  // e.g. ext4, fuse.sshfs, tmpfs
  bool direct_io = false;  // O_DIRECT in effect (false: refused by the filesystem, or --no_dio)
  bool uring = false;      // io_uring used (false: synchronous pread/pwrite, depth 1)
  std::uint64_t file_bytes = 0;
  std::vector<ProbeCell> cells;
  std::vector<std::string> notes;  // cells skipped and why, fallbacks
};

/// Below this bandwidth (MB/s; the slower of the best read and the best write measured) a volume
/// is slow enough that the edge streams pay for their coding with every program: `delta` edge
/// streams and an Elias-Fano grid. Measured on a throttled loop volume (docs/performance.md, sessions
/// 23, 50 and 53): at 150, 250 and 500 MB/s delta edges took 13-45% off the wall time of bfs, sssp,
/// PageRank and cc (at 500 MB/s, rmat22 at 32M: bfs 8.7 -> 6.5 s, sssp 33.3 -> 24.2, PageRank 5 it.
/// 13.2 -> 11.5, cc 17.8 -> 13.0); on the ~1.2 GB/s local disk they help bfs, leave sssp and PageRank
/// about even and can cost cc, so there the engine's `auto` decides per program.
inline constexpr double kDeltaEdgesBelowMbps = 600;

struct ProbeRecommendation {
  std::uint64_t read_chunk = 0;
  std::uint64_t write_chunk = 0;
  unsigned io_depth = 0;
  double read_mbps = 0;   // bandwidth of the chosen read cell
  double write_mbps = 0;  // bandwidth of the chosen write cell
  double best_read_mbps = 0;
  double best_write_mbps = 0;
  /// --edges_codec: "delta" below kDeltaEdgesBelowMbps, else "auto"; empty when nothing was measured.
  std::string edges_codec;
  /// --grid_codec: "ef" below kDeltaEdgesBelowMbps, else empty (the engine's default, auto).
  std::string grid_codec;
};

/// The mount source and filesystem type of the mount holding `dir` (from /proc/self/mountinfo).
/// Returns {"unknown", "unknown"} when it cannot be determined.
std::pair<std::string, std::string> device_of(const std::filesystem::path& dir);

/// Runs the matrix. Creates (and removes, unless keep_file) one test file `edgestream-probe-<pid>`
/// in `dir`, written in full once before the cells. `progress` (may be empty) gets one line per
/// finished cell. Errors name the file and offset; the test file is removed on error too.
Expected<ProbeResult> run_probe(const ProbeOptions& options, const std::function<void(const std::string&)>& progress);

/// For each op, the cell with the smallest request_bytes × queue_depth (the engine's buffer
/// memory) that reaches `fraction` of that op's best bandwidth; io_depth is the larger of the two
/// chosen depths. Ops that were not measured give 0. The codecs from the slower op's best
/// bandwidth (kDeltaEdgesBelowMbps).
ProbeRecommendation recommend(const ProbeResult& result, double fraction = 0.9);

/// CSV: header `op,request_bytes,queue_depth,MBps,IOPS,seconds,bytes,direct_io,device,filesystem`
/// then one row per cell (CONTRACT §2 columns first).
void write_probe_csv(std::ostream& out, const ProbeResult& result);

/// A benchmark_driver --config file (key = value) with the recommendation and a comment saying
/// where it came from.
void write_preset(std::ostream& out, const ProbeResult& result, const ProbeRecommendation& rec,
                  const std::string& dir);

/// "4K", "16M", "1G" when exact, else the byte count.
std::string format_size(std::uint64_t bytes);

}  // namespace edgestream
