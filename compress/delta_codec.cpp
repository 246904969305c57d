// DeltaCodec (compress/delta_codec.hpp): zigzag differences bit-packed per word and block.
#include "compress/delta_codec.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#include "compress/little_endian.hpp"

namespace edgestream {
namespace {

constexpr std::size_t kMaxWords = 4;

std::uint32_t zigzag(std::uint32_t difference) {
  return (difference << 1) ^ static_cast<std::uint32_t>(static_cast<std::int32_t>(difference) >> 31);
}
std::uint32_t unzigzag(std::uint32_t z) { return (z >> 1) ^ (0U - (z & 1U)); }

std::size_t packed_bytes(std::size_t count, unsigned width) { return (count * width + 7) / 8; }

// Decodes `count` differences packed at kWidth bits from `in` (which has at least
// packed_bytes(count, kWidth) + 8 bytes: every 8-byte load stays inside) into every `stride`-th
// word of `to`, running on from `prev`; returns the last word. The width a constant, so that the
// shifts and byte offsets of each group of 8 values are too.
template <unsigned kWidth>
std::uint32_t unpack(const std::byte* in, std::size_t count, std::uint32_t prev, std::byte* to, std::size_t stride) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << kWidth) - 1;
  for (std::size_t i = 0; i < count; ++i, to += stride) {
    const std::size_t bit = i * kWidth;
    prev += unzigzag(static_cast<std::uint32_t>((load_le64(in + bit / 8) >> (bit % 8)) & kMask));
    store_le32(to, prev);
  }
  return prev;
}

using Unpack = std::uint32_t (*)(const std::byte*, std::size_t, std::uint32_t, std::byte*, std::size_t);
template <std::size_t... kWidths>
constexpr std::array<Unpack, sizeof...(kWidths)> unpackers(std::index_sequence<kWidths...>) {
  return {&unpack<static_cast<unsigned>(kWidths)>...};
}
constexpr std::array<Unpack, 33> kUnpack = unpackers(std::make_index_sequence<33>{});

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
  for (std::size_t first = 0; first < records; first += kBlockRecords) {
    const std::size_t count = std::min(kBlockRecords, records - first);
    for (std::size_t j = 0; j < W; ++j) {
      std::uint32_t any = 0;
      std::uint32_t prev = previous[j];
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t v = load_le32(raw.data() + (first + i) * record + 4 * j);
        z[i] = zigzag(v - prev);
        any |= z[i];
        prev = v;
      }
      previous[j] = prev;
      const auto width = static_cast<unsigned>(std::bit_width(any));
      *o++ = static_cast<std::byte>(width);
      std::uint64_t acc = 0;  // bits not yet stored, from the lowest
      unsigned held = 0;
      for (std::size_t i = 0; i < count; ++i) {
        acc |= std::uint64_t{z[i]} << held;
        held += width;
        while (held >= 8) {
          *o++ = static_cast<std::byte>(acc);
          acc >>= 8;
          held -= 8;
        }
      }
      if (held > 0) *o++ = static_cast<std::byte>(acc);
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
  for (std::size_t first = 0; first < records; first += kBlockRecords) {
    const std::size_t count = std::min(kBlockRecords, records - first);
    std::byte* const block = out.data() + first * record;
    for (std::size_t j = 0; j < W; ++j) {
      if (in == end) return corruption("delta chunk ends inside record " + std::to_string(first) + "'s block");
      const unsigned width = std::to_integer<unsigned>(*in++);
      if (width > 32) return corruption("delta chunk has a width of " + std::to_string(width) + " bits (at most 32)");
      const std::size_t bytes = packed_bytes(count, width);
      if (static_cast<std::size_t>(end - in) < bytes) return corruption("delta chunk ends inside record " + std::to_string(first) + "'s block");
      const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
      const std::size_t available = static_cast<std::size_t>(end - in);
      std::uint32_t prev = previous[j];
      std::byte* to = block + 4 * j;
      if (available >= bytes + 8) {  // every 8-byte load inside the stored chunk
        prev = kUnpack[width](in, count, prev, to, record);
      } else {
        for (std::size_t i = 0, bit = 0; i < count; ++i, bit += width, to += record) {
          prev += unzigzag(static_cast<std::uint32_t>((load_le64(in + bit / 8, available - bit / 8) >> (bit % 8)) & mask));
          store_le32(to, prev);
        }
      }
      previous[j] = prev;
      in += bytes;
    }
  }
  if (static_cast<std::size_t>(end - in) != tail) {
    return corruption("delta chunk has " + std::to_string(end - in) + " bytes after its records (expected a tail of " +
                      std::to_string(tail) + ")");
  }
  if (tail > 0) std::memcpy(out.data() + records * record, in, tail);
  return Status::ok();
}

}  // namespace edgestream
