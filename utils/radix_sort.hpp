// Radix sort of records by an unsigned 64-bit key, only over the key bits that can be non-zero
// (`key_bits`): sorting edges by a 40-bit Hilbert position in linear time instead of an O(n log n)
// comparison sort. Cache-friendly hybrid: large ranges are split by their top key bits (one
// histogram + one scatter pass over memory) into buckets of about 8 Ki records (at most 2048
// buckets: 11 bits), recursively, until a bucket fits in the cache (<= 64 Ki records) or 16 bits are
// left; such a bucket is finished by an LSD radix sort that stays in cache and skips digits where
// all keys agree: 8 bits per pass below 256 records, from there 10-12 bits when that saves a pass
// (17-30 key bits: 2 or 3 passes instead of 3 or 4; 29-bit keys, the grid's on rmat22, 4.1 instead
// of 6.0 ns per record in ranges of 16 Ki, 4.9 instead of 6.4 at 300 Ki on an Intel VM; on an AMD
// EPYC VM 7.5-9 instead of 15-17 ns in ranges of 512 to 3000, 15 instead of 18 at 256, no gain at
// 128: docs/performance.md, session 27). (Splitting a range of
// 300 Ki records 2048 ways left buckets of ~150 records, whose LSD passes cost more in histograms
// than in moves: 11-12 ns per record, 6 ns with 64 buckets; benchmarks/radix_sort_bench.) Stable:
// records with equal keys keep their order (both phases are stable counting sorts). Also sorts the
// on-disk grid's buckets (core/grid_codec.cpp).
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
constexpr std::size_t kWideDigitRecords = std::size_t{1} << 8;  // LSD in wider digits than bytes from this many records

// LSD over bits [0, bits) of data[0..n), scratch other[0..n), in passes of kDigit bits. Returns
// where the result ended. The counts of every digit come from one pass over the keys; then one
// scatter pass per digit (skipped where all keys agree).
template <unsigned kDigit, typename Record, typename Key>
Record* lsd_digits(Record* data, Record* other, std::size_t n, unsigned bits, const Key& key) {
  constexpr std::size_t kRadix = std::size_t{1} << kDigit;
  constexpr std::uint64_t kMask = kRadix - 1;
  constexpr unsigned kMaxPasses = (64 + kDigit - 1) / kDigit;
  const unsigned passes = (bits + kDigit - 1) / kDigit;
  std::vector<std::size_t> storage;  // wide digits: on the heap (passes * kRadix counters)
  std::array<std::size_t, kDigit <= 8 ? kMaxPasses * kRadix : 1> local;
  std::size_t* count = local.data();
  if constexpr (kDigit > 8) {
    storage.assign(std::size_t{passes} * kRadix, 0);
    count = storage.data();
  } else {
    std::fill(count, count + std::size_t{passes} * kRadix, 0);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = key(data[i]);
    for (unsigned p = 0; p < passes; ++p) ++count[p * kRadix + ((k >> (kDigit * p)) & kMask)];
  }
  const std::uint64_t k0 = key(data[0]);
  for (unsigned p = 0; p < passes; ++p) {
    const unsigned shift = kDigit * p;
    std::size_t* next = count + std::size_t{p} * kRadix;
    if (next[(k0 >> shift) & kMask] == n) continue;  // all equal in this digit
    std::size_t sum = 0;
    for (std::size_t d = 0; d < kRadix; ++d) {
      const std::size_t m = next[d];
      next[d] = sum;
      sum += m;
    }
    for (std::size_t i = 0; i < n; ++i) other[next[(key(data[i]) >> shift) & kMask]++] = data[i];
    std::swap(data, other);
  }
  return data;
}

// LSD over bits [0, bits): bytes for small ranges, wider digits (fewer passes over the records)
// when the range is large enough to pay for their counters.
template <typename Record, typename Key>
Record* lsd(Record* data, Record* other, std::size_t n, unsigned bits, const Key& key) {
  if (n >= kWideDigitRecords && bits > 16) {
    if (bits <= 22) return lsd_digits<11>(data, other, n, bits, key);  // 2 passes instead of 3
    if (bits <= 24) return lsd_digits<12>(data, other, n, bits, key);  // 2 instead of 3
    if (bits <= 30) return lsd_digits<10>(data, other, n, bits, key);  // 3 instead of 4
    // (31-32 bits in 3 passes of 11: a 2048-way scatter, slower than 4 byte passes at 64 Ki records.)
  }
  return lsd_digits<8>(data, other, n, bits, key);
}

