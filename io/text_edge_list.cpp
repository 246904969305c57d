// SNAP-style text edge list parsing (see text_edge_list.hpp).
#include "io/text_edge_list.hpp"

#include <charconv>
#include <cmath>

namespace edgestream {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view skip_blanks(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return s.substr(i);
}

// The next whitespace-delimited token (empty at end of line); `rest` advances past it.
std::string_view next_token(std::string_view& rest) {
  rest = skip_blanks(rest);
  std::size_t i = 0;
  while (i < rest.size() && !is_blank(rest[i])) ++i;
  const std::string_view token = rest.substr(0, i);
  rest = rest.substr(i);
  return token;
}

// Parses a vertex id token; returns a reason on failure.
const char* parse_id(std::string_view token, std::uint32_t& out, const char* missing) {
  if (token.empty()) return missing;
  if (token.front() == '-') return "negative vertex id";
  if (token.front() == '+') token.remove_prefix(1);
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec == std::errc::result_out_of_range) return "vertex id does not fit in 32 bits (ids must be < 2^32)";
  if (ec != std::errc() || ptr == token.data()) return "vertex id is not a non-negative integer";
  if (ptr != token.data() + token.size()) return "vertex id is not a non-negative integer";
  if (value > UINT32_MAX) return "vertex id does not fit in 32 bits (ids must be < 2^32)";
  out = static_cast<std::uint32_t>(value);
  return nullptr;
}

const char* parse_weight(std::string_view token, float& out) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || ptr != token.data() + token.size() || token.empty()) {
    if (ec == std::errc::result_out_of_range) return "weight out of range";
    return "weight is not a number";
  }
  if (!std::isfinite(value) || std::fabs(value) > 3.4028234663852886e38) return "weight is not a finite 32-bit float";
  out = static_cast<float>(value);
  return nullptr;
}

}  // namespace

MalformedLine make_malformed(std::uint64_t line, std::string_view content, const char* reason) {
  MalformedLine m;
  m.line = line;
  m.reason = reason;
  if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
  if (content.size() > kMaxReportedLineBytes) {
    m.content.assign(content.substr(0, kMaxReportedLineBytes));
    m.content += "...";
  } else {
    m.content.assign(content);
  }
  return m;
}

std::string describe(const MalformedLine& m) {
  return "line " + std::to_string(m.line) + ": " + m.reason + ": '" + m.content + "'";
}

ParsedTextLine parse_text_edge_line(std::string_view line) {
  ParsedTextLine result;
  std::string_view rest = skip_blanks(line);
  if (rest.empty() || rest.front() == '#' || rest.front() == '%') return result;  // blank or comment
  result.kind = LineKind::kMalformed;
  if (const char* r = parse_id(next_token(rest), result.edge.src, "missing source id")) {
    result.reason = r;
    return result;
  }
  if (const char* r = parse_id(next_token(rest), result.edge.dst, "missing destination id (expected 'src dst [weight]')")) {
    result.reason = r;
    return result;
  }
  const std::string_view weight = next_token(rest);
  if (!weight.empty()) {
    if (const char* r = parse_weight(weight, result.edge.weight)) {
      result.reason = r;
      return result;
    }
    result.edge.has_weight = true;
  }
  if (!next_token(rest).empty()) {
    result.reason = "trailing text after 'src dst [weight]'";
    return result;
  }
  result.kind = LineKind::kEdge;
  return result;
}

ParsedTextLine TextEdgeListParser::feed(std::string_view line) {
  ++lines_;
  ParsedTextLine parsed = parse_text_edge_line(line);
  if (parsed.kind != LineKind::kEdge) return parsed;
  const int columns = parsed.edge.has_weight ? 3 : 2;
  if (columns_ == 0) {
    columns_ = columns;
  } else if (columns != columns_) {
    parsed.kind = LineKind::kMalformed;
    parsed.reason = columns_ == 3 ? "missing weight column (earlier edge lines have 3 columns)"
                                  : "unexpected third column (earlier edge lines have 2 columns)";
  }
  return parsed;
}

TextEdgeListParse parse_text_edge_list(std::string_view buffer) {
  TextEdgeListParse out;
  TextEdgeListParser parser;
  for_each_line(buffer, [&](std::string_view line) {
    const ParsedTextLine parsed = parser.feed(line);
    if (parsed.kind == LineKind::kEdge) {
      out.edges.push_back(parsed.edge);
    } else if (parsed.kind == LineKind::kMalformed) {
      out.malformed.push_back(make_malformed(parser.lines(), line, parsed.reason));
    }
  });
  out.lines = parser.lines();
  return out;
}

}  // namespace edgestream
