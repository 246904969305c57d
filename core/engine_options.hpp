// What the user chose for a run of the engine (filled by benchmark_driver from its options).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "compress/codec.hpp"
#include "core/checkpoint_options.hpp"
#include "io/io_options.hpp"

namespace edgestream {

struct EngineOptions {
  unsigned threads = 1;                                // -p
  std::uint64_t physical_memory = std::uint64_t{1} << 30;  // --physical_memory: peak RSS bound
  std::uint64_t forced_partitions = 0;                 // -k / --super_partitions; 0 = autotune
  std::uint64_t cpu_cache_size = std::uint64_t{2} << 20;  // --cpu_cache_size
  IoOptions io;                                        // chunk sizes, depth, direct, engine
  std::vector<std::filesystem::path> work_dirs;        // scratch volumes (streams spread over them)
  bool heartbeat = false;                              // one line per superstep on stderr
  std::uint64_t batch_records = 0;                     // records per worker per step; 0 = planned
  bool cache_edges = true;                             // keep the input in memory when K = 1 and it fits
  CodecSpec edges_codec;                               // --edges_codec: per-partition edge streams (K > 1)
  CodecSpec updates_codec;                             // --updates_codec: update streams (K > 1)
  CheckpointOptions checkpoint;                        // --checkpoint / --resume (core/checkpoint.hpp)
};

}  // namespace edgestream
