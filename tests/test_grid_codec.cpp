// [grid_codec]: the on-disk grid's compression (compress/elias_fano.hpp, core/grid_codec.hpp).
// Elias-Fano decodes every non-decreasing sequence to itself in the fewest bytes of any low-bit
// width, and damaged or short bytes never make it read outside them. Grid keys and records are
// inverse and order records by destination group, source, destination. A slab encoded on any
// number of threads gives the same bytes; each piece decodes to its portion's records sorted by key
// (weights riding along), no piece is larger than its records, and damaged pieces decode without
// a crash. Weights that are fixed-point numbers (GridWeights) take 1-3 bytes and come back bit for
// bit; any other float keeps its 4. The AVX2 decoder writes the portable decoder's records and
// result for every low-bit width, length and key layout, damaged or not. (The engine with both
// codecs, damaged grid files: test_edge_grid.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <tuple>
#include <vector>

#include "compress/elias_fano.hpp"
#include "core/grid_codec.hpp"
#include "core/grid_decode_avx2.hpp"
#include "core/thread_pool.hpp"

namespace edgestream::test {
namespace {

std::vector<std::uint32_t> decode_all(std::span<const std::byte> bytes, std::uint64_t n, unsigned low_bits, std::uint32_t first,
                                      bool* complete = nullptr) {
  std::vector<std::uint32_t> values(n + 8, 0xDEADBEEF);
  const bool ok = elias_fano_decode(bytes, n, low_bits, first, values.data());
  if (complete != nullptr) *complete = ok;
  values.resize(n);
  return values;
}

// n sorted values of one of several shapes.
std::vector<std::uint32_t> sequence(std::mt19937_64& rng, std::size_t n, int shape) {
  std::vector<std::uint32_t> v(n);
  switch (shape) {
    case 0: std::fill(v.begin(), v.end(), static_cast<std::uint32_t>(rng())); break;  // all equal
    case 1: std::iota(v.begin(), v.end(), static_cast<std::uint32_t>(rng() % 1000)); break;  // consecutive
    case 2: for (auto& x : v) x = static_cast<std::uint32_t>(rng());  break;  // the whole 32-bit range
    case 3: for (auto& x : v) x = static_cast<std::uint32_t>(rng() % 5); break;  // mostly duplicates
    case 4: for (auto& x : v) x = static_cast<std::uint32_t>(rng() % (std::uint64_t{1} << (rng() % 31))); break;
    default: {  // clustered, as RMAT buckets are: dense runs and big gaps
      std::uint32_t at = static_cast<std::uint32_t>(rng() % 100);
      for (auto& x : v) {
        at += rng() % 8 == 0 ? static_cast<std::uint32_t>(rng() % 100000) : static_cast<std::uint32_t>(rng() % 3);
        x = at;
      }
    }
  }
  std::sort(v.begin(), v.end());
  if (shape == 2 && n >= 2) {  // the extremes
    v.front() = 0;
    v.back() = UINT32_MAX;
  }
  return v;
}

TEST_CASE("Elias-Fano: every non-decreasing sequence decodes to itself, in the fewest bytes", "[grid_codec]") {
  std::mt19937_64 rng(11);
  for (const std::size_t n : {1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100, 1000, 4096}) {
    for (int shape = 0; shape < 6; ++shape) {
      INFO("n " << n << " shape " << shape);
      const std::vector<std::uint32_t> v = sequence(rng, n, shape);
      const std::uint32_t range = v.back() - v.front();
      const EliasFanoLayout layout = elias_fano_layout(n, range);
      for (unsigned bits = 0; bits < 32; ++bits) CHECK(layout.bytes <= elias_fano_layout(n, range, bits).bytes);
      std::vector<std::byte> bytes(layout.bytes, std::byte{0xFF});  // the encoder clears what it uses
      elias_fano_encode(v, layout, bytes);
      bool complete = false;
      CHECK(decode_all(bytes, n, layout.low_bits, v.front(), &complete) == v);
      CHECK(complete);
      // Other widths decode too (those whose high part stays small: width 0 over a 32-bit range
      // would be half a gigabyte of unary bits).
      for (const unsigned bits : {0U, layout.low_bits / 2, 31U}) {
        const EliasFanoLayout other = elias_fano_layout(n, range, bits);
        if (other.bytes > (std::size_t{1} << 20)) continue;
        std::vector<std::byte> other_bytes(other.bytes);
        elias_fano_encode(v, other, other_bytes);
        CHECK(decode_all(other_bytes, n, bits, v.front()) == v);
      }
    }
  }
  // About 2 + log2(range / n) bits per value: 4096 values over 2^28 take 2.25 bytes each.
  std::vector<std::uint32_t> v(4096);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i << 16);
  CHECK(elias_fano_layout(v.size(), v.back()).bytes == 4096 * 18 / 8);
}

TEST_CASE("Elias-Fano: damaged or short bytes give n values and never a read outside them", "[grid_codec]") {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng() % 600;
    const std::vector<std::uint32_t> v = sequence(rng, n, static_cast<int>(rng() % 6));
    const EliasFanoLayout layout = elias_fano_layout(n, v.back() - v.front());
    std::vector<std::byte> bytes(layout.bytes);
    elias_fano_encode(v, layout, bytes);
    INFO("trial " << trial << " n " << n << " bytes " << bytes.size());
    // Shorter than the encoding: a copy of exactly that many bytes (ASan checks every read).
    const std::size_t cut = rng() % bytes.size();
    const std::vector<std::byte> shorter(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    bool complete = true;
    CHECK(decode_all(shorter, n, layout.low_bits, v.front(), &complete).size() == n);
    if (cut < layout.low_bytes || n > 8 * (cut - layout.low_bytes)) CHECK_FALSE(complete);  // the set bits ran out
    // Flipped bytes, and a wrong width.
    std::vector<std::byte> damaged = bytes;
    for (int f = 0; f < 3; ++f) damaged[rng() % damaged.size()] ^= static_cast<std::byte>(1 + rng() % 255);
    CHECK(decode_all(damaged, n, layout.low_bits, v.front()).size() == n);
    CHECK(decode_all(bytes, n, static_cast<unsigned>(rng() % 40), v.front()).size() == n);
  }
  bool complete = true;
  CHECK(decode_all({}, 5, 3, 7, &complete) == std::vector<std::uint32_t>(5, 7));
  CHECK_FALSE(complete);
}

// Piece `p` (count records of kRecordBytes) decoded from `stored` by `decoder`: the records, and
// decode_grid_piece's result as a last byte. The buffer starts as the same pattern for both.
template <std::size_t kRecordBytes>
std::vector<std::byte> decode_with(const GridPiece& p, std::uint64_t count, std::span<const std::byte> stored, GridKeys keys,
                                   GridDecoder decoder) {
  std::vector<std::byte> out(count * kRecordBytes + 32);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::byte>(i * 37 + 11);
  const bool complete = decode_grid_piece<kRecordBytes>(p, count, stored, keys, out.data(), decoder);
  out.resize(count * kRecordBytes);
  out.push_back(static_cast<std::byte>(complete ? 1 : 0));
  return out;
}

TEST_CASE("grid pieces: the AVX2 decoder writes the portable decoder's records, damaged or not", "[grid_codec]") {
  if (!grid_decode_avx2_supported()) {
    WARN("this CPU has no AVX2: decode_grid_piece runs the portable decoder only, compared with itself here");
  }
  std::mt19937_64 rng(16);
  // Key layouts: by destination group (fine 6), by source (one group), and a group shift of 32 or
  // more (GridKeys::local's 64-bit shift: the group part is 0).
  const GridKeys layouts[] = {GridKeys::of(16, 2), GridKeys::of(16, 6), GridKeys::of(12, 0, true), GridKeys::of(20, 4, true),
                              GridKeys::of(24, 0, true)};
  std::uint64_t wide_pieces = 0;
  constexpr int kTrials = 1000;
  for (int trial = 0; trial < kTrials; ++trial) {
    const GridKeys keys = layouts[rng() % std::size(layouts)];
    // Lengths around the eight-key groups and the 64-key words of the high part, and whole pieces.
    const std::uint64_t count = trial % 7 == 0 ? kGridPieceRecords : 1 + rng() % (trial % 3 == 0 ? 80 : 700);
    const std::vector<std::uint32_t> v = sequence(rng, count, static_cast<int>(rng() % 6));
    const std::uint32_t range = v.back() - v.front();
    // The fewest bytes' width, or a wider one (up to 31: the AVX2 path's 1 .. 25 and beyond) or up to
    // two narrower (a narrower width doubles the high part each time: 2^32 bits at width 0).
    const EliasFanoLayout fewest = elias_fano_layout(count, range);
    const unsigned narrowest = fewest.low_bits >= 2 ? fewest.low_bits - 2 : 0;
    const EliasFanoLayout layout =
        trial % 2 == 0 ? fewest : elias_fano_layout(count, range, narrowest + static_cast<unsigned>(rng() % (32 - narrowest)));
    GridPiece p;
    p.base = v.front();
    p.low_bits = static_cast<std::uint8_t>(layout.low_bits);
    // The bucket's fixed destination bits: random bits above the key's dst_bits.
    p.dst_high = static_cast<std::uint16_t>(rng() & (((std::uint32_t{1} << (keys.shift - keys.dst_bits)) - 1) << keys.dst_bits));
    p.encoded = true;
    p.weight_bytes = static_cast<std::uint8_t>(1 + rng() % 4);
    std::vector<std::byte> stored(layout.bytes);
    elias_fano_encode(v, layout, stored);
    const std::size_t key_bytes = stored.size();
    for (std::uint64_t i = 0; i < count * 4; ++i) stored.push_back(static_cast<std::byte>(rng()));  // weights (8-byte records)
    INFO("trial " << trial << " count " << count << " low bits " << layout.low_bits << " shift " << keys.shift << " fine "
                  << keys.fine);
    wide_pieces += layout.low_bits >= 1 && layout.low_bits <= kGridDecodeAvx2MaxLowBits ? 1 : 0;
    // The piece's bytes as 4-byte records (the keys) and as 8-byte ones (then the weights), each a
    // copy of exactly that size (ASan sees any read past it).
    const auto both_agree = [&](std::span<const std::byte> bytes) {
      const std::vector<std::byte> four(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), key_bytes)));
      CHECK(decode_with<4>(p, count, four, keys, GridDecoder::kFastest) == decode_with<4>(p, count, four, keys, GridDecoder::kPortable));
      const std::vector<std::byte> eight(
          bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), key_bytes + count * p.weight_bytes)));
      CHECK(decode_with<8>(p, count, eight, keys, GridDecoder::kFastest) == decode_with<8>(p, count, eight, keys, GridDecoder::kPortable));
    };
    both_agree(stored);
    if (trial % 2 == 0) {
      // The records are the keys' (the intact piece).
      const std::vector<std::byte> records = decode_with<4>(p, count, std::span(stored).first(key_bytes), keys, GridDecoder::kFastest);
      bool same = records.back() == std::byte{1};
      for (std::uint64_t i = 0; i < count && same; ++i) {
        std::uint32_t local = 0;
        std::memcpy(&local, records.data() + i * 4, 4);
        same = local == keys.local(v[i], p.dst_high);
      }
      CHECK(same);
    }
    // Damaged: flipped bytes (the high part's set bits too many or too few), cut short, another width.
    std::vector<std::byte> damaged = stored;
    for (int f = 0; f < 3; ++f) damaged[rng() % key_bytes] ^= static_cast<std::byte>(1 + rng() % 255);
    both_agree(damaged);
    const std::vector<std::byte> shorter(stored.begin(), stored.begin() + static_cast<std::ptrdiff_t>(rng() % (key_bytes + 1)));
    both_agree(shorter);
    p.low_bits = static_cast<std::uint8_t>(rng() % 40);
    both_agree(stored);
  }
  CHECK(wide_pieces * 2 > kTrials);  // most intact pieces' widths are ones the AVX2 decoder takes
}

