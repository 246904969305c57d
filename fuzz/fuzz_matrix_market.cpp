// libFuzzer target: the Matrix Market buffer parser must accept any bytes without aborting; edges it
// returns lie inside the size line's rows x cols, and an ok parse has exactly the stated entry count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view buffer(reinterpret_cast<const char*>(data), size);
  const edgestream::MatrixMarketParse parse = edgestream::parse_matrix_market(buffer);
  for (const auto& e : parse.edges) {
    if (e.src >= parse.header.rows || e.dst >= parse.header.cols) std::abort();
  }
  if (parse.status.is_ok() && parse.edges.size() + parse.malformed.size() != parse.header.entries) std::abort();
  if (parse.header.symmetric) (void)edgestream::expand_symmetric(parse.edges);
  return 0;
}
