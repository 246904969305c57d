// The on-disk grid's compressed windows; see grid_codec.hpp.
#include "core/grid_codec.hpp"

#include <algorithm>
#include <numeric>

#include "compress/elias_fano.hpp"
#include "core/grid_decode_avx2.hpp"
#include "utils/radix_sort.hpp"

namespace edgestream {

std::string grid_codec_name(GridCodec codec) {
  switch (codec) {
    case GridCodec::kEliasFano: return "ef";
    case GridCodec::kAuto: return "auto";
    case GridCodec::kNone: break;
  }
  return "none";
}

Expected<GridCodec> parse_grid_codec(const std::string& option, const std::string& text) {
  if (text == "auto") return GridCodec::kAuto;
  if (text == "ef") return GridCodec::kEliasFano;
  if (text == "none") return GridCodec::kNone;
  return invalid_argument(option + " must be auto, ef or none, got '" + text + "'");
}

namespace {

// A slab's records as sort elements, sorted in place: kLocal4 records become their 32-bit keys;
// kLocal8 records (local ids, weight) become key << 32 | weight bits. Sorted by the key only
// (stably, so a bucket's records with the same key keep their input order). The elements are built
// in the scratch and sorted from there into the records' place (radix_sort_by_key_into: a copy
// fewer than building them in place).
std::uint32_t key_of(std::uint32_t element) { return element; }
std::uint32_t key_of(std::uint64_t element) { return static_cast<std::uint32_t>(element >> 32); }

template <typename Element>
void sort_portion(std::byte* records, std::byte* scratch, std::uint64_t count, GridKeys keys) {
  auto* built = reinterpret_cast<Element*>(scratch);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint32_t local;
    std::memcpy(&local, records + i * sizeof(Element), 4);
    if constexpr (sizeof(Element) == 4) {
      built[i] = keys.key(local);
    } else {
      std::uint32_t weight;
      std::memcpy(&weight, records + i * 8 + 4, 4);
      built[i] = (std::uint64_t{keys.key(local)} << 32) | weight;
    }
  }
  radix_sort_by_key_into(std::span<Element>(built, count), std::span<Element>(reinterpret_cast<Element*>(records), count),
                         keys.key_bits(), [](Element e) { return std::uint64_t{key_of(e)}; });
}

// Writes piece `p` of `count` sorted elements to `to`: its records, or its keys Elias-Fano coded
// and then (kLocal8) the weights in the piece's form (GridWeights).
template <typename Element>
void write_piece(const Element* elements, std::uint64_t count, const GridPiece& p, GridKeys keys, std::byte* to,
                 std::vector<std::uint32_t>& key_scratch) {
  if (!p.encoded) {
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint32_t local = keys.local(key_of(elements[i]), p.dst_high);
      std::memcpy(to + i * sizeof(Element), &local, 4);
      if constexpr (sizeof(Element) == 8) {
        const auto weight = static_cast<std::uint32_t>(elements[i]);
        std::memcpy(to + i * 8 + 4, &weight, 4);
      }
    }
    return;
  }
  key_scratch.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) key_scratch[i] = key_of(elements[i]);
  const EliasFanoLayout layout = elias_fano_layout(count, key_scratch[count - 1] - key_scratch[0], p.low_bits);
  elias_fano_encode(key_scratch, layout, std::span<std::byte>(to, layout.bytes));
  if constexpr (sizeof(Element) == 8) {
    const GridWeights form{p.weight_bytes, p.weight_exponent};
    std::byte* const weights = to + layout.bytes;
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto weight = static_cast<std::uint32_t>(elements[i]);
      if (form.bytes == 4) {
        std::memcpy(weights + i * 4, &weight, 4);
      } else {
        GridWeights::store(weights + i * form.bytes, form.bytes, form.value(weight));
      }
    }
  }
}