TEST_CASE("grid keys: key and local are inverse; keys order by destination group (64 or the whole bucket), source, destination", "[grid_codec]") {
  std::mt19937_64 rng(13);
  for (const unsigned shift : {6U, 9U, 16U}) {
    for (const unsigned sub_bits : {0U, 1U, 3U}) {
      for (const bool by_source : {false, true}) {
        INFO("shift " << shift << " sub_bits " << sub_bits << " by source " << by_source);
        const GridKeys keys = GridKeys::of(shift, sub_bits, by_source);
        // By source: one destination group (the whole bucket); else groups of 64 destinations.
        CHECK(keys.fine == (by_source ? shift - sub_bits : std::min(6U, shift - sub_bits)));
        const std::uint32_t mask = (std::uint32_t{1} << shift) - 1;
        const std::uint32_t sub = static_cast<std::uint32_t>(rng() % (1U << sub_bits));
        const std::uint32_t dst_high = sub << keys.dst_bits;
        struct Record {
          std::uint32_t src, dst, local, key;
        };
        std::vector<Record> records;
        for (int i = 0; i < 2000; ++i) {
          const std::uint32_t src = static_cast<std::uint32_t>(rng()) & mask;
          const std::uint32_t dst = dst_high | (static_cast<std::uint32_t>(rng()) & keys.dst_mask());
          const std::uint32_t local = src | (dst << 16);
          const std::uint32_t key = keys.key(local);
          CHECK(key < (std::uint64_t{1} << keys.key_bits()));
          CHECK(keys.local(key, dst_high) == local);
          records.push_back({src, dst, local, key});
        }
        auto order = [&](const Record& r) {
          const std::uint32_t d = r.dst & keys.dst_mask();
          return std::tuple(d >> keys.fine, r.src, d & keys.fine_mask());
        };
        for (std::size_t i = 1; i < records.size(); ++i) {
          const Record& x = records[i - 1];
          const Record& y = records[i];
          CHECK((x.key < y.key) == (order(x) < order(y)));
          if (by_source && x.src != y.src) CHECK((x.key < y.key) == (x.src < y.src));
        }
      }
    }
  }
}

