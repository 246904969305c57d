// Parsing of whitespace-separated text edge lists (SNAP style): one edge per line "src dst" or
// "src dst weight", separated by spaces and/or tabs; '#' and '%' start comment lines; blank lines are
// ignored; a trailing '\r' (CRLF files) is ignored. Ids are non-negative decimal integers below 2^32,
// weights finite decimal floats. Pure functions over memory: no I/O here (the ingest tool streams
// lines into these; the fuzz target feeds them arbitrary bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace edgestream {

/// One edge as read from text, before any relabelling. Ids are checked to be < 2^32.
struct TextEdge {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  float weight = 1.0F;
  bool has_weight = false;  // the line had a third column
};

/// A line that could not be parsed: 1-based line number, the line (cut to kMaxReportedLineBytes
/// bytes, "..." appended when cut) and why (a static string).
struct MalformedLine {
  std::uint64_t line = 0;
  std::string content;
  const char* reason = "";
};

/// Bytes of a malformed line kept for the report.
inline constexpr std::size_t kMaxReportedLineBytes = 200;

/// "line 12: missing destination id: '7'" — for messages.
std::string describe(const MalformedLine& m);
/// Builds a MalformedLine (cutting the content).
MalformedLine make_malformed(std::uint64_t line, std::string_view content, const char* reason);

enum class LineKind { kEdge, kIgnored /* comment or blank */, kMalformed };

struct ParsedTextLine {
  LineKind kind = LineKind::kIgnored;
  TextEdge edge;             // valid when kind == kEdge
  const char* reason = "";  // valid when kind == kMalformed
};

/// Parses one line (without its '\n'; a trailing '\r' is allowed). Never throws, any bytes accepted.
ParsedTextLine parse_text_edge_line(std::string_view line);

/// Stateful line-by-line parser for one file: on top of parse_text_edge_line it requires every edge
/// line to have the column count of the first edge line (2 or 3), so a weight column that comes and
/// goes is reported instead of silently mixing weighted and unweighted edges.
class TextEdgeListParser {
 public:
  /// Parses the next line (its 1-based number is lines() afterwards). On kMalformed, `reason` says why.
  ParsedTextLine feed(std::string_view line);
  std::uint64_t lines() const { return lines_; }
  /// 2 or 3 once an edge line was seen, 0 before.
  int columns() const { return columns_; }

 private:
  std::uint64_t lines_ = 0;
  int columns_ = 0;
};

/// The result of parsing a whole buffer.
struct TextEdgeListParse {
  std::vector<TextEdge> edges;
  std::vector<MalformedLine> malformed;  // every malformed line, in order
  std::uint64_t lines = 0;                // lines seen (a last line without '\n' counts)
};

/// Parses a memory buffer of '\n'-separated lines. Pure, total (never aborts on any input): for
/// tests and libFuzzer.
TextEdgeListParse parse_text_edge_list(std::string_view buffer);

/// Calls `fn(line)` for each '\n'-separated line of `buffer` (a final line without '\n' included;
/// an empty buffer has no lines).
template <typename Fn>
void for_each_line(std::string_view buffer, Fn&& fn) {
  std::size_t pos = 0;
  while (pos < buffer.size()) {
    const std::size_t nl = buffer.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? buffer.size() : nl;
    fn(buffer.substr(pos, end - pos));
    pos = end + 1;
  }
}

}  // namespace edgestream