template <typename Element>
std::uint64_t encode_slab(std::span<std::byte> records, std::span<const GridPortion> portions, GridKeys keys,
                          std::uint64_t first_record, ThreadPool& pool, std::span<std::byte> out, std::vector<GridPiece>& pieces) {
  constexpr std::uint64_t kBytes = sizeof(Element);
  // Portion j's pieces are pieces[first_piece[j], first_piece[j + 1]) of this slab.
  std::vector<std::uint64_t> first_piece(portions.size() + 1, 0);
  for (std::size_t j = 0; j < portions.size(); ++j) {
    first_piece[j + 1] = first_piece[j] + (portions[j].count + kGridPieceRecords - 1) / kGridPieceRecords;
  }
  const std::size_t before = pieces.size();
  pieces.resize(before + first_piece.back());
  GridPiece* const slab_pieces = pieces.data() + before;
  std::vector<std::uint64_t> stored(first_piece.back(), 0);
  // The largest portions first (RMAT's hot buckets hold a good part of a slab), so that no worker
  // is left with one at the end while the others wait.
  std::vector<std::uint32_t> by_size(portions.size());
  std::iota(by_size.begin(), by_size.end(), 0U);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::uint32_t l, std::uint32_t r) { return portions[l].count > portions[r].count; });
  // Sort each portion (its own range of `out` as scratch), then describe its pieces: Elias-Fano
  // when that saves at least 1/8 of the records' bytes (the frames' rule, compress/frame.hpp).
  pool.run(portions.size(), [&](std::size_t task, unsigned) {
    const std::size_t j = by_size[task];
    const GridPortion& portion = portions[j];
    std::byte* at = records.data() + portion.first * kBytes;
    sort_portion<Element>(at, out.data() + portion.first * kBytes, portion.count, keys);
    const auto* elements = reinterpret_cast<const Element*>(at);
    for (std::uint64_t q = first_piece[j]; q < first_piece[j + 1]; ++q) {
      const std::uint64_t begin = (q - first_piece[j]) * kGridPieceRecords;
      const std::uint64_t count = std::min(kGridPieceRecords, portion.count - begin);
      const std::uint32_t base = key_of(elements[begin]);
      const EliasFanoLayout layout = elias_fano_layout(count, key_of(elements[begin + count - 1]) - base);
      const std::uint64_t raw = count * kBytes;
      GridWeights weights{0, 0};
      if constexpr (kBytes == 8) {
        weights = GridWeights::of(count, [&](std::uint64_t i) { return static_cast<std::uint32_t>(elements[begin + i]); });
      }
      const std::uint64_t encoded = layout.bytes + count * weights.bytes;
      GridPiece& p = slab_pieces[q];
      if constexpr (kBytes == 8) {
        p.weight_bytes = static_cast<std::uint8_t>(weights.bytes);
        p.weight_exponent = static_cast<std::int8_t>(weights.exponent);
      }
      p.first = first_record + portion.first + begin;
      p.base = base;
      p.dst_high = portion.dst_high;
      p.low_bits = static_cast<std::uint8_t>(layout.low_bits);
      p.encoded = encoded * 8 <= raw * 7;
      stored[q] = p.encoded ? encoded : raw;
    }
  });
  std::uint64_t offset = 0;
  for (std::size_t q = 0; q < stored.size(); ++q) {
    slab_pieces[q].offset = offset;
    offset += stored[q];
  }
  // Every piece to its place in `out` (no longer scratch): at most where its records were.
  std::vector<std::vector<std::uint32_t>> key_scratch(pool.size());
  pool.run(portions.size(), [&](std::size_t task, unsigned worker) {
    const std::size_t j = by_size[task];
    const auto* elements = reinterpret_cast<const Element*>(records.data() + portions[j].first * kBytes);
    for (std::uint64_t q = first_piece[j]; q < first_piece[j + 1]; ++q) {
      const std::uint64_t begin = (q - first_piece[j]) * kGridPieceRecords;
      const std::uint64_t count = std::min(kGridPieceRecords, portions[j].count - begin);
      write_piece<Element>(elements + begin, count, slab_pieces[q], keys, out.data() + slab_pieces[q].offset, key_scratch[worker]);
    }
  });
  return offset;
}

}  // namespace

