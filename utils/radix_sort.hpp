// Radix sort of records by an unsigned 64-bit key, only over the key bits that can be non-zero
// (`key_bits`): sorting edges by a 40-bit Hilbert position in linear time instead of an O(n log n)
// comparison sort. Cache-friendly hybrid: large ranges are split by their top key bits (one
// histogram + one scatter pass over memory) into buckets of about 8 Ki records (at most 2048
// buckets: 11 bits), recursively, until a bucket fits in the cache (<= 64 Ki records) or 16 bits are
// left; such a bucket is finished by an LSD radix sort, 8 bits per pass, that stays in cache and
// skips bytes where all keys agree. (Splitting a range of 300 Ki records 2048 ways left buckets of
// ~150 records, whose LSD passes cost more in histograms than in moves: 11-12 ns per record, 6 ns
// with 64 buckets; benchmarks/radix_sort_bench.) Stable: records with equal keys keep their order
// (both phases are stable counting sorts). Also sorts the on-disk grid's buckets (core/grid_codec.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace edgestream {
namespace radix_detail {

constexpr unsigned kMsdBits = 11;
constexpr std::size_t kCacheRecords = std::size_t{1} << 16;
constexpr std::size_t kMsdBucketRecords = std::size_t{1} << 13;  // an MSD split aims at buckets of this size

// LSD over bits [0, bits) of data[0..n), scratch other[0..n). Returns where the result ended. The
// counts of every byte come from one pass over the keys; then one scatter pass per byte.
template <typename Record, typename Key>
Record* lsd(Record* data, Record* other, std::size_t n, unsigned bits, const Key& key) {
  const unsigned passes = (bits + 7) / 8;  // at most 8
  std::array<std::array<std::size_t, 256>, 8> count;
  for (unsigned p = 0; p < passes; ++p) count[p].fill(0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = key(data[i]);
    for (unsigned p = 0; p < passes; ++p) ++count[p][(k >> (8 * p)) & 0xFF];
  }
  const std::uint64_t k0 = key(data[0]);
  for (unsigned p = 0; p < passes; ++p) {
    const unsigned shift = 8 * p;
    if (count[p][(k0 >> shift) & 0xFF] == n) continue;  // all equal in this byte
    std::size_t sum = 0;
    for (auto& c : count[p]) {
      const std::size_t m = c;
      c = sum;
      sum += m;
    }
    std::array<std::size_t, 256>& next = count[p];
    for (std::size_t i = 0; i < n; ++i) other[next[(key(data[i]) >> shift) & 0xFF]++] = data[i];
    std::swap(data, other);
  }
  return data;
}

// Sorts data[0..n) by key bits [0, bits), scratch other[0..n); the result ends in data.
template <typename Record, typename Key>
void hybrid(Record* data, Record* other, std::size_t n, unsigned bits, const Key& key) {
  if (n < 2 || bits == 0) return;
  if (n <= kCacheRecords || bits <= 16) {
    Record* result = lsd(data, other, n, bits, key);
    if (result != data) std::copy(result, result + n, data);
    return;
  }
  const unsigned wanted = std::min<unsigned>(kMsdBits, static_cast<unsigned>(std::bit_width(n / kMsdBucketRecords)));
  const unsigned digit = bits < wanted ? bits : wanted;
  const unsigned shift = bits - digit;
  const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
  std::vector<std::size_t> start((std::size_t{1} << digit) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++start[((key(data[i]) >> shift) & mask) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<std::size_t> cursor(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) other[cursor[(key(data[i]) >> shift) & mask]++] = data[i];
  // Each bucket is now in `other`; sort it there with `data` as scratch, then it must end in data.
  for (std::size_t b = 0; b + 1 < start.size(); ++b) {
    const std::size_t begin = start[b];
    const std::size_t count = start[b + 1] - begin;
    if (count == 0) continue;
    hybrid(other + begin, data + begin, count, shift, key);
    std::copy(other + begin, other + begin + count, data + begin);
  }
}

}  // namespace radix_detail

/// Sorts `records` by key(record) (which must be < 2^key_bits, key_bits <= 64), using `scratch`
/// (at least as many records; its contents are overwritten) as the second buffer. Key is a
/// callable: std::uint64_t(const Record&).
template <typename Record, typename Key>
void radix_sort_by_key(std::span<Record> records, std::span<Record> scratch, unsigned key_bits, Key key) {
  if (records.size() < 2) return;
  radix_detail::hybrid(records.data(), scratch.data(), records.size(), key_bits, key);
}

/// The same with a second buffer allocated here.
template <typename Record, typename Key>
void radix_sort_by_key(std::vector<Record>& records, unsigned key_bits, Key key) {
  if (records.size() < 2) return;
  std::vector<Record> scratch(records.size());
  radix_sort_by_key(std::span<Record>(records), std::span<Record>(scratch), key_bits, key);
}

}  // namespace edgestream
