// The edge sort order of ExternalEdgeSorter (see external_edge_sort.hpp).
#include "utils/external_edge_sort.hpp"

#include <bit>

namespace edgestream {

bool edge_sort_less(const Edge& a, const Edge& b) {
  if (a.src != b.src) return a.src < b.src;
  if (a.dst != b.dst) return a.dst < b.dst;
  if (a.weight != b.weight) return a.weight < b.weight;
  return std::bit_cast<std::uint32_t>(a.weight) < std::bit_cast<std::uint32_t>(b.weight);
}

}  // namespace edgestream
