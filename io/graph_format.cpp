// Reading, validating and writing the X-Stream-compatible graph property file (G.ini).
#include "io/graph_format.hpp"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "compress/codec.hpp"
#include "compress/frame.hpp"
#include "io/fault_injection.hpp"

namespace edgestream {
namespace {

std::string trim(std::string_view s) {
  const auto* ws = " \t\r\n";
  const auto begin = s.find_first_not_of(ws);
  if (begin == std::string_view::npos) return {};
  const auto end = s.find_last_not_of(ws);
  return std::string(s.substr(begin, end - begin + 1));
}

struct IniValue {
  std::string value;
  int line = 0;
};

// Parses "[section]" / "key=value" lines; ';' and '#' start comments. Keys are "section.key".
Expected<std::map<std::string, IniValue>> parse_ini_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return not_found("graph property file " + path.string() + " does not exist");
    return errno_status(errno, "open", path.string());
  }
  std::map<std::string, IniValue> values;
  std::string section;
  std::string raw;
  int line_number = 0;
  while (std::getline(in, raw)) {
    ++line_number;
    std::string line = raw;
    if (const auto c = line.find_first_of(";#"); c != std::string::npos) line.erase(c);
    line = trim(line);
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        return bad_input(path.string() + ":" + std::to_string(line_number) + ": expected '[section]', got '" + raw + "'");
      }
      section = trim(std::string_view(line).substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      return bad_input(path.string() + ":" + std::to_string(line_number) + ": expected 'key=value', got '" + raw + "'");
    }
    std::string key = trim(std::string_view(line).substr(0, eq));
    if (!section.empty()) key = section + "." + key;
    values[key] = IniValue{trim(std::string_view(line).substr(eq + 1)), line_number};
  }
  if (in.bad()) return errno_status(errno, "read", path.string());
  return values;
}

Expected<std::uint64_t> get_u64(const std::map<std::string, IniValue>& values, const std::string& key,
                                const std::filesystem::path& path) {
  const auto it = values.find(key);
  if (it == values.end()) return bad_input(path.string() + ": missing required key '" + key + "'");
  const std::string& text = it->second.value;
  std::uint64_t result = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), result);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    return bad_input(path.string() + ":" + std::to_string(it->second.line) + ": '" + key +
                     "' must be a non-negative integer, got '" + text + "'");
  }
  return result;
}

}  // namespace

std::filesystem::path graph_ini_path(const std::string& graph_arg) {
  std::filesystem::path p(graph_arg);
  if (p.extension() == ".ini") return p;
  return std::filesystem::path(graph_arg + ".ini");
}