std::uint32_t float_bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// GridWeights::of over `weights`, and each weight stored and loaded back.
GridWeights round_trip_weights(const std::vector<float>& weights, bool* exact) {
  const GridWeights form = GridWeights::of(weights.size(), [&](std::uint64_t i) { return float_bits(weights[i]); });
  std::vector<std::byte> stored(weights.size() * form.bytes);
  *exact = true;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (form.bytes == 4) {
      const std::uint32_t bits = float_bits(weights[i]);
      std::memcpy(stored.data() + i * 4, &bits, 4);
    } else {
      const std::uint32_t v = form.value(float_bits(weights[i]));
      if (v >= (std::uint32_t{1} << (8 * form.bytes))) *exact = false;  // would not fit
      GridWeights::store(stored.data() + i * form.bytes, form.bytes, v);
    }
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (GridWeights::load(stored.data() + i * form.bytes, form.bytes, form.scale()) != float_bits(weights[i])) *exact = false;
  }
  // All at once into every other 4-byte word (the decoded records' weights): the same bits, and
  // no read past the weights (`stored` is exactly their size: the sanitizers would see one).
  std::vector<std::byte> records(weights.size() * 8);
  GridWeights::load_all(stored.data(), form.bytes, form.scale(), weights.size(), records.data() + 4, 8);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, records.data() + i * 8 + 4, 4);
    if (bits != float_bits(weights[i])) *exact = false;
  }
  return form;
}

