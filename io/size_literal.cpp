// parse_size / parse_count.
#include "io/size_literal.hpp"

#include <cctype>
#include <charconv>

namespace edgestream {

Expected<std::uint64_t> parse_count(const std::string& option, const std::string& text) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    return invalid_argument("--" + option + " expects a non-negative integer, got '" + text + "'");
  }
  return value;
}

Expected<std::uint64_t> parse_size(const std::string& option, const std::string& text) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const auto bad = [&] {
    return invalid_argument("--" + option + " expects a size such as 268435456, 256M or 8G, got '" + text + "'");
  };
  if (text.empty() || ec != std::errc() || ptr == text.data()) return bad();
  std::string suffix(ptr, text.data() + text.size());
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // "B" / "iB" may only follow a unit letter ("5iB" and "5BB" are not sizes).
  if (suffix.size() >= 2 && std::string("KMGT").find(suffix[0]) != std::string::npos &&
      (suffix.substr(1) == "B" || suffix.substr(1) == "IB")) {
    suffix.resize(1);
  }
  unsigned shift = 0;
  if (suffix.empty() || suffix == "B") shift = 0;
  else if (suffix == "K") shift = 10;
  else if (suffix == "M") shift = 20;
  else if (suffix == "G") shift = 30;
  else if (suffix == "T") shift = 40;
  else return bad();
  if (shift > 0 && value > (UINT64_MAX >> shift)) {
    return invalid_argument("--" + option + " value '" + text + "' is too large");
  }
  return value << shift;
}

}  // namespace edgestream
