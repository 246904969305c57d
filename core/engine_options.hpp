// What the user chose for a run of the engine (filled by benchmark_driver from its options).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "compress/codec.hpp"
#include "core/checkpoint_options.hpp"
#include "io/io_options.hpp"

namespace edgestream {

/// One volume's own request sizes and depth (0 = the run's --read_chunk / --write_chunk / --io_depth).
struct VolumeSettings {
  std::size_t read_chunk = 0;
  std::size_t write_chunk = 0;
  unsigned depth = 0;
};

/// X-Stream's placement options: the volume index a stream kind lives on (-1 = striped over all).
struct VolumePlacement {
  long vertices = -1;  // --vertices_disk
  long input = -1;     // --input_disk (validated only: the input is read where the .ini points)
  long edges = -1;     // --edges_disk (forward and reverse edge streams)
  long updates0 = -1;  // --updates0_disk
  long updates1 = -1;  // --updates1_disk
  long output = -1;    // --output_disk (validated only: --output is an explicit path)
};

/// Whether K = 1 keeps edges that do not fit in memory as an on-disk grid (--disk_grid): kAuto
/// unless the program announces too few supersteps to repay building it (core/memory_plan.cpp),
/// kOn always, kOff never (the input is streamed every superstep).
enum class DiskGrid : std::uint8_t { kAuto, kOn, kOff };

/// How the on-disk grid stores its records (--grid_codec; core/grid_codec.hpp).
enum class GridCodec : std::uint8_t {
  kNone,       // compact records as they are, in input order within a bucket
  kEliasFano,  // sorted within each bucket, in pieces whose keys are Elias-Fano coded
  kAuto,       // the default: kEliasFano when that likely keeps the built grid in memory, else kNone (memory_plan.cpp)
};

struct EngineOptions {
  unsigned threads = 1;                                // -p
  std::uint64_t physical_memory = std::uint64_t{1} << 30;  // --physical_memory: peak RSS bound
  std::uint64_t forced_partitions = 0;                 // -k / --super_partitions; 0 = autotune
  std::uint64_t cpu_cache_size = std::uint64_t{2} << 20;  // --cpu_cache_size
  IoOptions io;                                        // chunk sizes, depth, direct, engine
  std::vector<std::filesystem::path> work_dirs;        // scratch volumes (streams striped over them)
  std::vector<VolumeSettings> work_dir_settings;       // per work_dirs entry (missing = the run's settings)
  VolumePlacement placement;                           // --*_disk (core/volume_set.hpp)
  std::uint64_t stripe_unit = 0;                       // --stripe_unit; 0 = largest chunk of the volumes
  bool heartbeat = false;                              // one line per superstep on stderr
  std::uint64_t batch_records = 0;                     // records per worker per step; 0 = planned
  bool cache_edges = true;                             // keep the input in memory when K = 1 and it fits
  bool edge_grid = true;                               // and regroup it by block pairs (core/block_schedule.hpp)
  bool compact_grid = true;                            // grid records as block-local ids (--full_grid_records: off)
  // K > 1: records per segment of the keyed edge streams (--segment_records; core/keyed_segments.hpp);
  // UINT64_MAX = planned (the batch size), 0 = edge streams in input order.
  std::uint64_t segment_records = UINT64_MAX;
  std::uint64_t grid_window = 64ULL << 20;             // largest window of the on-disk grid (--grid_window)
  DiskGrid disk_grid = DiskGrid::kAuto;                // --disk_grid
  GridCodec grid_codec = GridCodec::kAuto;             // --grid_codec
  bool grid_resident = true;                           // keep the on-disk grid in memory once built when it fits (--stream_grid: off)
  std::uint64_t grid_memory = UINT64_MAX;              // at most this much room for the on-disk grid (its windows,
                                                       // kept or resident part); --grid_memory (diagnostics, tests)
  std::uint64_t grid_keep_bytes = UINT64_MAX;          // at most this much of the on-disk grid stays in memory (built in
                                                       // place, not written); --grid_keep_bytes (diagnostics, tests)
  CodecSpec edges_codec;                               // --edges_codec: per-partition edge streams (K > 1)
  // --edges_codec auto (benchmark_driver's default): the engine replaces edges_codec by delta for
  // programs whose keyed scatter skips records by the active vertex bits (bfs, cc, sssp), and by
  // none for the others (Engine::with_edges_codec).
  bool edges_codec_auto = false;
  CodecSpec updates_codec;                             // --updates_codec: update streams (K > 1)
  bool scratch_checksums = true;                       // frame + crc32 every scratch chunk, also with codec none
                                                       // (--no_scratch_checksums turns it off; docs/compression.md)
  CheckpointOptions checkpoint;                        // --checkpoint / --resume (core/checkpoint.hpp)
};

}  // namespace edgestream
