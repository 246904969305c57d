// The on-disk graph format (CONTRACT §1, X-Stream compatible): a property file G.ini plus a packed,
// little-endian, headerless edge file. Type 1 records are <u32 src, u32 dst, f32 weight> (12 B),
// type 2 records <u32 src, u32 dst> (8 B). This file reads, validates and writes the .ini.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

using VertexId = std::uint32_t;

/// An edge as the engine sees it; type 2 edges have weight 1.
struct Edge {
  VertexId src;
  VertexId dst;
  float weight;
};

enum class EdgeFileType : int { kWeighted = 1, kUnweighted = 2 };

/// Bytes per record of an edge file of this type (12 or 8).
constexpr std::size_t edge_record_size(EdgeFileType type) {
  return type == EdgeFileType::kWeighted ? 12 : 8;
}

/// Decodes the record at `p` (no alignment needed).
inline Edge decode_edge(const std::byte* p, EdgeFileType type) {
  Edge e{};
  std::memcpy(&e.src, p, 4);
  std::memcpy(&e.dst, p + 4, 4);
  if (type == EdgeFileType::kWeighted) {
    std::memcpy(&e.weight, p + 8, 4);
  } else {
    e.weight = 1.0F;
  }
  return e;
}

/// Encodes `e` at `p` (edge_record_size(type) bytes).
inline void encode_edge(std::byte* p, const Edge& e, EdgeFileType type) {
  std::memcpy(p, &e.src, 4);
  std::memcpy(p + 4, &e.dst, 4);
  if (type == EdgeFileType::kWeighted) std::memcpy(p + 8, &e.weight, 4);
}

/// What a G.ini says, with paths resolved.
struct GraphInfo {
  std::filesystem::path ini_path;   // the .ini itself
  std::string name;                 // the `name=` value as written
  std::filesystem::path edge_path;  // name resolved against the .ini's directory (or absolute)
  EdgeFileType type = EdgeFileType::kUnweighted;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  std::vector<std::filesystem::path> volumes;  // [disk] mnt0..mnt{count-1}, may be empty
  // Per-volume settings from [disk] keys mntN_read_chunk, mntN_write_chunk, mntN_io_depth,
  // mntN_config (docs/volumes.md; X-Stream ignores them): one list per volume of (key, value),
  // key without the "mntN_" prefix; values are checked where they are applied (core/volume_set).
  struct VolumeKey {
    std::string key;
    std::string value;
    int line = 0;
  };
  std::vector<std::vector<VolumeKey>> volume_settings;
  // How the edge file is stored (optional keys, docs/ingest.md): [graph] codec= (absent or "none":
  // the raw records, X-Stream's format; "snappy", "zlib", "zlib:L": framed chunks of frame_bytes
  // raw bytes each, compress/frame.hpp) and frame_bytes=.
  std::string codec = "none";
  std::uint64_t frame_bytes = 0;
  // [graph] symmetric=1 (optional, default 0): every edge is also stored reversed (u->v and v->u,
  // with the same weight; rmat/erdos-renyi --symmetric, ingest of a symmetric Matrix Market file).
  // Undirected programs whose result does not depend on an edge's multiplicity (cc) then scatter
  // each record one way only; the engine checks the claim while it reads the input.
  bool symmetric = false;
  std::uint64_t stored_bytes = 0;  // the edge file's size (read_graph_ini); = raw_bytes() when raw

  std::size_t record_size() const { return edge_record_size(type); }
  /// Bytes of the records themselves (decoded).
  std::uint64_t raw_bytes() const { return edges * record_size(); }
  /// The edge file holds framed chunks (read it through compress/graph_input.hpp).
  bool framed() const { return codec != "none"; }
};

/// Resolves the user's `-g G` argument to an .ini path: "G" -> "G.ini" unless G already ends in
/// ".ini" (X-Stream users pass the name without the extension).
std::filesystem::path graph_ini_path(const std::string& graph_arg);

/// Reads and validates G.ini: required keys present and numeric, type 1 or 2, vertices <= 2^32,
/// a known codec (with frame_bytes in 4K..1G when framed), the edge file exists, is a regular file,
/// and its size equals edges * record size (framed: lies between the smallest and largest size
/// frames of those records can take).
/// Errors name the .ini path (and line for syntax errors) or the edge file and the sizes involved.
Expected<GraphInfo> read_graph_ini(const std::filesystem::path& ini_path);

/// Reads the .ini without checking the edge file (for tools that are about to write it).
Expected<GraphInfo> parse_graph_ini(const std::filesystem::path& ini_path);

/// Writes `info` as an .ini at info.ini_path (name=, type=, vertices=, edges=, codec= and
/// frame_bytes= when framed, and [disk] when volumes are given). The file is written to a temporary name and renamed into place.
Status write_graph_ini(const GraphInfo& info);

}  // namespace edgestream