Expected<GraphInfo> parse_graph_ini(const std::filesystem::path& ini_path) {
  ES_ASSIGN_OR_RETURN(auto values, parse_ini_file(ini_path));
  GraphInfo info;
  info.ini_path = ini_path;
  const auto name = values.find("graph.name");
  if (name == values.end() || name->second.value.empty()) {
    return bad_input(ini_path.string() + ": missing required key 'name' in section [graph]");
  }
  info.name = name->second.value;
  std::filesystem::path edge(info.name);
  info.edge_path = edge.is_absolute() ? edge : ini_path.parent_path() / edge;
  ES_ASSIGN_OR_RETURN(const std::uint64_t type, get_u64(values, "graph.type", ini_path));
  if (type != 1 && type != 2) {
    return bad_input(ini_path.string() + ":" + std::to_string(values["graph.type"].line) +
                     ": 'type' must be 1 (src,dst,weight: 12 bytes) or 2 (src,dst: 8 bytes), got " +
                     std::to_string(type));
  }
  info.type = static_cast<EdgeFileType>(type);
  ES_ASSIGN_OR_RETURN(info.vertices, get_u64(values, "graph.vertices", ini_path));
  ES_ASSIGN_OR_RETURN(info.edges, get_u64(values, "graph.edges", ini_path));
  if (info.vertices > (std::uint64_t{1} << 32)) {
    return bad_input(ini_path.string() + ": 'vertices' is " + std::to_string(info.vertices) +
                     ", but vertex ids are 32-bit (at most 4294967296 vertices)");
  }
  if (const auto codec = values.find("graph.codec"); codec != values.end()) {
    // Older .ini files have no codec: raw records. Anything this build cannot decode is refused
    // here, so no reader ever takes framed chunks for records.
    auto spec = parse_codec("codec", codec->second.value);
    if (!spec) {
      return bad_input(ini_path.string() + ":" + std::to_string(codec->second.line) + ": the edge file's codec '" +
                       codec->second.value + "' is not one this build reads (" + codec_list() + ")");
    }
    info.codec = codec_name(*spec);
    if (info.framed()) {
      ES_ASSIGN_OR_RETURN(info.frame_bytes, get_u64(values, "graph.frame_bytes", ini_path));
      if (info.frame_bytes < 4096 || info.frame_bytes > (std::uint64_t{1} << 30)) {
        return bad_input(ini_path.string() + ":" + std::to_string(values["graph.frame_bytes"].line) +
                         ": 'frame_bytes' must be between 4096 and 1073741824, got " + std::to_string(info.frame_bytes));
      }
    }
  }
  if (const auto symmetric = values.find("graph.symmetric"); symmetric != values.end()) {
    if (symmetric->second.value != "0" && symmetric->second.value != "1") {
      return bad_input(ini_path.string() + ":" + std::to_string(symmetric->second.line) + ": 'symmetric' must be 0 or 1, got '" +
                       symmetric->second.value + "'");
    }
    info.symmetric = symmetric->second.value == "1";
  }
  if (values.count("disk.count") != 0) {
    ES_ASSIGN_OR_RETURN(const std::uint64_t count, get_u64(values, "disk.count", ini_path));
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::string key = "disk.mnt" + std::to_string(i);
      const auto it = values.find(key);
      if (it == values.end() || it->second.value.empty()) {
        return bad_input(ini_path.string() + ": [disk] count=" + std::to_string(count) + " but '" +
                         key.substr(5) + "' is missing");
      }
      info.volumes.emplace_back(it->second.value);
    }
    // Per-volume settings: mntN_<key>=value beside X-Stream's mntN=path.
    info.volume_settings.resize(count);
    for (const auto& [key, value] : values) {
      if (key.rfind("disk.mnt", 0) != 0) continue;
      const std::string rest = key.substr(8);
      const auto underscore = rest.find('_');
      if (underscore == std::string::npos) continue;  // mntN itself
      std::uint64_t index = 0;
      const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + underscore, index);
      const std::string setting = rest.substr(underscore + 1);
      if (ec != std::errc() || ptr != rest.data() + underscore || underscore == 0) {
        return bad_input(ini_path.string() + ":" + std::to_string(value.line) + ": unknown [disk] key '" + key.substr(5) +
                         "' (expected mntN, or mntN_read_chunk, mntN_write_chunk, mntN_io_depth, mntN_config)");
      }
      if (index >= count) {
        return bad_input(ini_path.string() + ":" + std::to_string(value.line) + ": '" + key.substr(5) +
                         "' names volume " + std::to_string(index) + " but [disk] count=" + std::to_string(count));
      }
      if (setting != "read_chunk" && setting != "write_chunk" && setting != "io_depth" && setting != "config") {
        return bad_input(ini_path.string() + ":" + std::to_string(value.line) + ": unknown volume setting '" + key.substr(5) +
                         "' (expected mntN_read_chunk, mntN_write_chunk, mntN_io_depth, mntN_config)");
      }
      info.volume_settings[index].push_back({setting, value.value, value.line});
    }
  }
  return info;
}