TEST_CASE("grid weights: fixed-point weights take 1-3 bytes and come back bit for bit, other floats 4", "[grid_codec]") {
  std::mt19937_64 rng(21);
  auto check = [&](const std::vector<float>& weights, unsigned bytes, int exponent) {
    bool exact = false;
    const GridWeights form = round_trip_weights(weights, &exact);
    CHECK(exact);
    CHECK(form.bytes == bytes);
    if (bytes < 4) CHECK(form.exponent == exponent);
  };
  // RMAT's weights (utils/graph_generator.cpp): k / 2^24, k < 2^24 (and 0, and the largest).
  std::vector<float> rmat = {0.0F, 0x1.0p-24F, static_cast<float>((1U << 24) - 1) * 0x1.0p-24F};
  for (int i = 0; i < 4000; ++i) rmat.push_back(static_cast<float>(rng() >> 40) * 0x1.0p-24F);
  check(rmat, 3, -24);
  // One and two 3-byte weights: load_all's last weight is read byte by byte.
  check({rmat[2]}, 3, -24);
  check({rmat[2], rmat[1]}, 3, -24);
  // Integers: below 256 one byte, below 65536 two.
  std::vector<float> small, large;
  for (int i = 0; i < 1000; ++i) {
    small.push_back(static_cast<float>(1 + rng() % 255));
    large.push_back(static_cast<float>(rng() % 65536));
  }
  small.push_back(255.0F);
  check(small, 1, 0);
  large.push_back(65535.0F);
  check(large, 2, 0);
  // Multiples of a power of two: halves up to 127.5 (one byte, exponent -1); multiples of 2^20.
  check({0.5F, 127.5F, 3.0F, 64.0F}, 1, -1);
  check({0x1.0p20F, 0x3.0p20F, 0x1.0p27F}, 1, 20);
  // Every weight +0.0: one byte each.
  check(std::vector<float>(10, 0.0F), 1, 0);
  // 25 binary places (1 and 2^-24), negative, -0.0, subnormal, infinite, NaN, and a lowest set bit
  // below 2^-126: 4 bytes, still exact.
  const std::vector<std::vector<float>> raw = {
      {1.0F, 0x1.0p-24F},
      {1.0F, -2.0F},
      {1.0F, -0.0F},
      {1.0F, std::numeric_limits<float>::denorm_min()},
      {std::numeric_limits<float>::infinity()},
      {std::numeric_limits<float>::quiet_NaN(), 1.0F},
      {0x1.8p-126F},
      {1.0F, 0x1.0p-23F, 0.1F},
  };
  for (const std::vector<float>& weights : raw) check(weights, 4, 0);
  // 2^-126 itself is fine (the scale is a normal float); the largest floats too.
  check({0x1.0p-126F, 0x1.0p-120F}, 1, -126);
  check({std::numeric_limits<float>::max()}, 3, 104);
  // Random sets of weights with a random span and exponent: exact whatever form they get.
  for (int trial = 0; trial < 2000; ++trial) {
    const int span = 1 + static_cast<int>(rng() % 26);
    const int low = -130 + static_cast<int>(rng() % 250);
    std::vector<float> weights;
    for (int i = 0; i < 50; ++i) {
      const std::uint64_t v = rng() & ((std::uint64_t{1} << span) - 1);
      weights.push_back(std::ldexp(static_cast<float>(v), low));
    }
    bool exact = false;
    const GridWeights form = round_trip_weights(weights, &exact);
    INFO("span " << span << " low " << low);
    CHECK(exact);
    CHECK(form.bytes >= 1);
    CHECK(form.bytes <= 4);
  }
}

