// The `grid_decode_bench` tool: how fast an on-disk grid's Elias-Fano pieces decode
// (decode_grid_piece, core/grid_codec.hpp) with the portable decoder and with the fastest this CPU
// has (AVX2: core/grid_decode_avx2.hpp), measured in the same run on the same pieces: 64 MiB of
// pieces of kGridPieceRecords keys, each decoded into one buffer as the engine's superstep does
// (the pieces stream from memory, the records stay in the CPU cache). Keys are sorted with random
// gaps whose mean sets the low-bit width (RMAT grids at 256 MiB use 9-17). Prints one line per width:
//   GRID_DECODE low_bits=L record_bytes=R wide=0|1 portable_ns_per_key=P fastest_ns_per_key=F ratio=P/F
// (best of --reps repetitions each, alternating). Exit 0, or 2 on a bad command line.
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "compress/elias_fano.hpp"
#include "core/grid_codec.hpp"
#include "core/grid_decode_avx2.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

volatile std::uint32_t g_sink = 0;  // a record of every pass is kept, so no pass can be optimised away

struct Pieces {
  std::vector<GridPiece> pieces;
  std::vector<std::byte> bytes;  // the pieces' bytes, back to back (each starts at its offset)
};

// Pieces of kGridPieceRecords sorted keys with gaps uniform in [0, 2^(low_bits + 1)), about `total`
// bytes of them, with (record_bytes 8) 4-byte weights.
Pieces make_pieces(std::mt19937_64& rng, unsigned low_bits, std::size_t record_bytes, std::size_t total) {
  Pieces out;
  std::vector<std::uint32_t> keys(kGridPieceRecords);
  while (out.bytes.size() < total) {
    std::uint32_t at = static_cast<std::uint32_t>(rng() % 1000);
    for (auto& k : keys) {
      at += static_cast<std::uint32_t>(rng() % (std::uint64_t{2} << low_bits));
      k = at;
    }
    const EliasFanoLayout layout = elias_fano_layout(keys.size(), keys.back() - keys.front());
    GridPiece p;
    p.offset = out.bytes.size();
    p.base = keys.front();
    p.low_bits = static_cast<std::uint8_t>(layout.low_bits);
    p.encoded = true;
    p.weight_bytes = 4;
    out.bytes.resize(p.offset + layout.bytes + (record_bytes == 8 ? keys.size() * 4 : 0));
    elias_fano_encode(keys, layout, std::span(out.bytes).subspan(p.offset, layout.bytes));
    out.pieces.push_back(p);
  }
  return out;
}

// Nanoseconds per key to decode every piece once with `decoder`.
template <std::size_t kRecordBytes>
double ns_per_key(const Pieces& in, GridKeys keys, GridDecoder decoder, std::vector<std::byte>& out) {
  const auto start = std::chrono::steady_clock::now();
  std::uint32_t sink = 0;
  for (std::size_t i = 0; i < in.pieces.size(); ++i) {
    const std::size_t end = i + 1 < in.pieces.size() ? in.pieces[i + 1].offset : in.bytes.size();
    const GridPiece& p = in.pieces[i];
    (void)decode_grid_piece<kRecordBytes>(p, kGridPieceRecords, std::span(in.bytes).subspan(p.offset, end - p.offset), keys,
                                          out.data(), decoder);
    sink += std::to_integer<std::uint32_t>(out[(i * 61) % (kGridPieceRecords * kRecordBytes)]);
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  g_sink = sink;
  return ns / static_cast<double>(in.pieces.size() * kGridPieceRecords);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned reps = 5;
  po::options_description desc(
      "Usage: grid_decode_bench [--reps 5]\n"
      "Decoding speed of the grid's Elias-Fano pieces: the portable decoder against the fastest this CPU\n"
      "has (AVX2), per low-bit width and record size, best of --reps alternating repetitions.\n\nOptions");
  desc.add_options()("help,h", "print this help and exit")("reps", po::value(&reps)->default_value(reps), "repetitions (>= 1)");
  po::variables_map vm;
  const ToolCommandLine command_line("grid_decode_bench");
  if (const std::optional<int> stop = command_line.parse(argc, argv, desc, vm)) return *stop;
  if (reps == 0) return command_line.usage_error("--reps must be at least 1");
  std::mt19937_64 rng(42);
  const GridKeys keys = GridKeys::of(16, 6);  // rmat22's grid at 256 MiB: 64 blocks, by destination group
  std::vector<std::byte> out(kGridPieceBufferBytes);
  for (const std::size_t record_bytes : {std::size_t{4}, std::size_t{8}}) {
    for (const unsigned low_bits : {10U, 13U, 14U, 16U, 18U}) {
      const Pieces pieces = make_pieces(rng, low_bits, record_bytes, std::size_t{64} << 20);
      double portable = 1e30;
      double fastest = 1e30;
      for (unsigned r = 0; r < reps; ++r) {
        const bool four = record_bytes == 4;
        portable = std::min(portable, four ? ns_per_key<4>(pieces, keys, GridDecoder::kPortable, out)
                                           : ns_per_key<8>(pieces, keys, GridDecoder::kPortable, out));
        fastest = std::min(fastest, four ? ns_per_key<4>(pieces, keys, GridDecoder::kFastest, out)
                                         : ns_per_key<8>(pieces, keys, GridDecoder::kFastest, out));
      }
      std::printf("GRID_DECODE low_bits=%u record_bytes=%zu wide=%d portable_ns_per_key=%.3f fastest_ns_per_key=%.3f ratio=%.2f\n",
                  pieces.pieces.front().low_bits, record_bytes, grid_decode_avx2_supported() ? 1 : 0, portable, fastest,
                  portable / fastest);
    }
  }
  return 0;
}
