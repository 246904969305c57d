// VolumeSet: resolving the scratch volumes, their settings and placement, stripe layouts and
// per-volume counters (docs/volumes.md).
#include "core/volume_set.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <system_error>

#include "core/size_literal.hpp"
#include "io/aligned_buffer.hpp"

namespace edgestream {
namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

// Applies one key=value volume setting; `where` names the source for error messages.
Status apply_setting(VolumeSettings& settings, const std::string& key, const std::string& value, const std::string& where) {
  if (key == "read_chunk" || key == "write_chunk") {
    ES_ASSIGN_OR_RETURN(const std::uint64_t bytes, parse_size(key, value));
    if (bytes < kIoAlignment || bytes % kIoAlignment != 0 || bytes > (std::uint64_t{1} << 30)) {
      return invalid_argument(where + ": " + key + " must be a multiple of 4K between 4K and 1G, got " + value);
    }
    (key == "read_chunk" ? settings.read_chunk : settings.write_chunk) = static_cast<std::size_t>(bytes);
    return Status::ok();
  }
  if (key == "io_depth") {
    ES_ASSIGN_OR_RETURN(const std::uint64_t depth, parse_count(key, value));
    if (depth == 0 || depth > 256) return invalid_argument(where + ": io_depth must be between 1 and 256, got " + value);
    settings.depth = static_cast<unsigned>(depth);
    return Status::ok();
  }
  return invalid_argument(where + ": unknown volume setting '" + key + "' (expected read_chunk, write_chunk, io_depth" +
                          (where.rfind("--work_dir", 0) == 0 ? ", config" : "") + ")");
}

}  // namespace

Expected<VolumeSettings> read_volume_config(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return not_found("volume preset " + file.string() + " cannot be read");
  VolumeSettings settings;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string content = trim(line.substr(0, line.find('#')));
    if (content.empty()) continue;
    const auto eq = content.find('=');
    const std::string where = "volume preset " + file.string() + " line " + std::to_string(number);
    if (eq == std::string::npos) return invalid_argument(where + ": expected key = value, got '" + content + "'");
    const std::string key = trim(content.substr(0, eq));
    // The configs/ presets double as --config files and also name the run's codecs: those are
    // run-wide, not a volume's, and are left to --config (a typo is still an unknown setting).
    if (key == "edges_codec" || key == "updates_codec" || key == "grid_codec") continue;
    ES_RETURN_IF_ERROR(apply_setting(settings, key, trim(content.substr(eq + 1)), where));
  }
  return settings;
}

Expected<std::pair<std::filesystem::path, VolumeSettings>> parse_work_dir(const std::string& argument) {
  std::error_code ec;
  const auto comma = argument.find(',');
  if (comma == std::string::npos || std::filesystem::is_directory(argument, ec)) {
    return std::pair{std::filesystem::path(argument), VolumeSettings{}};
  }
  std::pair<std::filesystem::path, VolumeSettings> result{argument.substr(0, comma), VolumeSettings{}};
  const std::string where = "--work_dir " + argument;
  std::size_t begin = comma + 1;
  while (begin <= argument.size()) {
    const auto end = std::min(argument.find(',', begin), argument.size());
    const std::string item = argument.substr(begin, end - begin);
    begin = end + 1;
    const auto eq = item.find('=');
    if (eq == std::string::npos) return invalid_argument(where + ": expected key=value after the directory, got '" + item + "'");
    const std::string key = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    if (key == "config") {
      ES_ASSIGN_OR_RETURN(const VolumeSettings preset, read_volume_config(value));
      VolumeSettings& s = result.second;
      if (preset.read_chunk != 0) s.read_chunk = preset.read_chunk;
      if (preset.write_chunk != 0) s.write_chunk = preset.write_chunk;
      if (preset.depth != 0) s.depth = preset.depth;
    } else {
      ES_RETURN_IF_ERROR(apply_setting(result.second, key, value, where));
    }
  }
  return result;
}