// A slab of compact records for `portions` (their sizes), skewed (hot sources and destinations,
// compressible), with one uniformly random portion; weights (8-byte records) are the record's
// position, so their order after sorting tells the sort is stable.
struct Slab {
  std::vector<std::byte> records;
  std::vector<GridPortion> portions;
};
Slab make_slab(std::mt19937_64& rng, const std::vector<std::uint64_t>& sizes, std::size_t record_bytes, GridKeys keys) {
  Slab slab;
  std::uint64_t at = 0;
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    const auto sub = static_cast<std::uint32_t>(j % (std::uint64_t{1} << (keys.shift - keys.dst_bits)));
    slab.portions.push_back(GridPortion{at, sizes[j], static_cast<std::uint16_t>(sub << keys.dst_bits)});
    for (std::uint64_t i = 0; i < sizes[j]; ++i, ++at) {
      const bool uniform = j + 1 == sizes.size();
      std::uint32_t src = static_cast<std::uint32_t>(rng()) & keys.local_mask();
      std::uint32_t dst = static_cast<std::uint32_t>(rng()) & keys.dst_mask();
      if (!uniform) {
        src %= 1 + static_cast<std::uint32_t>(rng() % 300);
        dst %= 1 + static_cast<std::uint32_t>(rng() % 50);
      }
      const std::uint32_t local = src | ((slab.portions.back().dst_high | dst) << 16);
      const std::size_t offset = slab.records.size();
      slab.records.resize(offset + record_bytes);
      std::memcpy(slab.records.data() + offset, &local, 4);
      if (record_bytes == 8) {
        const auto weight = static_cast<std::uint32_t>(at);
        std::memcpy(slab.records.data() + offset + 4, &weight, 4);
      }
    }
  }
  return slab;
}

