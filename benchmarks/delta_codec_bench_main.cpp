// The `delta_codec_bench` tool: throughput of the delta codec (compress/delta_codec.hpp), the codec
// of the keyed edge streams (`--edges_codec delta`, the default `auto`'s choice for bfs), on
// buffers that stay in the CPU cache, as the streams' frames are coded: 1 MiB frames of records
// of 2 words (source, destination: bfs, cc, PageRank) and 3 words (plus a weight: sssp), and
// every packed width of 2-word records alone. Prints one line per data set:
//   DELTA data=D record_bytes=R width=W|mixed ratio=stored/raw compress_gbps=C decompress_gbps=X
//         portable_decompress_gbps=P avx2=0|1
// (raw bytes per second; best of --reps repetitions each; X: the decoder DeltaCodec runs on this
// CPU, the AVX2 one when avx2=1; P: the portable one, measured in the same run). Exit 0, 1 when a
// frame does not decode to its records, or 2 on a bad command line.
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "compress/delta_codec.hpp"
#include "compress/delta_decode_avx2.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

constexpr std::size_t kFrameBytes = std::size_t{1} << 20;  // the plan's write chunk under tight budgets
constexpr std::size_t kTotalBytes = std::size_t{256} << 20;  // coded per repetition (the same frame again)

volatile std::size_t g_sink = 0;  // the results are stored, so no pass can be optimised away

void put_word(std::vector<std::byte>& data, std::size_t at, std::uint32_t word) { std::memcpy(data.data() + at, &word, 4); }

// A keyed stream's frame: sources ascending (gaps of 0-7: several records per source), each
// source's destinations ascending from a random start in [0, 2^24) (rmat24's ids), random weights.
std::vector<std::byte> keyed_frame(std::size_t record, std::mt19937_64& rng) {
  std::vector<std::byte> data(kFrameBytes / record * record);
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
  for (std::size_t at = 0; at < data.size(); at += record) {
    const std::uint32_t gap = static_cast<std::uint32_t>(rng() % 8);
    source += gap;
    destination = gap == 0 ? destination + static_cast<std::uint32_t>(rng() % 4096) : static_cast<std::uint32_t>(rng() % (1U << 24));
    put_word(data, at, source);
    put_word(data, at + 4, destination);
    if (record == 12) put_word(data, at + 8, static_cast<std::uint32_t>(rng()));
  }
  return data;
}

// 2-word records whose words' zigzag differences are random numbers of exactly `width` bits.
std::vector<std::byte> width_frame(unsigned width, std::mt19937_64& rng) {
  std::vector<std::byte> data(kFrameBytes / 8 * 8);
  std::uint32_t previous[2] = {0, 0};
  for (std::size_t at = 0; at < data.size(); at += 4) {
    std::uint32_t z = width == 0 ? 0 : static_cast<std::uint32_t>(rng() >> (64 - width)) | (std::uint32_t{1} << (width - 1));
    const std::uint32_t difference = (z >> 1) ^ (0U - (z & 1U));  // the zigzag code's inverse
    std::uint32_t& word = previous[(at / 4) % 2];
    word += difference;
    put_word(data, at, word);
  }
  return data;
}

struct Result {
  double ratio = 0;
  double compress_gbps = 0;
  double decompress_gbps = 0;
  double portable_decompress_gbps = 0;
};

Result measure(const std::vector<std::byte>& frame, std::size_t record, unsigned reps) {
  const DeltaCodec codec(record);
  const DeltaCodec portable(record, DeltaDecoder::kPortable);
  std::vector<std::byte> stored(codec.max_compressed_length(frame.size()));
  std::vector<std::byte> back(frame.size());
  const std::size_t passes = std::max<std::size_t>(1, kTotalBytes / frame.size());
  Result result;
  std::size_t length = 0;
  const auto gbps = [&](double seconds) { return static_cast<double>(frame.size() * passes) / seconds / 1e9; };
  // Decodes the stored frame `passes` times with `decoder`; returns the raw GB/s, 0 on an error
  // or when the last pass's records are not the frame's.
  const auto decode = [&](const DeltaCodec& decoder) {
    std::fill(back.begin(), back.end(), std::byte{0});
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < passes; ++i) {
      if (!decoder.decompress(std::span<const std::byte>(stored.data(), length), back).is_ok()) return 0.0;
    }
    const double rate = gbps(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return back == frame ? rate : 0.0;
  };
  for (unsigned r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < passes; ++i) length = codec.compress(frame, stored).value();
    result.compress_gbps = std::max(result.compress_gbps, gbps(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
    const double fastest = decode(codec);
    const double plain = decode(portable);
    if (fastest == 0 || plain == 0) return Result{};  // (a decoding error is reported as zero throughput)
    result.decompress_gbps = std::max(result.decompress_gbps, fastest);
    result.portable_decompress_gbps = std::max(result.portable_decompress_gbps, plain);
  }
  result.ratio = static_cast<double>(length) / static_cast<double>(frame.size());
  g_sink = length;
  return result;
}

void print(const char* data, std::size_t record, const std::string& width, const Result& r) {
  std::printf("DELTA data=%s record_bytes=%zu width=%s ratio=%.3f compress_gbps=%.2f decompress_gbps=%.2f "
              "portable_decompress_gbps=%.2f avx2=%d\n",
              data, record, width.c_str(), r.ratio, r.compress_gbps, r.decompress_gbps, r.portable_decompress_gbps,
              delta_decode_avx2_supported() ? 1 : 0);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned reps = 3;
  po::options_description desc(
      "Usage: delta_codec_bench [--reps 3]\n"
      "Throughput of the delta codec (compress and decompress, raw GB/s) on 1 MiB frames held in the\n"
      "CPU cache: keyed edge records of 8 and 12 bytes, then 8-byte records at every packed width;\n"
      "decompression by the decoder this CPU runs and by the portable one; best of --reps repetitions.\n\nOptions");
  desc.add_options()("help,h", "print this help and exit")("reps", po::value(&reps)->default_value(reps), "repetitions (>= 1)");
  po::variables_map vm;
  const ToolCommandLine command_line("delta_codec_bench");
  if (const std::optional<int> stop = command_line.parse(argc, argv, desc, vm)) return *stop;
  if (reps == 0) return command_line.usage_error("--reps must be at least 1");
  std::mt19937_64 rng(42);
  int status = 0;
  for (const std::size_t record : {std::size_t{8}, std::size_t{12}}) {
    const Result r = measure(keyed_frame(record, rng), record, reps);
    print("keyed", record, "mixed", r);
    if (r.ratio == 0) status = 1;
  }
  for (unsigned width = 0; width <= 32; ++width) {
    const Result r = measure(width_frame(width, rng), 8, reps);
    print("width", 8, std::to_string(width), r);
    if (r.ratio == 0) status = 1;
  }
  if (status != 0) std::fprintf(stderr, "delta_codec_bench: a frame did not decode to its records\n");
  return status;
}
