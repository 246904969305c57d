// The ingest pipeline behind the `ingest` tool (and tests' real_graph()): text edge lists (SNAP) or
// Matrix Market, plain, gzip or stdin -> a graph (edge file + .ini, CONTRACT §1), streaming in
// bounded memory. Options: keep ids (|V| = max id + 1) or compact them to 0..n-1 in sorted order of the
// original ids (mapping written to NAME.ids); symmetrise; drop self-loops; drop duplicate edges
// (external sort, minimum weight kept); weights from the file, unit, or seeded random. Malformed lines
// are reported with line number and content and skipped (or stop the run with `strict`). The output
// is written under temporary names and renamed into place only when complete, NAME.ini last (the
// commit point); scratch files are removed on success, error and cancellation (SIGINT/SIGTERM via
// core/cancellation). --compact relabels on disk when the distinct ids exceed their memory share.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compress/codec.hpp"
#include "io/graph_format.hpp"
#include "io/text_edge_list.hpp"

namespace edgestream {

enum class InputFormat { kAuto, kSnap, kMatrixMarket };
enum class WeightMode {
  kAuto,    // from the file when it has weights, else 1
  kUnit,    // all 1 (file weights ignored)
  kRandom,  // uniform in [0,1) from the seed and the edge's position in the input (file weights ignored)
};

struct IngestOptions {
  std::string input;                 // path, or "-" for standard input; .gz detected from the bytes
  std::filesystem::path output;      // edge file; output + ".ini" (and ".ids" with compact) beside it
  InputFormat format = InputFormat::kAuto;  // auto: ".mtx"/".mtx.gz" name or a %%MatrixMarket first line
  std::optional<EdgeFileType> type;  // unset: type 1 when weights come from the file or --weights, else 2
  bool compact = false;
  bool symmetric = false;
  bool remove_self_loops = false;
  bool remove_duplicates = false;
  WeightMode weights = WeightMode::kAuto;
  std::uint64_t seed = 1;
  bool strict = false;
  std::uint64_t memory_bytes = std::uint64_t{1} << 30;  // sort buffer + id table (I/O buffers excluded)
  std::filesystem::path tmp_dir;     // scratch; empty = the output's directory
  CodecSpec codec;                   // --codec: none = raw records (X-Stream's format); else framed chunks
  std::size_t frame_bytes = std::size_t{1} << 20;  // --frame_bytes: raw bytes per frame when framed
  std::size_t max_reported = 20;     // malformed lines kept in the summary (all are counted)
  /// Called with every malformed line kept (the first max_reported), as they are found.
  std::function<void(const MalformedLine&)> on_malformed;
  /// Called about once a second with a one-line progress text (no newline); empty = no progress.
  std::function<void(const std::string&)> on_progress;
  /// At most one progress line per interval (tests set 0 to see every phase's lines).
  std::chrono::steady_clock::duration progress_interval = std::chrono::seconds(1);
};

struct IngestSummary {
  std::string format;                 // "snap" or "matrix-market"
  std::uint64_t lines = 0;            // input lines
  std::uint64_t edge_lines = 0;       // lines that held an edge (MM: entries)
  std::uint64_t malformed_lines = 0;  // skipped (all counted)
  std::vector<MalformedLine> reported;  // the first max_reported
  bool input_weighted = false;
  EdgeFileType type = EdgeFileType::kUnweighted;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;            // records written
  std::uint64_t stored_bytes = 0;     // bytes of the edge file (compressed frames when framed)
  std::uint64_t self_loops_removed = 0;
  std::uint64_t duplicates_removed = 0;
  std::uint64_t sort_runs = 0;        // runs the external sort wrote (0 = sorted in memory)
  std::uint64_t merge_passes = 0;
  bool external_relabel = false;      // compact: the distinct ids did not fit, relabelled on disk
  std::uint64_t id_runs = 0;          // compact: runs of the distinct-id sort (0 = in memory)
  std::filesystem::path ini_path;
  std::filesystem::path ids_path;     // with compact
};

/// Runs the pipeline. Errors: kInvalidArgument (options), kNotFound (input), kBadInput (a fatal
/// syntax error, the first malformed line with `strict`, a truncated .gz, ids >= 2^32), kIoError /
/// kNoSpace, kCancelled. `compact` relabels in memory when the distinct ids (4 B each) fit their
/// share of memory_bytes, else on disk (external sorts and merge-joins; same bytes out). On error no partial or scratch file is left, and existing files at `output`,
/// `output.ini` and `output.ids` are untouched (they are only replaced, by rename, on success).
Expected<IngestSummary> ingest_graph(const IngestOptions& options);

/// The comment ingest recognises as a vertex count declaration (export_text writes it).
inline constexpr std::string_view kVerticesComment = "# EdgeStream vertices=";

}  // namespace edgestream
