// Printing RunStats the way X-Stream did, so existing parsing scripts keep working.
#include "core/run_stats.hpp"

#include <cstdio>
#include <iomanip>

#include "core/grid_codec.hpp"

namespace edgestream {

void print_core_lines(std::ostream& out, const RunStats& stats) {
  const MemoryPlan& plan = stats.plan;
  out << "CORE::CONFIG::PROCESSORS " << plan.threads << "\n"
      << "CORE::CONFIG::PHYSICAL_MEMORY " << plan.budget << "\n"
      << "CORE::CONFIG::VERTICES " << stats.vertices << "\n"
      << "CORE::CONFIG::EDGES " << stats.edges << "\n"
      << "CORE::CONFIG::PARTITIONS " << plan.partitions << "\n"
      << "CORE::CONFIG::CACHE_PARTITIONS " << plan.cache_partitions << "\n"
      << "CORE::CONFIG::VERTEX_BUFFER " << plan.state_bytes << "\n"
      << "CORE::CONFIG::READ_CHUNK " << plan.io.read_chunk << "\n"
      << "CORE::CONFIG::WRITE_CHUNK " << plan.io.write_chunk << "\n"
      << "CORE::CONFIG::IO_DEPTH " << plan.io.depth << "\n"
      << "CORE::CONFIG::DIRECT_IO " << (plan.io.direct ? 1 : 0) << "\n"
      << "CORE::CONFIG::ESTIMATED_PEAK_MEMORY " << plan.estimated_peak() << "\n"
      << "CORE::CONFIG::EDGES_IN_MEMORY " << (plan.edge_cache_bytes > 0 ? 1 : 0) << "\n"
      << "CORE::CONFIG::EDGE_GRID " << (plan.grid_bytes > 0 ? 1 : 0) << "\n"
      << "CORE::CONFIG::GRID_RECORD_BYTES " << plan.grid_record_bytes << "\n"
      << "CORE::CONFIG::GRID_RECORDS " << plan.grid_records << "\n"
      << "CORE::CONFIG::GRID_ON_DISK " << (plan.grid_window_bytes > 0 ? 1 : 0) << "\n"
      << "CORE::CONFIG::GRID_WINDOW_BYTES " << plan.grid_window_bytes << "\n"
      << "CORE::CONFIG::GRID_CODEC " << grid_codec_name(plan.grid_codec) << "\n"
      << "CORE::CONFIG::GRID_FILE_BYTES " << plan.grid_file_bytes << "\n"
      << "CORE::CONFIG::GRID_RESIDENT " << (plan.grid_resident ? 1 : 0) << "\n"
      << "CORE::CONFIG::GRID_KEPT_BYTES " << plan.grid_kept_bytes << "\n"
      << "CORE::CONFIG::SEGMENT_RECORDS " << plan.segment_records << "\n"
      << "CORE::CONFIG::SYMMETRIC_ONE_WAY " << (stats.symmetric_one_way ? 1 : 0) << "\n"
      << "CORE::CONFIG::EDGES_CODEC " << codec_name(stats.edges_codec) << "\n"
      << "CORE::CONFIG::UPDATES_CODEC " << codec_name(stats.updates_codec) << "\n"
      << "CORE::CONFIG::CODEC_MEMORY " << plan.codec_bytes << "\n"
      << "CORE::CONFIG::SCRATCH_CHECKSUMS " << (stats.scratch_checksums ? 1 : 0) << "\n"
      << "CORE::PARTITIONS " << plan.partitions << "\n"
      << "CORE::PHASES " << stats.supersteps << "\n"
      << "CORE::UPDATES::EMITTED " << stats.updates_emitted << "\n"
      << "CORE::UPDATES::IN_MEMORY " << stats.updates_in_memory << "\n"
      << "CORE::UPDATES::SPILLED " << stats.updates_spilled << "\n"
      << "CORE::GRID::STAGED_FROM_CHECK " << stats.grid_staged_from_check << "\n"
      << "CORE::GRID::RUNS_STAGED_SERIALLY " << stats.grid_runs_staged_serially << "\n"
      << "CORE::BYTES::INPUT_READ " << stats.input_io.bytes_read << "\n"
      << "CORE::BYTES::EDGES_READ " << stats.edges_io.bytes_read << "\n"
      << "CORE::BYTES::EDGES_WRITTEN " << stats.edges_io.bytes_written << "\n"
      << "CORE::BYTES::UPDATES_READ " << stats.updates_io.bytes_read << "\n"
      << "CORE::BYTES::UPDATES_WRITTEN " << stats.updates_io.bytes_written << "\n"
      << "CORE::BYTES::VERTICES_READ " << stats.vertices_io.bytes_read << "\n"
      << "CORE::BYTES::VERTICES_WRITTEN " << stats.vertices_io.bytes_written << "\n"
      << "CORE::COMPRESSION::EDGES::RAW_BYTES " << stats.edges_codec_io.raw_bytes << "\n"
      << "CORE::COMPRESSION::EDGES::STORED_BYTES " << stats.edges_codec_io.stored_bytes << "\n"
      << "CORE::COMPRESSION::EDGES::RATIO " << stats.edges_codec_io.ratio() << "\n"
      << "CORE::COMPRESSION::EDGES::DECODED_BYTES " << stats.edges_codec_io.decoded_bytes << "\n"
      << "CORE::COMPRESSION::UPDATES::RAW_BYTES " << stats.updates_codec_io.raw_bytes << "\n"
      << "CORE::COMPRESSION::UPDATES::STORED_BYTES " << stats.updates_codec_io.stored_bytes << "\n"
      << "CORE::COMPRESSION::UPDATES::RATIO " << stats.updates_codec_io.ratio() << "\n"
      << "CORE::COMPRESSION::UPDATES::DECODED_BYTES " << stats.updates_codec_io.decoded_bytes << "\n"
      << "CORE::COMPRESSION::INPUT::CODEC " << stats.input_codec << "\n"
      << "CORE::COMPRESSION::INPUT::RAW_BYTES " << stats.input_raw_bytes << "\n"
      << "CORE::COMPRESSION::INPUT::STORED_BYTES " << stats.input_stored_bytes << "\n"
      << "CORE::COMPRESSION::INPUT::RATIO "
      << (stats.input_stored_bytes == 0 ? 1.0 : static_cast<double>(stats.input_raw_bytes) / static_cast<double>(stats.input_stored_bytes))
      << "\n"
      << "CORE::COMPRESSION::INPUT::DECODED_BYTES " << stats.input_codec_io.decoded_bytes << "\n"
      << "CORE::COMPRESSION::COMPRESS_SECONDS "
      << static_cast<double>(stats.edges_codec_io.compress_ns + stats.updates_codec_io.compress_ns) * 1e-9 << "\n"
      << "CORE::COMPRESSION::DECOMPRESS_SECONDS "
      << static_cast<double>(stats.edges_codec_io.decompress_ns + stats.updates_codec_io.decompress_ns +
                             stats.input_codec_io.decompress_ns) * 1e-9 << "\n"
      << "CORE::COMPRESSION::CPU_SECONDS " << stats.codec_cpu_seconds() << "\n"
      << "CORE::UTILS::BYTES_READ " << stats.bytes_read() << "\n"
      << "CORE::UTILS::BYTES_WRITTEN " << stats.bytes_written() << "\n"
      << "CORE::UTILS::PEAK_RSS " << stats.peak_rss << "\n"
      << "CORE::TIME::SETUP " << stats.setup_seconds << " seconds\n"
      << "CORE::TIME::IO_WAIT " << stats.io_wait_seconds() << " seconds\n";
  // Per scratch volume (docs/volumes.md): traffic of the scratch streams striped or placed there.
  out << "CORE::CONFIG::VOLUMES " << stats.volumes.size() << "\n";
  for (std::size_t v = 0; v < stats.volumes.size(); ++v) {
    const VolumeStats& s = stats.volumes[v];
    const std::string key = "CORE::VOLUME::" + std::to_string(v) + "::";
    out << key << "PATH " << s.path << "\n"
        << key << "READ_CHUNK " << s.read_chunk << "\n"
        << key << "WRITE_CHUNK " << s.write_chunk << "\n"
        << key << "IO_DEPTH " << s.depth << "\n"
        << key << "BYTES_READ " << s.bytes_read << "\n"
        << key << "BYTES_WRITTEN " << s.bytes_written << "\n"
        << key << "REQUESTS " << s.requests << "\n"
        << key << "MEAN_IN_FLIGHT " << s.mean_in_flight << "\n"
        << key << "MAX_IN_FLIGHT " << s.max_in_flight << "\n";
  }
  if (stats.checkpoint.enabled) {
    out << "CORE::CHECKPOINT::WRITTEN " << stats.checkpoint.written << "\n"
        << "CORE::CHECKPOINT::FAILED " << stats.checkpoint.failed << "\n"
        << "CORE::CHECKPOINT::BYTES " << stats.checkpoint.bytes << "\n"
        << "CORE::CHECKPOINT::SECONDS " << stats.checkpoint.seconds << "\n"
        << "CORE::CHECKPOINT::RESUMED_FROM " << stats.checkpoint.resumed_from << "\n";
  }
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace edgestream