Expected<GraphInfo> read_graph_ini(const std::filesystem::path& ini_path) {
  ES_ASSIGN_OR_RETURN(GraphInfo info, parse_graph_ini(ini_path));
  std::error_code ec;
  const auto status = std::filesystem::status(info.edge_path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return not_found("edge file " + info.edge_path.string() + " (name=" + info.name + " in " +
                     ini_path.string() + ") does not exist");
  }
  if (!std::filesystem::is_regular_file(status)) {
    return bad_input("edge file " + info.edge_path.string() + " is not a regular file");
  }
  const std::uint64_t size = std::filesystem::file_size(info.edge_path, ec);
  if (ec) return errno_status(ec.value(), "stat", info.edge_path.string());
  info.stored_bytes = size;
  const std::uint64_t record = info.record_size();
  if (info.framed()) {
    // Each frame holds 1..frame_bytes raw bytes and stores a header plus at most its raw length.
    const std::uint64_t raw = info.raw_bytes();
    const std::uint64_t frames = (raw + info.frame_bytes - 1) / info.frame_bytes;
    if (size < frames * kFrameHeaderBytes || size > raw + frames * kFrameHeaderBytes) {
      return bad_input(ini_path.string() + ": edges=" + std::to_string(info.edges) + " in codec=" + info.codec +
                       " frames of " + std::to_string(info.frame_bytes) + " bytes need an edge file of " +
                       std::to_string(frames * kFrameHeaderBytes) + ".." + std::to_string(raw + frames * kFrameHeaderBytes) +
                       " bytes, but " + info.edge_path.string() + " has " + std::to_string(size));
    }
    return info;
  }
  if (size % record != 0) {
    return bad_input("edge file " + info.edge_path.string() + " has " + std::to_string(size) +
                     " bytes, which is not a multiple of the " + std::to_string(record) +
                     "-byte type " + std::to_string(static_cast<int>(info.type)) + " record (" +
                     std::to_string(size % record) + " trailing bytes)");
  }
  if (size / record != info.edges) {
    return bad_input(ini_path.string() + ": edges=" + std::to_string(info.edges) + " but edge file " +
                     info.edge_path.string() + " holds " + std::to_string(size / record) + " records (" +
                     std::to_string(size) + " bytes / " + std::to_string(record) + ")");
  }
  return info;
}

Status write_graph_ini(const GraphInfo& info) {
  std::ostringstream text;
  text << "[graph]\n"
       << "name=" << info.name << "\n"
       << "type=" << static_cast<int>(info.type) << "\n"
       << "vertices=" << info.vertices << "\n"
       << "edges=" << info.edges << "\n";
  if (info.framed()) text << "codec=" << info.codec << "\nframe_bytes=" << info.frame_bytes << "\n";
  if (info.symmetric) text << "symmetric=1\n";
  if (!info.volumes.empty()) {
    text << "[disk]\ncount=" << info.volumes.size() << "\n";
    for (std::size_t i = 0; i < info.volumes.size(); ++i) {
      text << "mnt" << i << "=" << info.volumes[i].string() << "\n";
      if (i < info.volume_settings.size()) {
        for (const auto& k : info.volume_settings[i]) text << "mnt" << i << "_" << k.key << "=" << k.value << "\n";
      }
    }
  }
  const std::filesystem::path tmp = info.ini_path.string() + ".tmp";
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return errno_status(errno, "create", tmp.string());
    const std::string bytes = text.str();
    out << bytes;
    out.flush();
    // The fault injection layer sees the .ini write too (tests of the tools' commit order).
    const long long injected = fault_injection::adjust(fault_injection::Op::kWrite, tmp.string(), bytes.size(),
                                                       out ? static_cast<long long>(bytes.size()) : -EIO);
    if (!out || injected != static_cast<long long>(bytes.size())) {
      const int error = !out ? errno : (injected < 0 ? static_cast<int>(-injected) : EIO);
      out.close();
      std::filesystem::remove(tmp, ec);
      return errno_status(error, "write", tmp.string());
    }
  }
  std::filesystem::rename(tmp, info.ini_path, ec);
  if (ec) {
    const int error = ec.value();
    std::filesystem::remove(tmp, ec);
    return errno_status(error, "rename to " + info.ini_path.string(), tmp.string());
  }
  return Status::ok();
}

}  // namespace edgestream
