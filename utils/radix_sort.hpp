// LSD radix sort of records by an unsigned 64-bit key, 8 bits per pass, only over the key bytes that
// can be non-zero (`key_bits`): sorting edges by a 40-bit Hilbert position takes 5 linear passes
// instead of an O(n log n) comparison sort. Stable: records with equal keys keep their order.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace edgestream {

/// Sorts `records` by key(record) (which must be < 2^key_bits). Needs a second buffer of the same
/// size (allocated here). Key is a callable: std::uint64_t(const Record&).
template <typename Record, typename Key>
void radix_sort_by_key(std::vector<Record>& records, unsigned key_bits, Key key) {
  if (records.size() < 2) return;
  std::vector<Record> scratch(records.size());
  std::vector<Record>* from = &records;
  std::vector<Record>* to = &scratch;
  for (unsigned shift = 0; shift < key_bits; shift += 8) {
    std::array<std::size_t, 256> count{};
    for (const Record& r : *from) ++count[(key(r) >> shift) & 0xFF];
    if (count[(key((*from)[0]) >> shift) & 0xFF] == from->size()) continue;  // all equal in this byte
    std::size_t sum = 0;
    for (auto& c : count) {
      const std::size_t n = c;
      c = sum;
      sum += n;
    }
    for (const Record& r : *from) (*to)[count[(key(r) >> shift) & 0xFF]++] = r;
    std::swap(from, to);
  }
  if (from != &records) records.swap(*from);
}

}  // namespace edgestream
