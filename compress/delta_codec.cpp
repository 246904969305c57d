// DeltaCodec (compress/delta_codec.hpp): zigzag differences bit-packed per word and block.
#include "compress/delta_codec.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#include "compress/delta_decode_avx2.hpp"
#include "compress/little_endian.hpp"

namespace edgestream {
namespace {

constexpr std::size_t kMaxWords = 4;

std::uint32_t zigzag(std::uint32_t difference) {
  return (difference << 1) ^ static_cast<std::uint32_t>(static_cast<std::int32_t>(difference) >> 31);
}
std::uint32_t unzigzag(std::uint32_t z) { return (z >> 1) ^ (0U - (z & 1U)); }

std::size_t packed_bytes(std::size_t count, unsigned width) { return (count * width + 7) / 8; }

// Both directions work in groups of 8 values, which fill exactly kWidth bytes: with the width a
// template constant, every value's byte offset and shift within its group is one too, so a group
// compiles to fixed loads, shifts and stores (the loops with a running bit position and a variable
// shift took ~2x the instructions: rmat24 bfs at 96M spent ~21% of its CPU in this codec).

// Decodes `count` differences packed at kWidth bits from `in` (which has at least
// packed_bytes(count, kWidth) + 8 bytes: every 8-byte load stays inside) into every kStride-th
// byte of `to` (one 32-bit word of each record), running on from `prev`; returns the last word.
template <unsigned kWidth, std::size_t kStride>
std::uint32_t unpack(const std::byte* in, std::size_t count, std::uint32_t prev, std::byte* to) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << kWidth) - 1;
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8, in += kWidth, to += 8 * kStride) {
    [&]<std::size_t... k>(std::index_sequence<k...>) {
      ((prev += unzigzag(static_cast<std::uint32_t>((load_le64(in + k * kWidth / 8) >> (k * kWidth % 8)) & kMask)),
        store_le32(to + k * kStride, prev)),
       ...);
    }(std::make_index_sequence<8>{});
  }
  for (std::size_t bit = 0; i < count; ++i, bit += kWidth, to += kStride) {  // the block's last < 8
    prev += unzigzag(static_cast<std::uint32_t>((load_le64(in + bit / 8) >> (bit % 8)) & kMask));
    store_le32(to, prev);
  }
  return prev;
}

// Value k of a group, of kWidth bits, into the group's bits (kWidth bytes: at most four 64-bit words).
template <unsigned kWidth, std::size_t k>
void put_value(std::uint64_t* words, std::uint32_t value) {
  constexpr std::size_t kBit = k * kWidth;
  constexpr unsigned kShift = kBit % 64;
  words[kBit / 64] |= std::uint64_t{value} << kShift;
  if constexpr (kShift + kWidth > 64) words[kBit / 64 + 1] |= std::uint64_t{value} >> (64 - kShift);
}

// Packs `count` values of at most kWidth bits at `out`, least significant bit first; returns the
// end of the packed bytes (packed_bytes(count, kWidth) of them).
template <unsigned kWidth>
std::byte* pack(const std::uint32_t* values, std::size_t count, std::byte* out) {
  std::size_t i = 0;
  if constexpr (kWidth > 0) {
    for (; i + 8 <= count; i += 8, out += kWidth) {
      std::uint64_t words[4] = {};
      [&]<std::size_t... k>(std::index_sequence<k...>) { (put_value<kWidth, k>(words, values[i + k]), ...); }(std::make_index_sequence<8>{});
      std::byte bytes[32];
      for (std::size_t w = 0; w < 4; ++w) store_le64(bytes + 8 * w, words[w]);
      std::memcpy(out, bytes, kWidth);
    }
  }
  std::uint64_t acc = 0;  // the block's last < 8 values: bits not yet stored, from the lowest
  unsigned held = 0;
  for (; i < count; ++i) {
    acc |= std::uint64_t{values[i]} << held;
    held += kWidth;
    while (held >= 8) {
      *out++ = static_cast<std::byte>(acc);
      acc >>= 8;
      held -= 8;
    }
  }
  if (held > 0) *out++ = static_cast<std::byte>(acc);
  return out;
}