// The records of `portion` (record_bytes each) stably sorted by key: what its pieces decode to.
std::vector<std::byte> sorted_by_key(const Slab& slab, const GridPortion& portion, std::size_t record_bytes, GridKeys keys) {
  std::vector<std::uint64_t> order(portion.count);
  std::iota(order.begin(), order.end(), portion.first);
  auto key_at = [&](std::uint64_t i) {
    std::uint32_t local;
    std::memcpy(&local, slab.records.data() + i * record_bytes, 4);
    return keys.key(local);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return key_at(a) < key_at(b); });
  std::vector<std::byte> sorted;
  for (const std::uint64_t i : order) {
    sorted.insert(sorted.end(), slab.records.begin() + static_cast<std::ptrdiff_t>(i * record_bytes),
                  slab.records.begin() + static_cast<std::ptrdiff_t>((i + 1) * record_bytes));
  }
  return sorted;
}

struct Encoded {
  std::vector<std::byte> out;
  std::vector<GridPiece> pieces;
  std::uint64_t used = 0;
};
Encoded encode(Slab slab, std::size_t record_bytes, GridKeys keys, unsigned threads) {
  ThreadPool pool(threads);
  Encoded e;
  e.out.assign(slab.records.size(), std::byte{0xEE});
  e.pieces.push_back(GridPiece{});  // pieces are appended after those already there
  e.used = encode_grid_slab(slab.records, record_bytes, slab.portions, keys, 1000, pool, e.out, e.pieces);
  e.pieces.erase(e.pieces.begin());
  e.out.resize(e.used);
  return e;
}

bool same_pieces(const std::vector<GridPiece>& a, const std::vector<GridPiece>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const GridPiece& x, const GridPiece& y) {
    return x.first == y.first && x.offset == y.offset && x.base == y.base && x.dst_high == y.dst_high &&
           x.low_bits == y.low_bits && x.encoded == y.encoded;
  });
}

