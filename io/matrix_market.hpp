// Parsing of Matrix Market coordinate files as graphs: the header line
// "%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>", '%' comment lines,
// the size line "rows cols entries", then `entries` lines "i j [value]" with 1-based indices.
// Entry (i, j) is the edge (i-1) -> (j-1) with weight value (pattern: no weight); a symmetric file
// stores one triangle and the edge (j-1) -> (i-1) is implied for i != j (expand_symmetric()).
// Pure functions over memory: no I/O here.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "io/status.hpp"
#include "io/text_edge_list.hpp"

namespace edgestream {

struct MatrixMarketHeader {
  bool weighted = false;   // real or integer (not pattern)
  bool symmetric = false;  // symmetric (not general)
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::uint64_t entries = 0;  // as stated on the size line
};

/// Line-by-line parser. The header and size lines are structural: an error there is fatal (a Status,
/// kBadInput, naming the line). Entry lines that are malformed are reported one by one (kMalformed)
/// and count towards the stated number of entries, so finish() can check that count.
class MatrixMarketParser {
 public:
  struct Result {
    LineKind kind = LineKind::kIgnored;
    TextEdge edge;  // 0-based, when kind == kEdge
    const char* reason = "";
  };
  /// Parses the next line (its 1-based number is lines() afterwards). A non-ok status is fatal.
  Status feed(std::string_view line, Result& result);
  /// After the last line: checks that the header and size line were seen and that the number of
  /// entry lines equals the size line's count (a short file is an error, never a silent truncation).
  Status finish() const;
  bool has_size() const { return state_ == State::kEntries; }
  const MatrixMarketHeader& header() const { return header_; }
  std::uint64_t lines() const { return lines_; }
  std::uint64_t entry_lines() const { return entry_lines_; }

 private:
  enum class State { kHeader, kSize, kEntries };
  State state_ = State::kHeader;
  MatrixMarketHeader header_;
  std::uint64_t lines_ = 0;
  std::uint64_t entry_lines_ = 0;
};

struct MatrixMarketParse {
  Status status;  // fatal error (header, size line, entry count), or ok
  MatrixMarketHeader header;
  std::vector<TextEdge> edges;  // as stored (symmetric files NOT expanded)
  std::vector<MalformedLine> malformed;
  std::uint64_t lines = 0;
};

/// Parses a whole buffer of '\n'-separated lines. Pure, total (never aborts): for tests and libFuzzer.
MatrixMarketParse parse_matrix_market(std::string_view buffer);

/// The edges a symmetric file stands for: each (u, v) with u != v also as (v, u), same weight.
std::vector<TextEdge> expand_symmetric(const std::vector<TextEdge>& stored);

/// True when `first_line` is a Matrix Market banner ("%%MatrixMarket", case-insensitive).
bool is_matrix_market_banner(std::string_view first_line);

}  // namespace edgestream