using Unpack = std::uint32_t (*)(const std::byte*, std::size_t, std::uint32_t, std::byte*);
using Pack = std::byte* (*)(const std::uint32_t*, std::size_t, std::byte*);
template <std::size_t kStride, std::size_t... kWidths>
constexpr std::array<Unpack, sizeof...(kWidths)> unpackers(std::index_sequence<kWidths...>) {
  return {&unpack<static_cast<unsigned>(kWidths), kStride>...};
}
template <std::size_t... kWidths>
constexpr std::array<Pack, sizeof...(kWidths)> packers(std::index_sequence<kWidths...>) {
  return {&pack<static_cast<unsigned>(kWidths)>...};
}
// kUnpack[W - 1][width]: the decoder of one word of records of W words.
constexpr std::array<std::array<Unpack, 33>, kMaxWords> kUnpack = {
    unpackers<4>(std::make_index_sequence<33>{}), unpackers<8>(std::make_index_sequence<33>{}),
    unpackers<12>(std::make_index_sequence<33>{}), unpackers<16>(std::make_index_sequence<33>{})};
constexpr std::array<Pack, 33> kPack = packers(std::make_index_sequence<33>{});

// One block's zigzag differences of word j of records of kWords words, from `previous`; returns
// the OR of them (its bit width is the block's width of that word).
template <std::size_t kWords>
std::uint32_t differences(const std::byte* records, std::size_t count, std::size_t j, std::uint32_t& previous, std::uint32_t* z) {
  if (count == 0) return 0;
  constexpr std::size_t kRecord = 4 * kWords;
  const std::byte* at = records + 4 * j;
  std::uint32_t any = z[0] = zigzag(load_le32(at) - previous);
  if constexpr (kWords == 3) {
    // (The form below, vectorized for records of 3 words, is 2.8x slower than this one.)
    std::uint32_t prev = load_le32(at);
    for (std::size_t i = 1; i < count; ++i) {
      const std::uint32_t v = load_le32(at + i * kRecord);
      z[i] = zigzag(v - prev);
      any |= z[i];
      prev = v;
    }
  } else {
    // Each difference from two loads, not from a value carried over from the step before: no
    // dependence between steps, so the compiler vectorizes the loop (records of 2 words: 2x faster).
    for (std::size_t i = 1; i < count; ++i) {
      z[i] = zigzag(load_le32(at + i * kRecord) - load_le32(at + (i - 1) * kRecord));
      any |= z[i];
    }
  }
  previous = load_le32(at + (count - 1) * kRecord);
  return any;
}
using Differences = std::uint32_t (*)(const std::byte*, std::size_t, std::size_t, std::uint32_t&, std::uint32_t*);
constexpr std::array<Differences, kMaxWords> kDifferences = {&differences<1>, &differences<2>, &differences<3>, &differences<4>};

}  // namespace

std::size_t DeltaCodec::max_compressed_length(std::size_t raw_length) const {
  // The W byte, W width bytes per block, and never more than 32 bits per word.
  const std::size_t records = raw_length / (4 * words_);
  return 1 + (records + kBlockRecords - 1) / kBlockRecords * words_ + raw_length;
}

Expected<std::size_t> DeltaCodec::compress(std::span<const std::byte> raw, std::span<std::byte> out) const {
  if (words_ == 0 || words_ > kMaxWords) return internal_error("delta: records of " + std::to_string(4 * words_) + " bytes");
  if (out.size() < max_compressed_length(raw.size())) return internal_error("delta: output buffer too small");
  const std::size_t W = words_;
  const std::size_t record = 4 * W;
  const std::size_t records = raw.size() / record;
  std::byte* o = out.data();
  *o++ = static_cast<std::byte>(W);
  std::uint32_t previous[kMaxWords] = {};
  std::uint32_t z[kBlockRecords];
  const Differences differences_of = kDifferences[W - 1];
  for (std::size_t first = 0; first < records; first += kBlockRecords) {
    const std::size_t count = std::min(kBlockRecords, records - first);
    for (std::size_t j = 0; j < W; ++j) {
      const auto width = static_cast<unsigned>(std::bit_width(differences_of(raw.data() + first * record, count, j, previous[j], z)));
      *o++ = static_cast<std::byte>(width);
      o = kPack[width](z, count, o);
    }
  }
  const std::size_t tail = raw.size() - records * record;
  if (tail > 0) std::memcpy(o, raw.data() + records * record, tail);
  o += tail;
  return static_cast<std::size_t>(o - out.data());
}

