// libFuzzer target: the SNAP text edge list buffer parser must accept any bytes without aborting,
// and every edge it returns must be consistent with its input (line numbers in range).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/text_edge_list.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view buffer(reinterpret_cast<const char*>(data), size);
  const edgestream::TextEdgeListParse parse = edgestream::parse_text_edge_list(buffer);
  if (parse.edges.size() + parse.malformed.size() > parse.lines) std::abort();  // more results than lines
  for (const auto& m : parse.malformed) {
    if (m.line == 0 || m.line > parse.lines || m.content.size() > edgestream::kMaxReportedLineBytes + 3) std::abort();
  }
  return 0;
}
