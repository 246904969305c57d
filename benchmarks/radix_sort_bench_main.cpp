// The `radix_sort_bench` tool: the time per record of radix_sort_by_key (utils/radix_sort.hpp)
// against std::stable_sort, measured in the same run on the same keys: 2^25 random keys of
// --key_bits bits (default 29: the on-disk grid's sort keys on rmat22, core/grid_codec.cpp),
// sorted in consecutive ranges of one size at a time (the grid sorts each bucket's portion of a
// slab: from a few records to millions on RMAT graphs; --range picks other sizes). Prints one line
// per range size:
//   RADIX range=N key_bits=B radix_ns=R stable_sort_ns=S ratio=S/R
// (nanoseconds per record, best of --reps repetitions each, alternating). Exit 0, or 2 on a bad
// command line.
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "utils/radix_sort.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

volatile std::uint32_t g_sink = 0;  // a result is read, so no sort can be optimised away

// Nanoseconds per record to sort `keys` (a copy) in consecutive ranges of `range` records.
template <typename Sort>
double ns_per_record(const std::vector<std::uint32_t>& keys, std::size_t range, Sort sort) {
  std::vector<std::uint32_t> data = keys;
  std::vector<std::uint32_t> scratch(keys.size());
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t at = 0; at < data.size(); at += range) {
    const std::size_t n = std::min(range, data.size() - at);
    sort(std::span<std::uint32_t>(data.data() + at, n), std::span<std::uint32_t>(scratch.data() + at, n));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  g_sink = g_sink + data[data.size() / 2];
  return seconds * 1e9 / static_cast<double>(data.size());
}

}  // namespace

int main(int argc, char** argv) {
  unsigned reps = 3;
  unsigned key_bits = 29;
  std::vector<std::size_t> ranges{64, std::size_t{1} << 10, std::size_t{1} << 14, std::size_t{1} << 16, std::size_t{300} << 10,
                                  std::size_t{1} << 20, std::size_t{4} << 20};
  po::options_description desc(
      "Usage: radix_sort_bench [--reps 3] [--key_bits 29] [--range N]...\n"
      "Nanoseconds per record of radix_sort_by_key against std::stable_sort on 2^25 random keys, sorted\n"
      "in ranges of 64 to 4M records (or the --range sizes), best of --reps alternating repetitions.\n\nOptions");
  desc.add_options()("help,h", "print this help and exit")("reps", po::value(&reps)->default_value(reps), "repetitions (>= 1)")(
      "key_bits", po::value(&key_bits)->default_value(key_bits), "bits of the keys (1 to 32)")(
      "range", po::value(&ranges)->multitoken(), "range sizes in records (default 64 1024 16384 65536 307200 1048576 4194304)");
  po::variables_map vm;
  const ToolCommandLine command_line("radix_sort_bench");
  if (const std::optional<int> stop = command_line.parse(argc, argv, desc, vm)) return *stop;
  if (reps == 0) return command_line.usage_error("--reps must be at least 1");
  if (key_bits == 0 || key_bits > 32) return command_line.usage_error("--key_bits must be 1 to 32");
  if (std::ranges::find(ranges, std::size_t{0}) != ranges.end()) return command_line.usage_error("--range must be at least 1");
  std::mt19937_64 rng(42);
  std::vector<std::uint32_t> keys(std::size_t{1} << 25);
  const std::uint64_t mask = (std::uint64_t{1} << key_bits) - 1;
  for (auto& k : keys) k = static_cast<std::uint32_t>(rng() & mask);
  const auto key = [](std::uint32_t k) { return std::uint64_t{k}; };
  for (const std::size_t range : ranges) {
    double best_radix = 1e30;
    double best_stable = 1e30;
    for (unsigned r = 0; r < reps; ++r) {
      best_radix = std::min(best_radix, ns_per_record(keys, range, [&](std::span<std::uint32_t> d, std::span<std::uint32_t> s) {
                              radix_sort_by_key(d, s, key_bits, key);
                            }));
      best_stable = std::min(best_stable, ns_per_record(keys, range, [](std::span<std::uint32_t> d, std::span<std::uint32_t>) {
                               std::stable_sort(d.begin(), d.end());
                             }));
    }
    std::printf("RADIX range=%zu key_bits=%u radix_ns=%.2f stable_sort_ns=%.2f ratio=%.2f\n", range, key_bits, best_radix,
                best_stable, best_stable / best_radix);
  }
  return 0;
}
