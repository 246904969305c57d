// libFuzzer target: the on-disk grid's compressed pieces (core/grid_codec.hpp) and their
// Elias-Fano decoder (compress/elias_fano.hpp). The first 8 bytes choose a piece's description
// (record count 1..4096, low bits, first key, destination bits, 4- or 8-byte records, the weights'
// width and exponent, block shift);
// the rest are its stored bytes, decoded exactly as the scatter does, into a buffer of exactly the
// promised size: damaged bytes must never read or write outside, and the fastest decoder (AVX2
// where the CPU has it: core/grid_decode_avx2.hpp) must write the portable decoder's records and
// result. Then the same bytes, taken as 32-bit values and sorted, must round-trip through the
// encoder and the decoder.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "compress/elias_fano.hpp"
#include "core/grid_codec.hpp"

namespace {

using namespace edgestream;

template <std::size_t kRecordBytes>
void decode_piece(const GridPiece& piece, std::uint64_t count, std::span<const std::byte> stored, GridKeys keys) {
  std::vector<std::byte> fastest(count * kRecordBytes + 32);
  std::vector<std::byte> portable(count * kRecordBytes + 32);
  const bool a = decode_grid_piece<kRecordBytes>(piece, count, stored, keys, fastest.data(), GridDecoder::kFastest);
  const bool b = decode_grid_piece<kRecordBytes>(piece, count, stored, keys, portable.data(), GridDecoder::kPortable);
  const auto records = static_cast<std::ptrdiff_t>(count * kRecordBytes);  // (the 32 bytes after them are scratch)
  if (a != b || !std::equal(fastest.begin(), fastest.begin() + records, portable.begin())) std::abort();
}

void round_trip(std::span<const std::byte> bytes) {
  std::vector<std::uint32_t> values(bytes.size() / 4);
  if (values.empty()) return;
  std::memcpy(values.data(), bytes.data(), values.size() * 4);
  std::sort(values.begin(), values.end());
  const EliasFanoLayout layout = elias_fano_layout(values.size(), values.back() - values.front());
  std::vector<std::byte> encoded(layout.bytes);
  elias_fano_encode(values, layout, encoded);
  std::vector<std::uint32_t> decoded(values.size() + 8);
  if (!elias_fano_decode(encoded, values.size(), layout.low_bits, values.front(), decoded.data())) std::abort();
  decoded.resize(values.size());
  if (decoded != values) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  const std::uint64_t count = 1 + ((std::uint64_t{data[0]} | std::uint64_t{data[1]} << 8) % kGridPieceRecords);
  GridPiece piece;
  piece.low_bits = data[2] % 40;  // widths a damaged description could hold, not only < 32
  piece.base = static_cast<std::uint32_t>(data[3]) * 0x01010101U;
  piece.encoded = (data[4] & 1) != 0;
  const bool eight = (data[4] & 2) != 0;
  piece.weight_bytes = static_cast<std::uint8_t>((data[4] >> 2) % 6);  // 0 and 5: invalid widths
  piece.weight_exponent = static_cast<std::int8_t>(data[2] ^ data[3]);
  const unsigned shift = 6 + data[5] % 11;  // 6..16
  const unsigned sub_bits = data[6] % (shift - 5);
  const GridKeys keys = GridKeys::of(shift, sub_bits);
  piece.dst_high = static_cast<std::uint16_t>((data[7] % (1U << sub_bits)) << keys.dst_bits);
  // The stored bytes in a buffer of their own size: ASan reports any read past them.
  const std::vector<std::byte> stored(reinterpret_cast<const std::byte*>(data + 8), reinterpret_cast<const std::byte*>(data + size));
  if (eight) {
    decode_piece<8>(piece, count, stored, keys);
  } else {
    decode_piece<4>(piece, count, stored, keys);
  }
  round_trip(stored);
  return 0;
}