std::uint64_t encode_grid_slab(std::span<std::byte> records, std::size_t record_bytes, std::span<const GridPortion> portions,
                               GridKeys keys, std::uint64_t first_record, ThreadPool& pool, std::span<std::byte> out,
                               std::vector<GridPiece>& pieces) {
  return record_bytes == 4 ? encode_slab<std::uint32_t>(records, portions, keys, first_record, pool, out, pieces)
                           : encode_slab<std::uint64_t>(records, portions, keys, first_record, pool, out, pieces);
}

template <std::size_t kRecordBytes>
bool decode_grid_piece(const GridPiece& p, std::uint64_t count, std::span<const std::byte> stored, GridKeys keys, std::byte* out,
                       GridDecoder decoder) {
  static_assert(kRecordBytes == 4 || kRecordBytes == 8);
  // Raw pieces hold the records; Elias-Fano pieces the keys, then (kLocal8) the weights in key
  // order, weight_bytes each (GridWeights).
  const unsigned weight_bytes = kRecordBytes == 8 ? p.weight_bytes : 0;
  const bool valid = !p.encoded || kRecordBytes == 4 || (weight_bytes >= 1 && weight_bytes <= 4);
  const std::uint64_t tail = p.encoded ? count * weight_bytes : count * kRecordBytes;
  if (!valid || stored.size() < tail) {
    std::memset(out, 0, count * kRecordBytes);
    return false;
  }
  if (!p.encoded) {
    std::memcpy(out, stored.data(), tail);
    return true;
  }
  // The keys' high parts go to the last 4 * (count + 8) bytes of `out` (out has room for
  // kRecordBytes * count + 32), then the records' ids are written front to back: record i ends
  // before the high part of key i + 1, which is read later; then (kLocal8) the weights, one loop
  // for the piece's width (GridWeights::load_all).
  const std::span<const std::byte> key_bytes = stored.first(stored.size() - tail);
  auto* high = reinterpret_cast<std::uint32_t*>(out + count * (kRecordBytes - 4));
  const std::uint32_t dst_high = p.dst_high;
  const std::byte* const weights = key_bytes.data() + key_bytes.size();
  const float scale = kRecordBytes == 8 ? GridWeights{weight_bytes, p.weight_exponent}.scale() : 1.0F;
  // The AVX2 decoder (core/grid_decode_avx2.hpp) when this CPU has it and the piece's low parts
  // fit its loads: the records with their weights; else the portable one, then the weights.
  if (decoder == GridDecoder::kFastest && p.low_bits >= 1 && p.low_bits <= kGridDecodeAvx2MaxLowBits &&
      (count * p.low_bits + 7) / 8 <= key_bytes.size() && grid_decode_avx2_supported()) {
    return decode_grid_keys_avx2(key_bytes, count, p.low_bits, p.base, dst_high, keys, kRecordBytes,
                                 GridPieceWeights{weights, weight_bytes, scale}, out);
  }
  // By value: the stores through `out` could otherwise alias what the lambda reads. Inlined into
  // each value's decoding (GCC otherwise calls it once per record).
  const bool decoded = elias_fano_decode(key_bytes, count, p.low_bits, p.base, high,
                                         [keys, dst_high, out](std::uint64_t i, std::uint32_t key) __attribute__((always_inline)) {
                                           const std::uint32_t local = keys.local(key, dst_high);
                                           std::memcpy(out + i * kRecordBytes, &local, 4);
                                         });
  if constexpr (kRecordBytes == 8) GridWeights::load_all(weights, weight_bytes, scale, count, out + 4, 8);
  return decoded;
}

template bool decode_grid_piece<4>(const GridPiece&, std::uint64_t, std::span<const std::byte>, GridKeys, std::byte*, GridDecoder);
template bool decode_grid_piece<8>(const GridPiece&, std::uint64_t, std::span<const std::byte>, GridKeys, std::byte*, GridDecoder);

}  // namespace edgestream
