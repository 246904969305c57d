// benchmark_driver: X-Stream's command line (every option accepted with its meaning), EdgeStream's
// additions, the run, and the X-Stream statistics lines / JSON / verification output.
#include "benchmarks/driver.hpp"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>

#include "algorithms/algorithm.hpp"
#include "algorithms/checkpointable.hpp"
#include "compress/codec.hpp"
#include "core/cancellation.hpp"
#include "core/grid_codec.hpp"
#include "core/size_literal.hpp"
#include "core/volume_set.hpp"
#include "io/device_sampler.hpp"
#include "io/graph_format.hpp"
#include "io/timeline.hpp"
#include "utils/memory_blocker.hpp"

namespace po = boost::program_options;

namespace edgestream {
namespace {

// Algorithms of the contract that this build does not run yet (they are named so the message can
// say so instead of "unknown").

po::options_description make_options() {
  po::options_description general("General (X-Stream compatible)");
  general.add_options()
      ("help,h", "print this help")
      ("graph,g", po::value<std::string>(), "graph: G or G.ini (required)")
      ("benchmark,b", po::value<std::string>()->default_value("bfs"), "algorithm to run")
      ("processors,p", po::value<std::string>()->default_value("1"), "worker threads")
      ("autotune,a", "choose the number of partitions from --physical_memory (the default)")
      ("physical_memory", po::value<std::string>()->default_value("1G"),
       "memory budget: peak RSS stays within it (e.g. 256M, 8G)")
      ("partitions,k", po::value<std::string>(), "force this many streaming partitions")
      ("super_partitions", po::value<std::string>(), "multiplies --partitions (X-Stream's two-level count)")
      ("cpu_cache_size", po::value<std::string>()->default_value("2M"), "per-core cache size for cache partitions")
      ("cpu_line_size", po::value<std::string>()->default_value("64"), "cache line size (accepted; unused)")
      ("fanout,f", po::value<std::string>()->default_value("32"), "X-Stream's splitter fanout (accepted; unused)")
      ("force_buffers", po::value<std::string>()->default_value("0"), "X-Stream's buffer count (accepted; unused)")
      ("qsort", "X-Stream's sort-based shuffle (accepted; unused: routing is a counting sort)")
      ("no_dio", "buffered I/O through the page cache instead of direct I/O")
      ("compressed_io", "zlib for edge and update streams (X-Stream's meaning)")
      ("blocked_memory", po::value<std::string>()->default_value("0"), "pin this much RAM during the run")
      ("heartbeat", "one line per superstep on stderr")
      ("timeline", po::value<std::string>(),
       "write every thread's work and waits as a Chrome trace (JSON; open in ui.perfetto.dev) and their totals on stderr")
      ("measure_scatter_gather", "accepted; per-superstep times are in --stats_json")
      ("destroy_init", "accepted; the input is never modified")
      ("vertices_disk", po::value<std::string>(), "volume index for the vertex state file (default: striped over all volumes)")
      ("input_disk", po::value<std::string>(), "volume index of the input (X-Stream placement; validated, the input is read where the .ini points)")
      ("edges_disk", po::value<std::string>(), "volume index for the edge streams (default: striped over all volumes)")
      ("updates0_disk", po::value<std::string>(), "volume index for update streams, set 0 (default: striped)")
      ("updates1_disk", po::value<std::string>(), "volume index for update streams, set 1 (default: striped)")
      ("output_disk", po::value<std::string>(), "volume index for output (X-Stream placement; validated, --output is an explicit path)");
  po::options_description additions("EdgeStream additions");
  additions.add_options()
      ("read_chunk", po::value<std::string>()->default_value("4M"), "bytes per read request")
      ("write_chunk", po::value<std::string>()->default_value("4M"), "bytes per write request")
      ("io_depth", po::value<std::string>()->default_value("4"), "requests in flight per stream")
      ("io_engine", po::value<std::string>()->default_value("uring"), "uring, or sync (pread/pwrite)")
      ("no_edge_cache", "keep no edges in memory even when the budget could hold them (K = 1: the on-disk grid, "
                        "see --disk_grid, or the input is read every superstep)")
      ("no_edge_grid", "no block-pair grid: the edges in input order, in memory or streamed (for comparisons)")
      ("disk_grid", po::value<std::string>()->default_value("auto"),
       "K = 1 with edges that do not fit in memory: on = an on-disk grid, off = stream the input every superstep, "
       "auto = the grid unless the program announces fewer than 4 supersteps")
      ("grid_window", po::value<std::string>()->default_value("64M"),
       "largest window of the on-disk grid (K = 1 when the edges do not fit; two windows are streamed)")
      ("stream_grid", "read the whole on-disk grid from storage every superstep, through two windows (by default the "
                      "grid stays in the room the budget leaves: all of it when it fits, CORE::CONFIG::GRID_RESIDENT, "
                      "else windows spread over it, CORE::CONFIG::GRID_KEPT_BYTES)")
      ("grid_keep_bytes", po::value<std::string>(),
       "diagnostics: build at most this much of the on-disk grid in place, kept in memory (default: as much as the "
       "room holds, never written to storage); beyond it the grid is kept in part, spread over it, within this "
       "much, and the rest is written (and read back once if the grid fits)")
      ("grid_memory", po::value<std::string>(),
       "diagnostics: at most this much of the budget for the on-disk grid's windows and the part of it kept in memory "
       "(default: all the budget leaves)")
      ("grid_codec", po::value<std::string>()->default_value("auto"),
       "records of the on-disk grid: ef = sorted within each bucket, ids Elias-Fano coded (about half the bytes "
       "on skewed graphs), none = as they are, auto = ef when that likely keeps the built grid in memory")
      ("full_grid_records", "store whole input records in the grid instead of block-local ids (for comparisons)")
      ("segment_records", po::value<std::string>(),
       "K > 1: records per segment of the edge streams, each segment grouped by the key its updates go to "
       "(default: the batch size, fewer when the budget asks; 0 = the streams in input order, for comparisons)")
      ("edges_codec", po::value<std::string>()->default_value("auto"),
       "codec of the per-partition edge streams: none, zlib[:1-9] (zlib = zlib:1), snappy, delta "
       "(ids as bit-packed differences: for slow volumes), auto = delta for programs that tell their "
       "active vertices (bfs, cc, sssp), none for the others")
      ("updates_codec", po::value<std::string>()->default_value("none"),
       "codec of the update streams: none, zlib[:1-9], snappy, delta")
      ("no_scratch_checksums",
       "with codec none, write scratch streams unframed (no crc32 per chunk; a damaged byte goes undetected)")
      ("output", po::value<std::string>(), "per-vertex results as text, one line per vertex")
      ("stats_json", po::value<std::string>(), "write the run's statistics as one JSON object")
      ("verify", "check the result against the in-memory reference (needs RAM for the whole graph)")
      ("config", po::value<std::string>(), "option file (key = value lines); the command line wins")
      ("work_dir", po::value<std::vector<std::string>>()->composing(),
       "scratch volume (repeatable; streams are striped over all): DIR or "
       "DIR,read_chunk=1M,write_chunk=1M,io_depth=16 or DIR,config=configs/network-volume.cfg")
      ("stripe_unit", po::value<std::string>()->default_value("0"),
       "bytes per stripe of a stream striped over several volumes (0: the largest chunk of the volumes)")
      ("checkpoint", po::value<std::string>(),
       "save the run's state in this directory at superstep boundaries, atomically (docs/checkpoint.md)")
      ("checkpoint_every", po::value<std::string>(), "with --checkpoint: every N supersteps")
      ("checkpoint_seconds", po::value<std::string>(),
       "with --checkpoint: when T seconds passed since the last one (default 300 when neither is given)")
      ("resume", po::value<std::string>(),
       "continue the run checkpointed in this directory (same graph, algorithm, parameters, -p and plan)");
  po::options_description algorithm("Algorithm options");
  algorithm.add_options()
      ("pagerank::niters", po::value<std::string>()->default_value("5"), "PageRank iterations")
      ("bfs::root", po::value<std::string>()->default_value("0"), "BFS root vertex")
      ("sssp::source", po::value<std::string>()->default_value("0"), "SSSP source vertex")
      ("bc::source", po::value<std::string>()->default_value("0"), "BC source vertex")
      ("belief_propagation::niters", po::value<std::string>()->default_value("5"), "BP iterations")
      ("triangle_counting::niters", po::value<std::string>()->default_value("1"), "approximate triangle counter rounds")
      ("triangle_counting::approximate", "X-Stream's approximate min-hash triangle counter instead of the exact count")
      ("als::niters", po::value<std::string>()->default_value("5"), "ALS iterations")
      ("hyperanf::maxiters", po::value<std::string>()->default_value("100"), "HyperANF iterations at most")
      ("hyperanf::epsilon", po::value<std::string>()->default_value("0.001"), "HyperANF stopping change")
      ("hyperanf::rsd", po::value<std::string>()->default_value("0.10"), "HyperANF relative standard deviation")
      ("cc_online::shm_key", po::value<std::string>(), "accepted; cc_online is not provided");
  po::options_description all;
  all.add(general).add(additions).add(algorithm);
  return all;
}

struct Usage {
  std::string message;
};

std::string text(const po::variables_map& vm, const char* name) { return vm[name].as<std::string>(); }

Expected<std::uint64_t> size_option(const po::variables_map& vm, const char* name) {
  return parse_size(name, text(vm, name));
}
Expected<std::uint64_t> count_option(const po::variables_map& vm, const char* name) {
  return parse_count(name, text(vm, name));
}

void print_json(std::ostream& out, const std::string& graph, const std::string& algorithm, const AlgorithmRequest& req,
                const AlgorithmReport& report, double wall_seconds) {
  const RunStats& s = report.stats;
  auto io = [&](const char* name, const IoCounters& c) {
    out << "\"" << name << "\":{\"bytes_read\":" << c.bytes_read << ",\"bytes_written\":" << c.bytes_written
        << ",\"requests\":" << c.requests << ",\"wait_seconds\":" << static_cast<double>(c.wait_ns) * 1e-9 << "}";
  };
  out << std::setprecision(9) << "{\"graph\":\"" << json_escape(graph) << "\",\"algorithm\":\"" << json_escape(algorithm)
      << "\",\"vertices\":" << s.vertices << ",\"edges\":" << s.edges << ",\"options\":{\"processors\":" << s.plan.threads
      << ",\"physical_memory\":" << req.engine.physical_memory << ",\"read_chunk\":" << s.plan.io.read_chunk
      << ",\"write_chunk\":" << s.plan.io.write_chunk << ",\"io_depth\":" << s.plan.io.depth
      << ",\"direct_io\":" << (s.plan.io.direct ? "true" : "false") << ",\"io_engine\":\""
      << (req.engine.io.engine == IoEngine::kUring ? "uring" : "sync") << "\",\"edges_codec\":\"" << codec_name(s.edges_codec)
      << "\",\"updates_codec\":\"" << codec_name(s.updates_codec) << "\""
      << ",\"scratch_checksums\":" << (s.scratch_checksums ? "true" : "false")
      << ",\"forced_partitions\":" << req.engine.forced_partitions << "},\"partitions\":" << s.plan.partitions
      << ",\"cache_partitions\":" << s.plan.cache_partitions << ",\"grid\":{\"in_memory\":"
      << (s.plan.grid_bytes > 0 && s.plan.grid_window_bytes == 0 ? "true" : "false")
      << ",\"on_disk\":" << (s.plan.grid_window_bytes > 0 ? "true" : "false") << ",\"codec\":\""
      << grid_codec_name(s.plan.grid_codec) << "\",\"record_bytes\":"
      << s.plan.grid_record_bytes << ",\"records\":" << s.plan.grid_records << ",\"window_bytes\":" << s.plan.grid_window_bytes << ",\"resident\":" << (s.plan.grid_resident ? "true" : "false") << ",\"kept_bytes\":"
      << s.plan.grid_kept_bytes << ",\"file_bytes\":"
      << s.plan.grid_file_bytes << "},\"symmetric_one_way\":" << (s.symmetric_one_way ? "true" : "false")
      << ",\"supersteps\":" << s.supersteps
      << ",\"wall_seconds\":" << wall_seconds << ",\"setup_seconds\":" << s.setup_seconds
      << ",\"engine_seconds\":" << s.engine_seconds << ",\"io_wait_seconds\":" << s.io_wait_seconds()
      << ",\"bytes_read\":" << s.bytes_read() << ",\"bytes_written\":" << s.bytes_written() << ",\"streams\":{";
  io("input", s.input_io);
  out << ",";
  io("edges", s.edges_io);
  out << ",";
  io("updates", s.updates_io);
  out << ",";
  io("vertices", s.vertices_io);
  auto codec = [&](const char* name, const CodecCounters& c) {
    out << "\"" << name << "\":{\"raw_bytes\":" << c.raw_bytes << ",\"stored_bytes\":" << c.stored_bytes
        << ",\"ratio\":" << c.ratio() << ",\"frames\":" << c.frames << ",\"raw_frames\":" << c.raw_frames << ",\"skipped_frames\":" << c.skipped_frames
        << ",\"decoded_bytes\":" << c.decoded_bytes << ",\"compress_seconds\":" << static_cast<double>(c.compress_ns) * 1e-9
        << ",\"decompress_seconds\":" << static_cast<double>(c.decompress_ns) * 1e-9 << "}";
  };
  CodecCounters all = s.edges_codec_io;
  all += s.updates_codec_io;
  out << "},\"compression_ratio\":" << all.ratio() << ",\"compression\":{";
  codec("edges", s.edges_codec_io);
  out << ",";
  codec("updates", s.updates_codec_io);
  out << ",\"input\":{\"codec\":\"" << s.input_codec << "\",\"raw_bytes\":" << s.input_raw_bytes
      << ",\"stored_bytes\":" << s.input_stored_bytes << ",\"decoded_bytes\":" << s.input_codec_io.decoded_bytes
      << ",\"decompress_seconds\":" << static_cast<double>(s.input_codec_io.decompress_ns) * 1e-9 << "}";
  out << ",\"cpu_seconds\":" << s.codec_cpu_seconds() << "},\"updates\":{\"emitted\":" << s.updates_emitted << ",\"in_memory\":" << s.updates_in_memory
      << ",\"spilled\":" << s.updates_spilled << "},\"peak_rss_bytes\":" << s.peak_rss
      << ",\"estimated_peak_bytes\":" << s.plan.estimated_peak() << ",\"memory_plan\":{\"budget\":" << s.plan.budget;
  for (const MemoryPlan::Term& term : s.plan.terms()) out << ",\"" << term.name << "\":" << term.bytes;
  out << "},\"volumes\":[";
  for (std::size_t i = 0; i < s.volumes.size(); ++i) {
    const VolumeStats& v = s.volumes[i];
    out << (i ? "," : "") << "{\"path\":\"" << json_escape(v.path) << "\",\"read_chunk\":" << v.read_chunk
        << ",\"write_chunk\":" << v.write_chunk << ",\"io_depth\":" << v.depth << ",\"bytes_read\":" << v.bytes_read
        << ",\"bytes_written\":" << v.bytes_written << ",\"requests\":" << v.requests
        << ",\"mean_in_flight\":" << v.mean_in_flight << ",\"max_in_flight\":" << v.max_in_flight << "}";
  }
  out << "]";
  if (s.checkpoint.enabled) {
    out << ",\"checkpoint\":{\"written\":" << s.checkpoint.written << ",\"failed\":" << s.checkpoint.failed
        << ",\"bytes\":" << s.checkpoint.bytes << ",\"seconds\":" << s.checkpoint.seconds
        << ",\"resumed_from\":" << s.checkpoint.resumed_from << "}";
  }
  out << ",\"per_superstep\":[";
  for (std::size_t i = 0; i < s.per_superstep.size(); ++i) {
    const SuperstepStats& p = s.per_superstep[i];
    out << (i ? "," : "") << "{\"superstep\":" << p.superstep << ",\"emitted\":" << p.emitted << ",\"in_memory\":"
        << p.in_memory << ",\"direct\":" << p.direct << ",\"spilled\":" << p.spilled << ",\"changed\":" << p.changed << "}";
  }
  out << "],\"summary\":{";
  for (std::size_t i = 0; i < report.summary.size(); ++i) {
    out << (i ? "," : "") << "\"" << json_escape(report.summary[i].first) << "\":\"" << json_escape(report.summary[i].second) << "\"";
  }
  out << "}";
  if (report.verified) out << ",\"verification\":\"" << (*report.verified ? "PASS" : "FAIL") << "\"";
  out << "}\n";
}

// Checks a file the run will write (--output, --stats_json) before the run, so that a typo fails
// at once instead of after the run: the directory must exist, the path must not be a directory,
// and it must not be one of the graph's own files (the input is never modified).
Status check_output_path(const char* option, const std::string& path, const GraphInfo& graph) {
  const std::string what = std::string("--") + option + " " + path;
  if (path.empty()) return invalid_argument(std::string("--") + option + " needs a file name");
  const std::filesystem::path file(path);
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return invalid_argument(what + ": is a directory, not a file");
  const std::filesystem::path dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  if (!std::filesystem::is_directory(dir, ec)) {
    if (std::filesystem::exists(dir, ec)) return not_found(what + ": " + dir.string() + " is not a directory");
    return not_found(what + ": directory " + dir.string() + " does not exist");
  }
  for (const auto& input : {graph.ini_path, graph.edge_path}) {
    if (std::filesystem::equivalent(file, input, ec)) {
      return invalid_argument(what + ": is the input file " + input.string() + ", which is never overwritten");
    }
  }
  // --output is written to a temporary file renamed over the target: a device (/dev/null), FIFO or
  // symlink (/dev/stdout) there would be replaced by a regular file.
  const auto link = std::filesystem::symlink_status(file, ec);
  if (std::string(option) == "output" && std::filesystem::exists(link) &&
      (std::filesystem::is_symlink(link) || !std::filesystem::is_regular_file(link))) {
    return invalid_argument(what + ": is a " + (std::filesystem::is_symlink(link) ? "symbolic link" : "device, FIFO or socket") +
                            "; --output replaces its target with a regular file, so give a plain file path");
  }
  return Status::ok();
}

// True when `path` names something other than a regular file (/dev/stdout, a FIFO, a symlink):
// such a target is written in place instead of being replaced by a renamed temporary file.
bool write_in_place(const std::string& path) {
  std::error_code ec;
  const auto link = std::filesystem::symlink_status(path, ec);
  return std::filesystem::exists(link) && !std::filesystem::is_regular_file(link);
}

// --timeline samples the devices this often (their busy time is counted in milliseconds, or in
// jiffies of 4 ms on some kernels).
constexpr std::chrono::milliseconds kDeviceSamplePeriod{50};

// --timeline's totals on stderr: one line per thread, its spans' seconds and counts by name; one
// per sampled device.
void print_timeline_totals(std::ostream& err, const std::string& path, const timeline::Summary& summary,
                           const std::vector<DeviceSampler::Totals>& devices, const std::vector<std::string>& skipped,
                           const std::string& no_samples) {
  err << "TIMELINE " << path << ": " << summary.spans << " spans of " << summary.threads.size() << " threads, "
      << summary.counter_samples << " device samples, over " << summary.seconds << " s\n";
  for (const DeviceSampler::Totals& d : devices) {
    err << "TIMELINE device " << d.device << " (" << d.dir << "): read " << static_cast<double>(d.bytes_read) * 1e-9 << " GB, written "
        << static_cast<double>(d.bytes_written) * 1e-9 << " GB, busy " << d.busy_seconds << " s of " << d.seconds << " s\n";
  }
  for (const std::string& dir : skipped) err << "TIMELINE device of " << dir << ": no block device statistics (not sampled)\n";
  if (!no_samples.empty() && !devices.empty()) err << "TIMELINE devices: totals only, no samples over time (" << no_samples << ")\n";
  for (const timeline::ThreadTotals& thread : summary.threads) {
    err << "TIMELINE " << thread.thread << ":";
    const char* separator = " ";
    for (const timeline::SpanTotal& span : thread.spans) {
      err << separator << span.name << " " << static_cast<double>(span.nanoseconds) * 1e-9 << " s x" << span.count;
      separator = ", ";
    }
    err << "\n";
  }
}

// X-Stream's floating-point options of algorithms this build does not run yet: still well-formed.
Expected<double> real_option(const po::variables_map& vm, const char* name) {
  const std::string value = text(vm, name);
  try {
    std::size_t used = 0;
    const double parsed = std::stod(value, &used);
    if (used == value.size() && parsed >= 0 && std::isfinite(parsed)) return parsed;
  } catch (const std::exception&) {
  }
  return invalid_argument(std::string("--") + name + " expects a non-negative number, got '" + value + "'");
}

// --checkpoint DIR [--checkpoint_every N] [--checkpoint_seconds T], --resume DIR.
Status checkpoint_options(const po::variables_map& vm, const std::string& algorithm, AlgorithmRequest& req) {
  CheckpointOptions& c = req.engine.checkpoint;
  if (vm.count("checkpoint") == 0 && (vm.count("checkpoint_every") != 0 || vm.count("checkpoint_seconds") != 0)) {
    return invalid_argument("--checkpoint_every and --checkpoint_seconds need --checkpoint DIR");
  }
  if (vm.count("checkpoint") == 0 && vm.count("resume") == 0) return Status::ok();
  if (vm.count("checkpoint") != 0) {
    c.dir = text(vm, "checkpoint");
    if (c.dir.empty()) return invalid_argument("--checkpoint needs a directory");
  }
  if (vm.count("resume") != 0) {
    c.resume = text(vm, "resume");
    if (c.resume.empty()) return invalid_argument("--resume needs a directory");
  }
  if (vm.count("checkpoint_every") != 0) {
    ES_ASSIGN_OR_RETURN(c.every, count_option(vm, "checkpoint_every"));
    if (c.every == 0) return invalid_argument("--checkpoint_every must be at least 1");
  }
  if (vm.count("checkpoint_seconds") != 0) {
    const std::string value = text(vm, "checkpoint_seconds");
    try {
      std::size_t used = 0;
      c.seconds = std::stod(value, &used);
      if (used != value.size() || !(c.seconds > 0) || !std::isfinite(c.seconds)) c.seconds = -1;
    } catch (const std::exception&) {
      c.seconds = -1;
    }
    if (c.seconds < 0) return invalid_argument("--checkpoint_seconds expects a positive number of seconds, got '" + value + "'");
  }
  if (c.writes() && c.every == 0 && c.seconds == 0) c.seconds = kDefaultCheckpointSeconds;
  if (algorithm_registry().count(algorithm) == 0) return Status::ok();  // reported as unknown later
  auto identity = checkpoint_run_identity(algorithm, req.params);
  if (!identity) return identity.status();
  c.run_identity = *identity;
  return Status::ok();
}

// Parses the command line (and --config) into a request. Usage problems come back as kInvalidArgument.
Expected<AlgorithmRequest> build_request(const po::variables_map& vm, std::string& algorithm) {
  AlgorithmRequest req;
  if (vm.count("graph") == 0) return invalid_argument("the option --graph (-g) is required");
  algorithm = text(vm, "benchmark");
  ES_ASSIGN_OR_RETURN(const std::uint64_t threads, count_option(vm, "processors"));
  if (threads == 0 || threads > 1024) {
    return invalid_argument("--processors must be between 1 and 1024, got " + std::to_string(threads));
  }
  req.engine.threads = static_cast<unsigned>(threads);
  ES_ASSIGN_OR_RETURN(req.engine.physical_memory, size_option(vm, "physical_memory"));
  ES_ASSIGN_OR_RETURN(req.engine.cpu_cache_size, size_option(vm, "cpu_cache_size"));
  if (req.engine.cpu_cache_size < 4096) return invalid_argument("--cpu_cache_size must be at least 4K");
  std::uint64_t partitions = 0;
  if (vm.count("partitions") != 0 || vm.count("super_partitions") != 0) {
    std::uint64_t k = 1;
    std::uint64_t super = 1;
    if (vm.count("partitions") != 0) {
      ES_ASSIGN_OR_RETURN(k, count_option(vm, "partitions"));
    }
    if (vm.count("super_partitions") != 0) {
      ES_ASSIGN_OR_RETURN(super, count_option(vm, "super_partitions"));
    }
    if (k == 0 || super == 0) return invalid_argument("--partitions and --super_partitions must be at least 1");
    if (k > (std::uint64_t{1} << 32) / super) return invalid_argument("too many partitions requested");
    partitions = k * super;
  }
  req.engine.forced_partitions = partitions;
  ES_ASSIGN_OR_RETURN(const std::uint64_t read_chunk, size_option(vm, "read_chunk"));
  ES_ASSIGN_OR_RETURN(const std::uint64_t write_chunk, size_option(vm, "write_chunk"));
  ES_ASSIGN_OR_RETURN(const std::uint64_t depth, count_option(vm, "io_depth"));
  for (const auto& [name, value] : {std::pair{"read_chunk", read_chunk}, std::pair{"write_chunk", write_chunk}}) {
    if (value < 4096 || value % 4096 != 0 || value > (std::uint64_t{1} << 30)) {
      return invalid_argument(std::string("--") + name + " must be a multiple of 4K between 4K and 1G, got " +
                              std::to_string(value));
    }
  }
  if (depth == 0 || depth > 256) return invalid_argument("--io_depth must be between 1 and 256, got " + std::to_string(depth));
  req.engine.io.read_chunk = read_chunk;
  req.engine.io.write_chunk = write_chunk;
  req.engine.io.depth = static_cast<unsigned>(depth);
  req.engine.io.direct = vm.count("no_dio") == 0;
  const std::string engine = text(vm, "io_engine");
  if (engine == "uring") req.engine.io.engine = IoEngine::kUring;
  else if (engine == "sync") req.engine.io.engine = IoEngine::kSync;
  else return invalid_argument("--io_engine must be 'uring' or 'sync', got '" + engine + "'");
  // Codecs: --compressed_io is X-Stream's zlib on every stream; an explicit per-kind codec wins.
  const bool compressed_io = vm.count("compressed_io") != 0;
  for (const auto& [name, spec] : {std::pair<const char*, CodecSpec*>{"edges_codec", &req.engine.edges_codec},
                                   std::pair<const char*, CodecSpec*>{"updates_codec", &req.engine.updates_codec}}) {
    const std::string value = compressed_io && vm[name].defaulted() ? std::string("zlib") : text(vm, name);
    if (spec == &req.engine.edges_codec && value == "auto") {
      req.engine.edges_codec_auto = true;  // resolved for the program by the engine (core/engine_options.hpp)
      continue;
    }
    ES_ASSIGN_OR_RETURN(*spec, parse_codec(name, value));
  }
  req.engine.scratch_checksums = vm.count("no_scratch_checksums") == 0;
  req.engine.heartbeat = vm.count("heartbeat") != 0;
  req.engine.cache_edges = vm.count("no_edge_cache") == 0;
  req.engine.edge_grid = vm.count("no_edge_grid") == 0;
  req.engine.compact_grid = vm.count("full_grid_records") == 0;
  if (vm.count("segment_records") > 0) {
    ES_ASSIGN_OR_RETURN(req.engine.segment_records, count_option(vm, "segment_records"));
  }
  const std::string disk_grid = text(vm, "disk_grid");
  if (disk_grid == "auto") req.engine.disk_grid = DiskGrid::kAuto;
  else if (disk_grid == "on") req.engine.disk_grid = DiskGrid::kOn;
  else if (disk_grid == "off") req.engine.disk_grid = DiskGrid::kOff;
  else return invalid_argument("--disk_grid must be auto, on or off, got '" + disk_grid + "'");
  ES_ASSIGN_OR_RETURN(req.engine.grid_codec, parse_grid_codec("--grid_codec", text(vm, "grid_codec")));
  req.engine.grid_resident = vm.count("stream_grid") == 0;
  if (vm.count("grid_keep_bytes") > 0) {
    ES_ASSIGN_OR_RETURN(req.engine.grid_keep_bytes, size_option(vm, "grid_keep_bytes"));
  }
  if (vm.count("grid_memory") > 0) {
    ES_ASSIGN_OR_RETURN(req.engine.grid_memory, size_option(vm, "grid_memory"));
  }
  ES_ASSIGN_OR_RETURN(req.engine.grid_window, size_option(vm, "grid_window"));
  if (req.engine.grid_window < 4096 || req.engine.grid_window % 4096 != 0) {
    return invalid_argument("--grid_window must be a positive multiple of 4K, got " + std::to_string(req.engine.grid_window));
  }
  if (vm.count("work_dir") != 0) {
    for (const auto& dir : vm["work_dir"].as<std::vector<std::string>>()) {
      ES_ASSIGN_OR_RETURN(auto volume, parse_work_dir(dir));
      req.engine.work_dirs.push_back(volume.first);
      req.engine.work_dir_settings.push_back(volume.second);
    }
  }
  ES_ASSIGN_OR_RETURN(req.engine.stripe_unit, size_option(vm, "stripe_unit"));
  if (req.engine.stripe_unit % 4096 != 0 || req.engine.stripe_unit > (std::uint64_t{1} << 30)) {
    return invalid_argument("--stripe_unit must be 0 or a multiple of 4K up to 1G, got " + text(vm, "stripe_unit"));
  }
  // X-Stream's placement options: a volume index each (checked against the volumes once the graph's
  // [disk] section is known).
  for (const auto& [name, index] : {std::pair<const char*, long*>{"vertices_disk", &req.engine.placement.vertices},
                                    std::pair<const char*, long*>{"input_disk", &req.engine.placement.input},
                                    std::pair<const char*, long*>{"edges_disk", &req.engine.placement.edges},
                                    std::pair<const char*, long*>{"updates0_disk", &req.engine.placement.updates0},
                                    std::pair<const char*, long*>{"updates1_disk", &req.engine.placement.updates1},
                                    std::pair<const char*, long*>{"output_disk", &req.engine.placement.output}}) {
    if (vm.count(name) == 0) continue;
    ES_ASSIGN_OR_RETURN(const std::uint64_t value, count_option(vm, name));
    if (value > 1024) return invalid_argument(std::string("--") + name + " " + text(vm, name) + " is not a volume index");
    *index = static_cast<long>(value);
  }
  ES_ASSIGN_OR_RETURN(req.params.pagerank_iterations, count_option(vm, "pagerank::niters"));
  ES_ASSIGN_OR_RETURN(req.params.bfs_root, count_option(vm, "bfs::root"));
  ES_ASSIGN_OR_RETURN(req.params.sssp_source, count_option(vm, "sssp::source"));
  ES_ASSIGN_OR_RETURN(req.params.bc_source, count_option(vm, "bc::source"));
  ES_ASSIGN_OR_RETURN(req.params.belief_propagation_iterations, count_option(vm, "belief_propagation::niters"));
  ES_ASSIGN_OR_RETURN(req.params.triangle_counting_iterations, count_option(vm, "triangle_counting::niters"));
  req.params.triangle_counting_approximate = vm.count("triangle_counting::approximate") != 0;
  ES_ASSIGN_OR_RETURN(req.params.als_iterations, count_option(vm, "als::niters"));
  ES_ASSIGN_OR_RETURN(req.params.hyperanf_max_iterations, count_option(vm, "hyperanf::maxiters"));
  ES_ASSIGN_OR_RETURN(req.params.hyperanf_epsilon, real_option(vm, "hyperanf::epsilon"));
  ES_ASSIGN_OR_RETURN(req.params.hyperanf_rsd, real_option(vm, "hyperanf::rsd"));
  ES_RETURN_IF_ERROR(checkpoint_options(vm, algorithm, req));
  // Accepted X-Stream options that must still be well-formed.
  for (const char* name : {"cpu_line_size", "fanout", "force_buffers"}) {
    ES_RETURN_IF_ERROR(count_option(vm, name).status());
  }
  if (vm.count("output") != 0) req.output = text(vm, "output");
  req.verify = vm.count("verify") != 0;
  return req;
}

}  // namespace

int driver_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const auto program_start = std::chrono::steady_clock::now();
  const po::options_description options = make_options();
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(options).run();
    // Boost drops words that belong to no option ("-g G pagerank") silently; a typo there must
    // not run with defaults.
    for (const auto& option : parsed.options) {
      if (option.position_key >= 0 || option.string_key.empty()) {
        const std::string word = option.original_tokens.empty() ? std::string() : option.original_tokens.front();
        err << "benchmark_driver: unexpected argument '" << word
            << "' (every value belongs to an option, e.g. -b pagerank; see --help)\n";
        return kExitUsage;
      }
    }
    po::store(parsed, vm);
    if (vm.count("config") != 0) {
      const std::string config = vm["config"].as<std::string>();
      std::ifstream file(config);
      if (!file) {
        err << "benchmark_driver: cannot read --config file " << config << "\n";
        return kExitUsage;
      }
      try {
        po::store(po::parse_config_file(file, options), vm);
      } catch (const po::error& e) {
        err << "benchmark_driver: --config file " << config << ": " << e.what() << "\n";
        return kExitUsage;
      }
    }
    po::notify(vm);
  } catch (const po::error& e) {
    err << "benchmark_driver: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }
  if (vm.count("help") != 0) {
    out << "Usage: benchmark_driver -g GRAPH -b ALGORITHM [options]\n" << options << "\n";
    return kExitOk;
  }
  std::string algorithm;
  auto request = build_request(vm, algorithm);
  if (!request) {
    err << "benchmark_driver: " << request.status().message() << "\n";
    return request.status().code() == StatusCode::kUnsupported ? kExitError : kExitUsage;
  }
  const auto& registry = algorithm_registry();
  const auto runner = registry.find(algorithm);
  if (runner == registry.end()) {
    std::string available;
    for (const auto& [name, _] : registry) available += (available.empty() ? "" : ", ") + name;
    err << "benchmark_driver: unknown algorithm '" << algorithm << "' (-b); available: " << available << "\n";
    return kExitUsage;
  }
  const std::string graph_arg = vm["graph"].as<std::string>();
  auto graph = read_graph_ini(graph_ini_path(graph_arg));
  if (!graph) {
    if (cancel_requested()) {  // e.g. "open G.ini: Interrupted system call" (a FIFO, a hung NFS mount)
      err << "benchmark_driver: stopped by signal " << cancel_signal() << " while reading the graph\n";
      return 128 + cancel_signal();
    }
    err << "benchmark_driver: " << graph.status().message() << "\n";
    return kExitError;
  }
  request->graph = *graph;
  for (const char* option : {"output", "stats_json", "timeline"}) {
    if (vm.count(option) == 0) continue;
    const Status status = check_output_path(option, vm[option].as<std::string>(), *graph);
    if (!status.is_ok()) {
      err << "benchmark_driver: " << status.message() << "\n";
      return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitError;
    }
  }
  const char* const files[] = {"output", "stats_json", "timeline"};
  for (std::size_t i = 0; i < std::size(files); ++i) {
    for (std::size_t j = i + 1; j < std::size(files); ++j) {
      if (vm.count(files[i]) == 0 || vm.count(files[j]) == 0) continue;
      std::error_code ec;
      if (std::filesystem::weakly_canonical(vm[files[i]].as<std::string>(), ec) ==
          std::filesystem::weakly_canonical(vm[files[j]].as<std::string>(), ec)) {
        err << "benchmark_driver: --" << files[i] << " and --" << files[j] << " name the same file "
            << vm[files[i]].as<std::string>() << "\n";
        return kExitUsage;
      }
    }
  }
  // A mistyped --work_dir (or [disk] mntN) fails now, not only once a graph is large enough to need
  // scratch space; so does a placement index naming no volume.
  for (const auto& dir : request->engine.work_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      err << "benchmark_driver: --work_dir " << dir.string() << " is not an existing directory\n";
      return kExitError;
    }
  }
  if (request->engine.work_dirs.empty()) {
    for (std::size_t i = 0; i < graph->volumes.size(); ++i) {
      std::error_code ec;
      if (!std::filesystem::is_directory(graph->volumes[i], ec)) {
        err << "benchmark_driver: [disk] mnt" << i << " = " << graph->volumes[i].string() << " of " << graph->ini_path.string()
            << " is not an existing directory\n";
        return kExitError;
      }
    }
  }
  if (const Status placement = validate_placement(request->engine.placement, volume_roots(request->engine, *graph).size());
      !placement.is_ok()) {
    err << "benchmark_driver: " << placement.message() << "\n";
    return kExitUsage;
  }

  auto blocked_bytes = size_option(vm, "blocked_memory");
  if (!blocked_bytes) {
    err << "benchmark_driver: " << blocked_bytes.status().message() << "\n";
    return kExitUsage;
  }
  std::optional<MemoryBlocker> blocker;
  if (*blocked_bytes > 0) {
    auto locked = MemoryBlocker::lock(*blocked_bytes);
    if (!locked) {
      // A signal while the memory was being locked is a stop, not a refused lock.
      if (locked.status().code() == StatusCode::kCancelled || cancel_requested()) {
        err << "benchmark_driver: stopped by signal " << cancel_signal() << " (" << locked.status().message()
            << "); no output written\n";
        return 128 + cancel_signal();
      }
      err << "benchmark_driver: " << locked.status().message() << "\n";
      return kExitError;
    }
    blocker.emplace(std::move(*locked));
  }

  const std::string timeline_path = vm.count("timeline") != 0 ? vm["timeline"].as<std::string>() : std::string();
  std::optional<DeviceSampler> device_sampler;  // with --timeline: the input's and the scratch volumes' devices
  if (!timeline_path.empty()) {
    timeline::name_thread("main");
    if (const Status started = timeline::start(timeline_path); !started.is_ok()) {
      err << "benchmark_driver: " << started.message() << "\n";
      return kExitError;
    }
    std::vector<std::filesystem::path> dirs{graph->edge_path.parent_path().empty() ? std::filesystem::path(".")
                                                                                    : graph->edge_path.parent_path()};
    for (const auto& root : volume_roots(request->engine, *graph)) dirs.push_back(root);
    device_sampler.emplace(dirs, kDeviceSamplePeriod);
  }
  out << "CORE::GRAPH " << graph_arg << "\n" << "CORE::ALGORITHM " << algorithm << "\n";
  auto report = runner->second(*request);
  // The timeline ends with the run; kept only when the run succeeded (like --output).
  timeline::Summary timeline_totals;
  std::vector<DeviceSampler::Totals> device_totals;
  Status timeline_status = Status::ok();
  if (!timeline_path.empty()) {
    device_totals = device_sampler->stop();
    Expected<timeline::Summary> finished = timeline::finish();
    if (finished) {
      timeline_totals = std::move(*finished);
    } else {
      timeline_status = finished.status();
    }
    if (!report || !timeline_status.is_ok() || cancel_requested()) {
      std::error_code ec;
      if (!write_in_place(timeline_path)) std::filesystem::remove(timeline_path, ec);
    }
  }
  if (!report) {
    const Status& status = report.status();
    // Whatever the error says (an interrupted system call, say), a run that was asked to stop
    // reports the stop.
    if (status.code() == StatusCode::kCancelled || cancel_requested()) {
      const std::string why = status.code() == StatusCode::kCancelled
                                  ? status.message()
                                  : "stopped by signal " + std::to_string(cancel_signal()) + " (" + status.message() + ")";
      err << "benchmark_driver: " << why << "; scratch files removed, no output written\n";
      return 128 + cancel_signal();
    }
    err << "benchmark_driver: " << status.message() << "\n";
    // An option value that does not fit this graph (--bfs::root past the last vertex, more
    // partitions than vertices, ...) is a bad command line like any other.
    return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitError;
  }
  if (cancel_requested()) {
    // The signal came after the engine's last check (while --output was committed or --verify
    // ran): stop like a run stopped earlier instead of exiting 0, and leave no output behind.
    std::error_code ec;
    if (!request->output.empty()) std::filesystem::remove(request->output, ec);
    for (const auto& file : report->files_written) std::filesystem::remove(file, ec);
    err << "benchmark_driver: stopped by signal " << cancel_signal() << "; scratch files removed, no output written\n";
    return 128 + cancel_signal();
  }
  if (!timeline_status.is_ok()) {
    err << "benchmark_driver: " << timeline_status.message() << "\n";
    return kExitError;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start).count();
  if (!timeline_path.empty()) print_timeline_totals(err, timeline_path, timeline_totals, device_totals, device_sampler->skipped(),
                                                   device_sampler->no_samples());
  print_core_lines(out, report->stats);
  for (const auto& [key, value] : report->summary) out << "ALGORITHM::" << key << " " << value << "\n";
  out << "CORE::TIME::WALL " << wall << " seconds\n";
  if (report->verified) {
    out << "Verification: " << (*report->verified ? "PASS" : "FAIL") << " (" << report->verification_detail << ")\n";
  }
  out.flush();
  if (vm.count("stats_json") != 0) {
    // Written beside its final name and renamed into place, like --output: never half a file.
    const std::string path = vm["stats_json"].as<std::string>();
    const bool in_place = write_in_place(path);
    const std::string tmp = in_place ? path : path + ".tmp-" + std::to_string(::getpid());
    bool written = false;
    {
      std::ofstream json(tmp, std::ios::trunc);
      print_json(json, graph_arg, algorithm, *request, *report, wall);
      written = static_cast<bool>(json.flush());
    }
    std::error_code ec;
    if (written && !in_place) std::filesystem::rename(tmp, path, ec);
    if (!written || ec) {
      const std::string reason = ec ? ec.message() : std::strerror(errno);
      if (!in_place) std::filesystem::remove(tmp, ec);
      err << "benchmark_driver: cannot write --stats_json file " << path << ": " << reason << "\n";
      return kExitError;
    }
  }
  if (report->verified && !*report->verified) return kExitVerifyFailed;
  return kExitOk;
}

}  // namespace edgestream
