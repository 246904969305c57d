// What a run did: the plan it used, supersteps, times, bytes moved per stream kind, update
// traffic, peak memory. Printed as X-Stream's statistics lines and as one JSON object.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "compress/codec.hpp"
#include "compress/codec_counters.hpp"
#include "core/memory_plan.hpp"
#include "core/volume_set.hpp"
#include "io/io_options.hpp"

namespace edgestream {

struct SuperstepStats {
  std::uint32_t superstep = 0;
  std::uint64_t emitted = 0;     // updates produced by scatter (before combining)
  std::uint64_t in_memory = 0;   // applied directly (destination state in memory)
  std::uint64_t direct = 0;      // of those, applied by the grid's scatter itself, never buffered (this
                                 // process only: not kept in checkpoints, 0 for supersteps resumed past)
  std::uint64_t spilled = 0;     // written to update streams (after combining)
  std::uint64_t changed = 0;     // gathers that changed a vertex
  std::uint64_t active = 0;      // vertices whose prepare() returned true (programs whose prepare returns bool)
};

/// What a run did with checkpoints (--checkpoint/--resume; core/checkpoint.hpp): this process only.
struct CheckpointStats {
  bool enabled = false;            // --checkpoint or --resume was given
  std::uint64_t written = 0;       // checkpoints committed
  std::uint64_t failed = 0;        // checkpoints the storage refused (warned; the run went on)
  std::uint64_t bytes = 0;         // their bytes
  double seconds = 0;              // time spent writing them (included in the engine's time)
  std::int64_t resumed_from = -1;  // the superstep a resumed run started at (-1: not resumed)
};

struct RunStats {
  MemoryPlan plan;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  std::uint64_t supersteps = 0;
  double setup_seconds = 0;      // planning, scratch set-up and the split pass
  double engine_seconds = 0;     // setup + supersteps + final pass
  IoCounters input_io;           // reading the input edge file
  IoCounters edges_io;           // per-partition edge streams (K > 1)
  IoCounters updates_io;         // update streams
  IoCounters vertices_io;        // vertex state spills (K > 1)
  CodecSpec edges_codec;         // codecs of the scratch streams
  CodecSpec updates_codec;
  bool scratch_checksums = true; // scratch chunks framed with a crc32 (also with codec none)
  CodecCounters edges_codec_io;  // compressed edge streams: bytes before/after, codec CPU time
  CodecCounters updates_codec_io;
  std::string input_codec = "none";      // the input's storage (the .ini's codec=)
  std::uint64_t input_raw_bytes = 0;     // the input's records (edges * record size)
  std::uint64_t input_stored_bytes = 0;  // the edge file's size (compressed when framed)
  CodecCounters input_codec_io;          // compressed input: bytes decoded and decoding CPU time
  bool symmetric_one_way = false;  // the grid scattered one way (a symmetric input, core/program.hpp)
  std::uint64_t updates_emitted = 0;
  std::uint64_t updates_in_memory = 0;
  std::uint64_t updates_spilled = 0;
  std::uint64_t peak_rss = 0;
  std::vector<SuperstepStats> per_superstep;
  std::vector<VolumeStats> volumes;  // scratch volumes (core/volume_set.hpp); empty when none was used
  CheckpointStats checkpoint;
  // The on-disk grid's build (EngineBase::build_staged): grid records whose staged entries the
  // input's check wrote, so that staging only moved them (CORE::GRID::STAGED_FROM_CHECK).
  std::uint64_t grid_staged_from_check = 0;
  std::uint64_t grid_runs_staged_serially = 0;  // runs of them with a group's share larger than its buffer (CORE::GRID::RUNS_STAGED_SERIALLY)

  std::uint64_t bytes_read() const {
    return input_io.bytes_read + edges_io.bytes_read + updates_io.bytes_read + vertices_io.bytes_read;
  }
  std::uint64_t bytes_written() const {
    return input_io.bytes_written + edges_io.bytes_written + updates_io.bytes_written + vertices_io.bytes_written;
  }
  /// CPU seconds spent in codecs (compress + decompress, all stream kinds, all threads).
  double codec_cpu_seconds() const {
    return static_cast<double>(edges_codec_io.compress_ns + edges_codec_io.decompress_ns + updates_codec_io.compress_ns +
                               updates_codec_io.decompress_ns + input_codec_io.decompress_ns) * 1e-9;
  }
  double io_wait_seconds() const {
    return static_cast<double>(input_io.wait_ns + edges_io.wait_ns + updates_io.wait_ns + vertices_io.wait_ns) * 1e-9;
  }
};

/// Prints the X-Stream-compatible CORE:: lines (partitions, config, phases, bytes, setup/io-wait).
/// CORE::TIME::WALL is printed by the driver, which knows when the program started.
void print_core_lines(std::ostream& out, const RunStats& stats);

/// Escapes `s` for a JSON string literal (without the quotes).
std::string json_escape(const std::string& s);

}  // namespace edgestream
