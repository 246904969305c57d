// The `checksum_bench` tool: throughput of the frame checksum (compress/crc32.hpp) against zlib's
// crc32, measured in the same run on the same buffers: one that stays in the CPU cache (256 KiB,
// summed over 1 GiB) and one streamed from memory (256 MiB, as a direct-I/O read leaves it).
// Prints one line per buffer:
//   CHECKSUM buffer=B accelerated=0|1 zlib_gbps=Z crc32_update_gbps=F ratio=F/Z
// (best of --reps repetitions each, alternating). Exit 0, or 2 on a bad command line.
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "compress/crc32.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

using Checksum = std::uint32_t (*)(std::uint32_t, std::span<const std::byte>);

volatile std::uint32_t g_sink = 0;  // the results are stored, so no pass can be optimised away

// GB/s of `passes` checksums of `buffer` (chained: each pass starts from the previous result).
double throughput(Checksum checksum, std::span<const std::byte> buffer, std::size_t passes) {
  const auto start = std::chrono::steady_clock::now();
  std::uint32_t crc = 0;
  for (std::size_t i = 0; i < passes; ++i) crc = checksum(crc, buffer);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  g_sink = crc;
  return static_cast<double>(buffer.size()) * static_cast<double>(passes) / seconds / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned reps = 5;
  po::options_description desc(
      "Usage: checksum_bench [--reps 5]\n"
      "Throughput of the frame checksum (crc32_update) against zlib's crc32 on a cache-resident and a\n"
      "memory-resident buffer, best of --reps alternating repetitions.\n\nOptions");
  desc.add_options()("help,h", "print this help and exit")("reps", po::value(&reps)->default_value(reps), "repetitions (>= 1)");
  po::variables_map vm;
  const ToolCommandLine command_line("checksum_bench");
  if (const std::optional<int> stop = command_line.parse(argc, argv, desc, vm)) return *stop;
  if (reps == 0) return command_line.usage_error("--reps must be at least 1");
  std::mt19937_64 rng(42);
  for (const std::size_t bytes : {std::size_t{256} << 10, std::size_t{256} << 20}) {
    std::vector<std::byte> buffer(bytes);
    for (auto& b : buffer) b = static_cast<std::byte>(rng());
    const std::size_t passes = std::max<std::size_t>(1, (std::size_t{1} << 30) / bytes);
    double best_zlib = 0;
    double best_fast = 0;
    for (unsigned r = 0; r < reps; ++r) {
      best_zlib = std::max(best_zlib, throughput(&crc32_zlib, buffer, passes));
      best_fast = std::max(best_fast, throughput(&crc32_update, buffer, passes));
    }
    std::printf("CHECKSUM buffer=%zu accelerated=%d zlib_gbps=%.2f crc32_update_gbps=%.2f ratio=%.2f\n", bytes,
                crc32_accelerated() ? 1 : 0, best_zlib, best_fast, best_fast / best_zlib);
  }
  return 0;
}