// The MSD split: the digit of `digit` bits below bit `shift` of from[0..n)'s keys; the records go
// to `to` bucket by bucket (stable). Returns the buckets' bounds in `to` (2^digit + 1 of them).
template <typename Record, typename Key>
std::vector<std::size_t> msd_split(const Record* from, Record* to, std::size_t n, unsigned shift, unsigned digit, const Key& key) {
  const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
  std::vector<std::size_t> start((std::size_t{1} << digit) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++start[((key(from[i]) >> shift) & mask) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<std::size_t> cursor(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) to[cursor[(key(from[i]) >> shift) & mask]++] = from[i];
  return start;
}

// The MSD digit for a range of n records with `bits` key bits left: as many bits as split it into
// buckets of about kMsdBucketRecords (at most kMsdBits).
inline unsigned msd_digit(std::size_t n, unsigned bits) {
  const unsigned wanted = std::min<unsigned>(kMsdBits, static_cast<unsigned>(std::bit_width(n / kMsdBucketRecords)));
  return bits < wanted ? bits : wanted;
}

// Sorts data[0..n) by key bits [0, bits), the other buffer other[0..n) the scratch; the result
// ends in data, or in other when `into_other` (data is then the scratch). A range whose passes end
// where the result goes needs no copy: an LSD sort with an even (in place) or odd (into the other)
// number of passes; an MSD split leaves its buckets in `other`, each then sorted into wherever the
// result goes (back into data: into its own other buffer).
template <typename Record, typename Key>
void hybrid(Record* data, Record* other, std::size_t n, unsigned bits, const Key& key, bool into_other) {
  Record* const target = into_other ? other : data;
  if (n < 2 || bits == 0) {
    if (into_other) std::copy(data, data + n, other);
    return;
  }
  if (n <= kCacheRecords || bits <= 16) {
    const Record* result = lsd(data, other, n, bits, key);
    if (result != target) std::copy(result, result + n, target);
    return;
  }
  const unsigned digit = msd_digit(n, bits);
  const std::vector<std::size_t> start = msd_split(data, other, n, bits - digit, digit, key);
  for (std::size_t b = 0; b + 1 < start.size(); ++b) {
    if (start[b + 1] > start[b]) hybrid(other + start[b], data + start[b], start[b + 1] - start[b], bits - digit, key, !into_other);
  }
}

}  // namespace radix_detail

/// Sorts `records` by key(record) (which must be < 2^key_bits, key_bits <= 64), using `scratch`
/// (at least as many records; its contents are overwritten) as the second buffer. Key is a
/// callable: std::uint64_t(const Record&).
template <typename Record, typename Key>
void radix_sort_by_key(std::span<Record> records, std::span<Record> scratch, unsigned key_bits, Key key) {
  if (records.size() < 2) return;
  radix_detail::hybrid(records.data(), scratch.data(), records.size(), key_bits, key, false);
}

/// Sorts the records of `from` by key(record) into `to` (as many records); `from` is the scratch
/// (its contents are overwritten). For a caller that builds the records to sort anyway: built
/// into the scratch, they take one copy fewer than sorted in place (none for 25-30 key bits in a
/// range that fits the cache).
template <typename Record, typename Key>
void radix_sort_by_key_into(std::span<Record> from, std::span<Record> to, unsigned key_bits, Key key) {
  radix_detail::hybrid(from.data(), to.data(), from.size(), key_bits, key, true);
}

/// The same with a second buffer allocated here.
template <typename Record, typename Key>
void radix_sort_by_key(std::vector<Record>& records, unsigned key_bits, Key key) {
  if (records.size() < 2) return;
  std::vector<Record> scratch(records.size());
  radix_sort_by_key(std::span<Record>(records), std::span<Record>(scratch), key_bits, key);
}

}  // namespace edgestream