template <std::size_t kRecordBytes>
std::vector<std::byte> decode_piece(const Encoded& e, std::size_t p, std::uint64_t slab_records, GridKeys keys, bool* complete) {
  const GridPiece& piece = e.pieces[p];
  const bool last = p + 1 == e.pieces.size();
  const std::uint64_t count = (last ? 1000 + slab_records : e.pieces[p + 1].first) - piece.first;
  const std::uint64_t end = last ? e.used : e.pieces[p + 1].offset;
  // Exactly the piece's bytes, in a buffer of their own (ASan sees any read past them).
  const std::vector<std::byte> stored(e.out.begin() + static_cast<std::ptrdiff_t>(piece.offset),
                                      e.out.begin() + static_cast<std::ptrdiff_t>(end));
  std::vector<std::byte> records(count * kRecordBytes + 32);
  *complete = decode_grid_piece<kRecordBytes>(piece, count, stored, keys, records.data());
  records.resize(count * kRecordBytes);
  return records;
}

TEST_CASE("grid slabs: pieces decode to each portion's records sorted by key, on any number of threads", "[grid_codec]") {
  std::mt19937_64 rng(14);
  const std::vector<std::uint64_t> sizes = {1, 2, 4095, 4096, 4097, 10000, 3, 700, 9000};
  for (const std::size_t record_bytes : {4, 8}) {
    for (const unsigned sub_bits : {0U, 3U}) {
      INFO(record_bytes << "-byte records, sub_bits " << sub_bits);
      const GridKeys keys = GridKeys::of(16, sub_bits);
      const Slab slab = make_slab(rng, sizes, record_bytes, keys);
      const std::uint64_t slab_records = slab.records.size() / record_bytes;
      const Encoded e = encode(slab, record_bytes, keys, 2);
      // Any thread count: the same bytes and pieces.
      for (const unsigned threads : {1U, 3U}) {
        const Encoded other = encode(slab, record_bytes, keys, threads);
        CHECK(other.out == e.out);
        CHECK(same_pieces(other.pieces, e.pieces));
      }
      CHECK(e.used <= slab.records.size());
      // The pieces: in order, within their portion, at most kGridPieceRecords each.
      std::uint64_t encoded = 0;
      std::size_t p = 0;
      for (const GridPortion& portion : slab.portions) {
        // Sorted by key, stably (equal keys keep their order: the weights are positions).
        const std::vector<std::byte> sorted = sorted_by_key(slab, portion, record_bytes, keys);
        std::vector<std::byte> decoded;
        for (std::uint64_t in_portion = 0; in_portion < portion.count; ++p) {
          REQUIRE(p < e.pieces.size());
          const GridPiece& piece = e.pieces[p];
          CHECK(piece.first == 1000 + portion.first + in_portion);
          CHECK(piece.dst_high == portion.dst_high);
          if (p > 0) CHECK(piece.offset >= e.pieces[p - 1].offset);
          bool complete = false;
          const std::vector<std::byte> records =
              record_bytes == 4 ? decode_piece<4>(e, p, slab_records, keys, &complete) : decode_piece<8>(e, p, slab_records, keys, &complete);
          CHECK(complete);
          CHECK(records.size() / record_bytes <= kGridPieceRecords);
          decoded.insert(decoded.end(), records.begin(), records.end());
          in_portion += records.size() / record_bytes;
          encoded += piece.encoded ? 1 : 0;
        }
        CHECK(decoded == sorted);
      }
      CHECK(p == e.pieces.size());
      CHECK(encoded > 0);
      // The skewed portions compress (a 1-record piece cannot; the uniform one hardly).
      CHECK(e.used * 10 < slab.records.size() * 8);
    }
  }
}