Expected<VolumeSettings> ini_volume_settings(const GraphInfo& graph, std::size_t volume) {
  VolumeSettings settings;
  if (volume >= graph.volume_settings.size()) return settings;
  const auto& keys = graph.volume_settings[volume];
  const std::string prefix = "mnt" + std::to_string(volume) + "_";
  // The preset first, whatever its line: explicit keys win over it (as after config= in --work_dir).
  for (const auto& k : keys) {
    if (k.key != "config") continue;
    std::filesystem::path preset(k.value);
    if (preset.is_relative()) preset = graph.ini_path.parent_path() / preset;
    auto loaded = read_volume_config(preset);
    if (!loaded) return loaded.status().with_context(graph.ini_path.string() + ":" + std::to_string(k.line) + ": " + prefix + "config");
    settings = *loaded;
  }
  for (const auto& k : keys) {
    if (k.key == "config") continue;
    ES_RETURN_IF_ERROR(apply_setting(settings, k.key, k.value, graph.ini_path.string() + ":" + std::to_string(k.line) + ": " + prefix + k.key));
  }
  return settings;
}

std::vector<std::filesystem::path> volume_roots(const EngineOptions& options, const GraphInfo& graph) {
  std::vector<std::filesystem::path> roots = options.work_dirs;
  if (roots.empty()) roots = graph.volumes;
  if (roots.empty()) roots.emplace_back(graph.edge_path.parent_path().empty() ? "." : graph.edge_path.parent_path());
  return roots;
}

Status validate_placement(const VolumePlacement& placement, std::size_t volumes) {
  const std::pair<const char*, long> options[] = {
      {"vertices_disk", placement.vertices}, {"input_disk", placement.input},       {"edges_disk", placement.edges},
      {"updates0_disk", placement.updates0}, {"updates1_disk", placement.updates1}, {"output_disk", placement.output}};
  for (const auto& [name, index] : options) {
    if (index >= 0 && static_cast<std::size_t>(index) >= volumes) {
      return invalid_argument(std::string("--") + name + " " + std::to_string(index) + " names no volume: the run has " +
                              std::to_string(volumes) + " volume" + (volumes == 1 ? "" : "s") + " (indexes 0.." +
                              std::to_string(volumes - 1) + ", from --work_dir or the .ini's [disk] section)");
    }
  }
  return Status::ok();
}

Expected<VolumeSet> VolumeSet::resolve(const EngineOptions& options, const GraphInfo& graph) {
  VolumeSet set;
  set.roots_ = volume_roots(options, graph);
  ES_RETURN_IF_ERROR(validate_placement(options.placement, set.roots_.size()));
  for (std::size_t v = 0; v < set.roots_.size(); ++v) {
    IoOptions io = options.io;
    // Settings belong to --work_dir entries, or to the .ini's [disk] volumes (mntN_<key>).
    VolumeSettings from_ini;
    if (options.work_dirs.empty() && v < graph.volume_settings.size()) {
      ES_ASSIGN_OR_RETURN(from_ini, ini_volume_settings(graph, v));
    }
    const VolumeSettings* settings = nullptr;
    if (!options.work_dirs.empty() && v < options.work_dir_settings.size()) settings = &options.work_dir_settings[v];
    if (options.work_dirs.empty()) settings = &from_ini;
    if (settings != nullptr) {
      const VolumeSettings& s = *settings;
      if (s.read_chunk != 0) io.read_chunk = s.read_chunk;
      if (s.write_chunk != 0) io.write_chunk = s.write_chunk;
      if (s.depth != 0) io.depth = s.depth;
    }
    set.io_.push_back(io);
  }
  if (options.stripe_unit != 0 && options.stripe_unit % kIoAlignment != 0) {
    return invalid_argument("--stripe_unit must be a multiple of 4K, got " + std::to_string(options.stripe_unit));
  }
  set.placement_ = options.placement;
  set.requested_unit_ = options.stripe_unit;
  set.counters_ = std::make_unique<VolumeCounters[]>(set.roots_.size());
  return set;
}

