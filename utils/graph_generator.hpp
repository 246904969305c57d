// Synthetic graph generators behind the `rmat` and `erdos-renyi` tools: RMAT (recursive matrix,
// Chakrabarti et al.) and Erdős–Rényi G(n, m) edge lists, written as an X-Stream graph (NAME.ini +
// packed edge file NAME) or returned in memory for tests.
//
// Determinism contract: the edges depend only on the options (scale / vertices, edges, a, b, c,
// self_loops, symmetric) and the two seeds — never on the thread count. The sequence of generated
// edges is cut into blocks of kGeneratorBlockEdges edges; block i draws from its own xoshiro256**
// stream seeded from (generator kind, seed1, seed2, i) through splitmix64, threads take blocks
// round-robin, and blocks are written in order. Changing kGeneratorBlockEdges or the seeding changes
// every generated graph, so treat both as part of the output format.
//
// Per generated edge the random draws are: the endpoints (RMAT: two 64-bit draws per group of four
// recursion levels, 32-bit precision per level, ceil(scale/4) groups, see graph_generator.cpp;
// Erdős–Rényi: src, then dst, re-drawn while it equals src unless self loops are allowed), then one
// draw for the weight. The weight draw happens for type 2 too, so type 1 and type 2 graphs from the
// same options have identical src/dst sequences, and the even records of a --symmetric graph are the
// records of the same graph without --symmetric.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/graph_format.hpp"
#include "io/status.hpp"

namespace edgestream {

/// Edges per determinism block (before --symmetric doubling). Part of the output format, see above.
inline constexpr std::uint64_t kGeneratorBlockEdges = std::uint64_t{1} << 18;

/// Seeds used when the user gives none.
inline constexpr std::uint64_t kDefaultGeneratorSeed1 = 0x243F6A8885A308D3ULL;
inline constexpr std::uint64_t kDefaultGeneratorSeed2 = 0x13198A2E03707344ULL;

/// Options of the RMAT generator. vertices = 2^scale; ids are not permuted, so low ids are the
/// high-degree ones (vertex 0 is the hub for a > d).
struct RmatOptions {
  /// Output edge file; the property file is name + ".ini" (its `name=` is the bare file name). May
  /// include a directory (created if missing). Must not be empty, end in '/' or end in ".ini".
  /// Only generate_rmat() needs it.
  std::string name;
  int scale = 20;                 ///< log2 of the vertex count, 1..32
  std::uint64_t edges = 0;        ///< edges to draw; 0 means 16 << scale (X-Stream's default)
  double a = 0.57;                ///< probability of the top-left quadrant (src bit 0, dst bit 0)
  double b = 0.19;                ///< top-right (src 0, dst 1)
  double c = 0.19;                ///< bottom-left (src 1, dst 0); d = 1 - a - b - c is (1, 1)
  bool symmetric = false;         ///< also emit (v,u) right after each (u,v), same weight; doubles the count
  std::uint64_t seed1 = kDefaultGeneratorSeed1;
  std::uint64_t seed2 = kDefaultGeneratorSeed2;
  unsigned threads = 0;           ///< generator threads; 0 = std::thread::hardware_concurrency()
  EdgeFileType type = EdgeFileType::kWeighted;  ///< 1: weights uniform in [0,1); 2: no weights
  bool progress = false;          ///< print "rmat: NN%" updates to stderr while writing
  /// Write the edge file with O_DIRECT (no page-cache copy, and the new graph does not evict the
  /// page cache); falls back to buffered writes where the file system refuses it and for the
  /// unaligned tail. false = plain buffered writes.
  bool direct_io = true;
  /// When non-null and it returns true (the tools pass io/cancellation's cancel_requested, set by
  /// SIGINT/SIGTERM/SIGHUP), generate_rmat() stops within about one block, removes its temporary
  /// file and returns StatusCode::kCancelled. Called from several threads: must be thread-safe.
  bool (*cancel)() = nullptr;
};

/// Options of the Erdős–Rényi G(n, m) generator: `edges` edges with both endpoints uniform over
/// [0, vertices), drawn independently (duplicates possible).
struct ErdosRenyiOptions {
  std::string name;               ///< as RmatOptions::name
  std::uint64_t vertices = 0;     ///< 1 .. 2^32
  std::uint64_t edges = 0;        ///< edges to draw (before --symmetric doubling)
  bool self_loops = false;        ///< false: dst is re-drawn while it equals src (needs vertices >= 2 when edges > 0)
  bool symmetric = false;         ///< as RmatOptions::symmetric
  std::uint64_t seed1 = kDefaultGeneratorSeed1;
  std::uint64_t seed2 = kDefaultGeneratorSeed2;
  unsigned threads = 0;           ///< 0 = hardware concurrency
  EdgeFileType type = EdgeFileType::kWeighted;
  bool progress = false;          ///< print "erdos-renyi: NN%" updates to stderr
  bool direct_io = true;          ///< as RmatOptions::direct_io
  bool (*cancel)() = nullptr;     ///< as RmatOptions::cancel
};

/// Checks everything but `name`: scale 1..32, a/b/c in [0,1] with a+b+c <= 1 (+1e-9 for rounding),
/// type 1 or 2, threads <= 1024, and that the edge file size fits in 63 bits. Messages name the CLI
/// option (e.g. "--scale must be ..."). Memory: each generator thread holds two blocks (<= 6 MiB).
Status validate_rmat_options(const RmatOptions& options);
/// Checks everything but `name`: vertices 1..2^32, vertices >= 2 when edges > 0 without self loops,
/// type 1 or 2, threads <= 1024, and that the edge file size fits in 63 bits.
Status validate_erdos_renyi_options(const ErdosRenyiOptions& options);

/// Vertex count of the graph the options describe (2^scale / vertices).
std::uint64_t rmat_vertex_count(const RmatOptions& options);
/// Records in the edge file: edges (or 16 << scale when 0), doubled when symmetric. Options must be valid.
std::uint64_t rmat_record_count(const RmatOptions& options);
/// Records in the edge file: edges, doubled when symmetric.
std::uint64_t erdos_renyi_record_count(const ErdosRenyiOptions& options);

/// Validates the options, then writes the edge file `name` and the property file `name.ini`
/// (type, vertices, edges = records written). The edge file is written under a temporary name in
/// the same directory ("name.partial-PID") with large sequential writes and renamed into place when
/// complete; an old name.ini is removed before that rename and the new one is written last, so a
/// NAME.ini only ever describes a complete edge file. On any error (or cancel) the temporary file
/// is removed and the Status names the path involved. No fsync: a power loss may still lose data.
Status generate_rmat(const RmatOptions& options);
Status generate_erdos_renyi(const ErdosRenyiOptions& options);

/// The edges generate_rmat() / generate_erdos_renyi() would write, in file order, decoded (type 2
/// edges have weight 1). Same options → same edges, whatever `threads` is. `name`, `progress`,
/// `direct_io` and `cancel` are ignored. Throws std::invalid_argument (with the validation message) for invalid
/// options. Meant for small graphs (tests, reference computations).
std::vector<Edge> rmat_edges(const RmatOptions& options);
std::vector<Edge> erdos_renyi_edges(const ErdosRenyiOptions& options);

namespace detail {
/// rmat_edges() computed with the portable (non-SIMD) code path; must equal rmat_edges(). For tests.
std::vector<Edge> rmat_edges_portable(const RmatOptions& options);
}  // namespace detail

}  // namespace edgestream
