// Matrix Market coordinate parsing (see matrix_market.hpp).
#include "io/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace edgestream {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view next_token(std::string_view& rest) {
  std::size_t i = 0;
  while (i < rest.size() && is_blank(rest[i])) ++i;
  rest = rest.substr(i);
  i = 0;
  while (i < rest.size() && !is_blank(rest[i])) ++i;
  const std::string_view token = rest.substr(0, i);
  rest = rest.substr(i);
  return token;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool parse_u64(std::string_view token, std::uint64_t& out) {
  if (token.empty()) return false;
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
  return ec == std::errc() && ptr == token.data() + token.size();
}

std::string shown(std::string_view line) { return make_malformed(0, line, "").content; }

Status fatal(std::uint64_t line_number, std::string_view line, const std::string& what) {
  return bad_input("line " + std::to_string(line_number) + ": " + what + ": '" + shown(line) + "'");
}
}  // namespace

bool is_matrix_market_banner(std::string_view first_line) {
  constexpr std::string_view kBanner = "%%matrixmarket";
  return first_line.size() >= kBanner.size() && lower(first_line.substr(0, kBanner.size())) == kBanner;
}

Status MatrixMarketParser::feed(std::string_view line, Result& result) {
  ++lines_;
  result = Result{};
  if (state_ == State::kHeader) {
    if (!is_matrix_market_banner(line)) {
      return fatal(lines_, line, "expected the Matrix Market banner '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    }
    std::string_view rest = line.substr(14);
    const std::string object = lower(next_token(rest));
    const std::string format = lower(next_token(rest));
    const std::string field = lower(next_token(rest));
    const std::string symmetry = lower(next_token(rest));
    if (object != "matrix") return fatal(lines_, line, "object must be 'matrix'");
    if (format != "coordinate") {
      return fatal(lines_, line, "format must be 'coordinate' (dense 'array' files are not edge lists)");
    }
    if (field == "real" || field == "integer" || field == "double") {
      header_.weighted = true;
    } else if (field != "pattern") {
      return fatal(lines_, line, "field must be 'real', 'integer' or 'pattern' (complex is not supported)");
    }
    if (symmetry == "symmetric") {
      header_.symmetric = true;
    } else if (symmetry != "general") {
      return fatal(lines_, line, "symmetry must be 'general' or 'symmetric' (skew-symmetric and hermitian are not supported)");
    }
    if (!next_token(rest).empty()) return fatal(lines_, line, "unexpected text after the symmetry");
    state_ = State::kSize;
    return Status::ok();
  }
  std::string_view rest = line;
  while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
  if (rest.empty() || rest.front() == '%') return Status::ok();  // comment or blank line
  if (state_ == State::kSize) {
    if (!parse_u64(next_token(rest), header_.rows) || !parse_u64(next_token(rest), header_.cols) ||
        !parse_u64(next_token(rest), header_.entries) || !next_token(rest).empty()) {
      return fatal(lines_, line, "expected the size line 'rows cols entries' (three non-negative integers)");
    }
    if (header_.rows > (std::uint64_t{1} << 32) || header_.cols > (std::uint64_t{1} << 32)) {
      return fatal(lines_, line, "more than 2^32 rows or columns: vertex ids are 32-bit");
    }
    state_ = State::kEntries;
    return Status::ok();
  }
  ++entry_lines_;
  if (entry_lines_ > header_.entries) {
    return fatal(lines_, line, "more entry lines than the " + std::to_string(header_.entries) +
                                   " stated on the size line");
  }
  result.kind = LineKind::kMalformed;
  std::uint64_t i = 0;
  std::uint64_t j = 0;
  const std::string_view ti = next_token(rest);
  const std::string_view tj = next_token(rest);
  if (ti.empty() || tj.empty()) {
    result.reason = header_.weighted ? "expected 'row col value'" : "expected 'row col'";
    return Status::ok();
  }
  if (ti.front() == '-' || tj.front() == '-') {
    result.reason = "negative index";
    return Status::ok();
  }
  if (!parse_u64(ti, i) || !parse_u64(tj, j)) {
    result.reason = "index is not a positive integer";
    return Status::ok();
  }
  if (i == 0 || j == 0) {
    result.reason = "index 0 (Matrix Market indices are 1-based)";
    return Status::ok();
  }
  if (i > header_.rows || j > header_.cols) {
    result.reason = "index outside the size line's rows x cols";
    return Status::ok();
  }
  if (header_.symmetric && j > i) {
    result.reason = "entry above the diagonal in a symmetric file (only the lower triangle is stored)";
    return Status::ok();
  }
  result.edge.src = static_cast<std::uint32_t>(i - 1);
  result.edge.dst = static_cast<std::uint32_t>(j - 1);
  if (header_.weighted) {
    const std::string_view tv = next_token(rest);
    double value = 0;
    const auto [ptr, ec] = std::from_chars(tv.data(), tv.data() + tv.size(), value);
    if (tv.empty()) {
      result.reason = "missing value (the header says the matrix is not 'pattern')";
      return Status::ok();
    }
    if (ec != std::errc() || ptr != tv.data() + tv.size() || !std::isfinite(value) ||
        std::fabs(value) > 3.4028234663852886e38) {
      result.reason = "value is not a finite 32-bit float";
      return Status::ok();
    }
    result.edge.weight = static_cast<float>(value);
    result.edge.has_weight = true;
  }
  if (!next_token(rest).empty()) {
    result.reason = header_.weighted ? "trailing text after 'row col value'" : "trailing text after 'row col' (pattern file)";
    return Status::ok();
  }
  result.kind = LineKind::kEdge;
  return Status::ok();
}

Status MatrixMarketParser::finish() const {
  if (state_ == State::kHeader) return bad_input("empty input: no Matrix Market banner");
  if (state_ == State::kSize) return bad_input("no size line 'rows cols entries' after the banner");
  if (entry_lines_ != header_.entries) {
    return bad_input("the size line states " + std::to_string(header_.entries) + " entries but the file has " +
                     std::to_string(entry_lines_) + " entry lines (truncated file?)");
  }
  return Status::ok();
}

MatrixMarketParse parse_matrix_market(std::string_view buffer) {
  MatrixMarketParse out;
  MatrixMarketParser parser;
  bool stopped = false;
  for_each_line(buffer, [&](std::string_view line) {
    if (stopped) return;
    MatrixMarketParser::Result r;
    if (Status s = parser.feed(line, r); !s.is_ok()) {
      out.status = s;
      stopped = true;
      return;
    }
    if (r.kind == LineKind::kEdge) {
      out.edges.push_back(r.edge);
    } else if (r.kind == LineKind::kMalformed) {
      out.malformed.push_back(make_malformed(parser.lines(), line, r.reason));
    }
  });
  if (!stopped) out.status = parser.finish();
  out.header = parser.header();
  out.lines = parser.lines();
  return out;
}

std::vector<TextEdge> expand_symmetric(const std::vector<TextEdge>& stored) {
  std::vector<TextEdge> out;
  out.reserve(stored.size() * 2);
  for (const TextEdge& e : stored) {
    out.push_back(e);
    if (e.src != e.dst) {
      TextEdge r = e;
      std::swap(r.src, r.dst);
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace edgestream