Status DeltaCodec::decompress(std::span<const std::byte> stored, std::span<std::byte> out) const {
  if (stored.empty()) return corruption("delta chunk is empty (no record size)");
  const std::size_t W = std::to_integer<std::size_t>(stored[0]);
  if (W == 0 || W > kMaxWords) return corruption("delta chunk names records of " + std::to_string(W) + " words (expected 1-4)");
  const std::size_t record = 4 * W;
  const std::size_t records = out.size() / record;
  const std::size_t tail = out.size() - records * record;
  const std::byte* in = stored.data() + 1;
  const std::byte* const end = stored.data() + stored.size();
  std::uint32_t previous[kMaxWords] = {};
  // Full blocks on CPUs with AVX2 (compress/delta_decode_avx2.hpp): each word's values into a
  // column (records of one word: straight into the block), then the columns into the records.
  const bool avx2 = decoder_ == DeltaDecoder::kFastest && delta_decode_avx2_supported();
  alignas(32) std::uint32_t columns[kMaxWords][kBlockRecords];
  for (std::size_t first = 0; first < records; first += kBlockRecords) {
    const std::size_t count = std::min(kBlockRecords, records - first);
    std::byte* const block = out.data() + first * record;
    const bool by_columns = avx2 && count == kBlockRecords;
    for (std::size_t j = 0; j < W; ++j) {
      if (in == end) return corruption("delta chunk ends inside record " + std::to_string(first) + "'s block");
      const unsigned width = std::to_integer<unsigned>(*in++);
      if (width > 32) return corruption("delta chunk has a width of " + std::to_string(width) + " bits (at most 32)");
      const std::size_t bytes = packed_bytes(count, width);
      if (static_cast<std::size_t>(end - in) < bytes) return corruption("delta chunk ends inside record " + std::to_string(first) + "'s block");
      const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
      const std::size_t available = static_cast<std::size_t>(end - in);
      std::uint32_t prev = previous[j];
      // Word j's values go to `to`, one every `stride` bytes: the records', or column j's.
      std::byte* to = block + 4 * j;
      std::size_t stride = record;
      if (by_columns) {
        to = W == 1 ? block : reinterpret_cast<std::byte*>(columns[j]);
        stride = 4;
      }
      if (by_columns && available >= bytes + 32) {  // every 32-byte load inside the stored chunk
        prev = delta_unpack_avx2(in, kBlockRecords / 8, width, prev, to);
      } else if (available >= bytes + 8) {  // every 8-byte load inside the stored chunk
        prev = kUnpack[stride / 4 - 1][width](in, count, prev, to);
      } else {
        for (std::size_t i = 0, bit = 0; i < count; ++i, bit += width, to += stride) {
          prev += unzigzag(static_cast<std::uint32_t>((load_le64(in + bit / 8, available - bit / 8) >> (bit % 8)) & mask));
          store_le32(to, prev);
        }
      }
      previous[j] = prev;
      in += bytes;
    }
    if (by_columns && W > 1) delta_interleave_avx2(columns[0], kBlockRecords, W, kBlockRecords, block);
  }
  if (static_cast<std::size_t>(end - in) != tail) {
    return corruption("delta chunk has " + std::to_string(end - in) + " bytes after its records (expected a tail of " +
                      std::to_string(tail) + ")");
  }
  if (tail > 0) std::memcpy(out.data() + records * record, in, tail);
  return Status::ok();
}

}  // namespace edgestream