TEST_CASE("grid slabs: fixed-point weights are stored narrower and decode to the records sorted by key", "[grid_codec]") {
  std::mt19937_64 rng(22);
  const GridKeys keys = GridKeys::of(16, 2);
  const std::vector<std::uint64_t> sizes = {5000, 4096, 9000, 700, 4097, 3000};
  Slab slab = make_slab(rng, sizes, 8, keys);
  // Portion j: RMAT's weights (3 bytes), integers below 256 (1 byte), or RMAT's with one negative
  // weight (its piece 4 bytes, the others 3).
  for (std::size_t j = 0; j < slab.portions.size(); ++j) {
    const GridPortion& portion = slab.portions[j];
    for (std::uint64_t i = 0; i < portion.count; ++i) {
      float weight = j % 3 == 1 ? static_cast<float>(1 + rng() % 255) : static_cast<float>(rng() >> 40) * 0x1.0p-24F;
      if (j % 3 == 2 && i == portion.count / 3) weight = -0.25F;
      std::memcpy(slab.records.data() + (portion.first + i) * 8 + 4, &weight, 4);
    }
  }
  const std::uint64_t slab_records = slab.records.size() / 8;
  const Encoded e = encode(slab, 8, keys, 2);
  // The keys take about 2 bytes here, so 5-6 of 8 bytes per record with 3-byte weights.
  CHECK(e.used * 4 < slab.records.size() * 3);
  std::size_t p = 0;
  for (std::size_t j = 0; j < slab.portions.size(); ++j) {
    const GridPortion& portion = slab.portions[j];
    INFO("portion " << j);
    const std::vector<std::byte> sorted = sorted_by_key(slab, portion, 8, keys);
    std::vector<std::byte> decoded;
    for (std::uint64_t in_portion = 0; in_portion < portion.count; ++p) {
      REQUIRE(p < e.pieces.size());
      const GridPiece& piece = e.pieces[p];
      bool complete = false;
      const std::vector<std::byte> records = decode_piece<8>(e, p, slab_records, keys, &complete);
      CHECK(complete);
      CHECK(piece.encoded);
      bool negative = false;  // the piece with the negative weight
      for (std::size_t i = 0; i < records.size(); i += 8) negative = negative || std::to_integer<unsigned>(records[i + 7]) >= 0x80;
      CHECK(piece.weight_bytes == (negative ? 4U : j % 3 == 1 ? 1U : 3U));
      // (In a piece of a few records all could be even: a higher exponent.)
      if (!negative && records.size() >= std::size_t{64} * 8) CHECK(piece.weight_exponent == (j % 3 == 1 ? 0 : -24));
      decoded.insert(decoded.end(), records.begin(), records.end());
      in_portion += records.size() / 8;
    }
    CHECK(decoded == sorted);
  }
  CHECK(p == e.pieces.size());
  // A piece whose weight width is not 1-4 (a damaged description) decodes to zeros, not past its bytes.
  GridPiece bad = e.pieces.front();
  for (const std::uint8_t width : {0, 5, 255}) {
    bad.weight_bytes = width;
    Encoded damaged = e;
    damaged.pieces.front() = bad;
    bool complete = true;
    const std::vector<std::byte> records = decode_piece<8>(damaged, 0, slab_records, keys, &complete);
    CHECK_FALSE(complete);
    CHECK(std::all_of(records.begin(), records.end(), [](std::byte b) { return b == std::byte{0}; }));
  }
}

TEST_CASE("grid slabs: a damaged piece decodes to records without a crash", "[grid_codec]") {
  std::mt19937_64 rng(15);
  for (const std::size_t record_bytes : {4, 8}) {
    const GridKeys keys = GridKeys::of(16, 2);
    const Slab slab = make_slab(rng, {5000, 300, 4096}, record_bytes, keys);
    Encoded e = encode(slab, record_bytes, keys, 2);
    const std::uint64_t slab_records = slab.records.size() / record_bytes;
    for (int trial = 0; trial < 200; ++trial) {
      Encoded damaged = e;
      for (int f = 0; f < 4; ++f) damaged.out[rng() % damaged.out.size()] ^= static_cast<std::byte>(1 + rng() % 255);
      for (std::size_t p = 0; p < damaged.pieces.size(); ++p) {
        bool complete = false;
        const std::vector<std::byte> records = record_bytes == 4 ? decode_piece<4>(damaged, p, slab_records, keys, &complete)
                                                                 : decode_piece<8>(damaged, p, slab_records, keys, &complete);
        CHECK(records.size() % record_bytes == 0);
      }
    }
  }
}

}  // namespace
}  // namespace edgestream::test
