// The scratch volumes of a run (docs/volumes.md): which directories (--work_dir, else the .ini's
// [disk] mnt0.., else the input's directory), each volume's request sizes and depth, X-Stream's
// placement options (--vertices_disk, --edges_disk, --updates0_disk, --updates1_disk; input_disk
// and output_disk are validated only), the stripe layout of every scratch stream, the per-run
// scratch directories, and per-volume traffic counters for the statistics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/engine_options.hpp"
#include "core/scratch_directory.hpp"
#include "io/graph_format.hpp"
#include "io/io_options.hpp"
#include "io/status.hpp"
#include "io/striped_file.hpp"

namespace edgestream {

/// What the statistics report per volume.
struct VolumeStats {
  std::string path;  // the volume's directory
  std::size_t read_chunk = 0;
  std::size_t write_chunk = 0;
  unsigned depth = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t requests = 0;
  double mean_in_flight = 0;     // a stream's requests in flight on this volume, mean at submission
  std::uint64_t max_in_flight = 0;
};

enum class StreamKind { kVertices, kEdges, kUpdates0, kUpdates1 };

/// Parses one --work_dir argument: "DIR" or "DIR,key=value,..." with keys read_chunk, write_chunk
/// (sizes such as 1M), io_depth, and config=FILE (a preset such as configs/network-volume.cfg;
/// keys given after it win). A DIR that exists as given (even containing commas) is taken whole.
Expected<std::pair<std::filesystem::path, VolumeSettings>> parse_work_dir(const std::string& argument);

/// Reads a preset file (key = value lines, '#' comments) into volume settings.
Expected<VolumeSettings> read_volume_config(const std::filesystem::path& file);

/// The settings of the .ini's [disk] volume `volume` (keys mntN_read_chunk, mntN_write_chunk,
/// mntN_io_depth, mntN_config=PRESET relative to the .ini's directory; explicit keys win over the
/// preset). Unset fields stay 0 (the run's options). Errors name the .ini, its line and the key.
Expected<VolumeSettings> ini_volume_settings(const GraphInfo& graph, std::size_t volume);

/// The volume directories of a run: options.work_dirs, else graph.volumes, else the directory of
/// the input edge file.
std::vector<std::filesystem::path> volume_roots(const EngineOptions& options, const GraphInfo& graph);

/// Checks every placement index against `volumes`: an index out of range is kInvalidArgument
/// naming the option and the number of volumes.
Status validate_placement(const VolumePlacement& placement, std::size_t volumes);

class VolumeSet {
 public:
  /// Resolves the volumes and their settings (each setting left 0 takes `global`'s), and checks the
  /// placement. Creates nothing yet.
  static Expected<VolumeSet> resolve(const EngineOptions& options, const GraphInfo& graph);
  VolumeSet() = default;
  VolumeSet(VolumeSet&&) noexcept = default;
  VolumeSet& operator=(VolumeSet&&) noexcept = default;

  std::size_t size() const { return roots_.size(); }
  /// For the memory plan: largest read and write chunk of any volume and the sum of every volume's
  /// depth (a stream striped over all volumes keeps that many requests in flight), with the
  /// direct/engine choices of `global`.
  IoOptions envelope(const IoOptions& global) const;
  /// After planning: each volume's chunks are cut to the plan's, and the depths scaled down so
  /// that their sum stays within plan_io.depth (each at least 1; the plan gives at least size()).
  void fit_to_plan(const IoOptions& plan_io);
  /// Creates the per-run scratch directory on every volume and fixes the stripe unit.
  Status create_scratch();
  /// The stripe layout of stream `name` of `kind` (its volume set rotated by `index`, so that
  /// small streams that fit one stripe still spread over the volumes). After create_scratch().
  StripeLayout layout(StreamKind kind, const std::string& name, std::uint64_t index) const;
  std::uint64_t stripe_unit() const { return unit_; }
  /// Removes the scratch directories (also on destruction).
  void remove_scratch() { scratch_.remove(); }
  const std::vector<std::filesystem::path>& scratch_directories() const { return scratch_.directories(); }
  std::vector<VolumeStats> stats() const;

 private:
  std::vector<std::size_t> volumes_of(StreamKind kind) const;

  std::vector<std::filesystem::path> roots_;
  std::vector<IoOptions> io_;
  VolumePlacement placement_;
  std::uint64_t requested_unit_ = 0;
  std::uint64_t unit_ = 0;
  std::unique_ptr<VolumeCounters[]> counters_;
  ScratchDirectory scratch_;
};

}  // namespace edgestream