IoOptions VolumeSet::envelope(const IoOptions& global) const {
  IoOptions io = global;
  io.read_chunk = 0;
  io.write_chunk = 0;
  io.depth = 0;
  for (const IoOptions& v : io_) {
    io.read_chunk = std::max(io.read_chunk, v.read_chunk);
    io.write_chunk = std::max(io.write_chunk, v.write_chunk);
    io.depth += v.depth;
  }
  return io;
}

void VolumeSet::fit_to_plan(const IoOptions& plan_io) {
  unsigned total = 0;
  for (IoOptions& v : io_) {
    v.read_chunk = std::min(v.read_chunk, plan_io.read_chunk);
    v.write_chunk = std::min(v.write_chunk, plan_io.write_chunk);
    v.direct = plan_io.direct;
    v.engine = plan_io.engine;
    total += v.depth;
  }
  if (total <= plan_io.depth) return;
  // Scale down in proportion (at least 1 each), then trim the deepest until the sum fits.
  unsigned sum = 0;
  for (IoOptions& v : io_) {
    v.depth = std::max(1U, static_cast<unsigned>(std::uint64_t{v.depth} * plan_io.depth / total));
    sum += v.depth;
  }
  while (sum > std::max<unsigned>(plan_io.depth, static_cast<unsigned>(io_.size()))) {
    auto deepest = std::max_element(io_.begin(), io_.end(), [](const IoOptions& a, const IoOptions& b) { return a.depth < b.depth; });
    if (deepest->depth <= 1) break;
    --deepest->depth;
    --sum;
  }
}

Status VolumeSet::create_scratch() {
  ES_ASSIGN_OR_RETURN(scratch_, ScratchDirectory::create(roots_));
  unit_ = requested_unit_;
  if (unit_ == 0) {
    for (const IoOptions& v : io_) unit_ = std::max<std::uint64_t>({unit_, v.read_chunk, v.write_chunk});
  }
  return Status::ok();
}

std::vector<std::size_t> VolumeSet::volumes_of(StreamKind kind) const {
  long placed = -1;
  switch (kind) {
    case StreamKind::kVertices: placed = placement_.vertices; break;
    case StreamKind::kEdges: placed = placement_.edges; break;
    case StreamKind::kUpdates0: placed = placement_.updates0; break;
    case StreamKind::kUpdates1: placed = placement_.updates1; break;
  }
  if (placed >= 0) return {static_cast<std::size_t>(placed)};
  std::vector<std::size_t> all(roots_.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  return all;
}

StripeLayout VolumeSet::layout(StreamKind kind, const std::string& name, std::uint64_t index) const {
  const std::vector<std::size_t> volumes = volumes_of(kind);
  StripeLayout layout;
  layout.unit = unit_;
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    const std::size_t v = volumes[(i + index) % volumes.size()];
    // One member file per volume; the suffix keeps member files apart when a directory is given twice.
    std::string file = name;
    if (volumes.size() > 1) file += ".s" + std::to_string(i);
    layout.members.push_back(StripeMember{scratch_.file(file, v), io_[v], &counters_[v]});
  }
  return layout;
}

std::vector<VolumeStats> VolumeSet::stats() const {
  std::vector<VolumeStats> out;
  for (std::size_t v = 0; v < roots_.size(); ++v) {
    const VolumeCounters& c = counters_[v];
    VolumeStats s;
    s.path = roots_[v].string();
    s.read_chunk = io_[v].read_chunk;
    s.write_chunk = io_[v].write_chunk;
    s.depth = io_[v].depth;
    s.bytes_read = c.bytes_read.load();
    s.bytes_written = c.bytes_written.load();
    s.requests = c.requests.load();
    const std::uint64_t async = c.async_requests.load();
    s.mean_in_flight = async == 0 ? 0.0 : static_cast<double>(c.in_flight_sum.load()) / static_cast<double>(async);
    s.max_in_flight = c.max_in_flight.load();
    out.push_back(s);
  }
  return out;
}

}  // namespace edgestream
