// GeneratorCli: the options, parsing and reporting shared by rmat and erdos-renyi.
#include "utils/generator_cli.hpp"

#include <csignal>
#include <cstdio>

namespace po = boost::program_options;

namespace edgestream {

void GeneratorCli::add_leading_options(po::options_description& desc) {
  desc.add_options()
      ("help,h", "print this help and exit")
      ("name", po::value(&name_), "output graph: edge file NAME and property file NAME.ini (required)");
}

void GeneratorCli::add_trailing_options(po::options_description& desc) {
  desc.add_options()
      ("symmetric", po::bool_switch(&symmetric_), "also write (v,u), same weight, right after each (u,v)")
      ("seed1", po::value(&seed1_text_)->default_value(std::to_string(kDefaultGeneratorSeed1)), "first random seed")
      ("seed2", po::value(&seed2_text_)->default_value(std::to_string(kDefaultGeneratorSeed2)), "second random seed")
      ("threads", po::value(&threads_text_)->default_value("0"), "generator threads; 0 = one per hardware thread")
      ("no_dio", po::bool_switch(&no_dio_), "write through the page cache instead of with O_DIRECT")
      ("type", po::value(&type_)->default_value(1),
       "1 = <u32 src, u32 dst, f32 weight> records (12 B, weights uniform in [0,1)), 2 = <u32 src, u32 dst> (8 B)");
}

std::optional<int> GeneratorCli::parse(int argc, char** argv, const po::options_description& desc,
                                       po::variables_map& vm) const {
  if (std::optional<int> stop = ToolCommandLine::parse(argc, argv, desc, vm)) return stop;
  if (vm.count("name") == 0) return usage_error("--name is required (the output edge file; NAME.ini is written next to it)");
  return std::nullopt;
}

int GeneratorCli::report(const Status& status, std::uint64_t vertices, std::uint64_t records, std::uint64_t bytes,
                         double seconds) const {
  if (!status.is_ok()) {
    if (status.code() == StatusCode::kInvalidArgument) return usage_error(status.message());  // e.g. a bad --name
    std::fprintf(stderr, "%s: %s\n", tool(), status.to_string().c_str());
    if (status.code() == StatusCode::kCancelled && cancel_signal() != 0) {
      // End with the signal itself, so the caller's shell sees the usual "killed by SIGINT".
      const int sig = cancel_signal();
      std::signal(sig, SIG_DFL);
      std::raise(sig);
    }
    return 1;
  }
  std::printf("%s: wrote %s and %s.ini: %llu vertices, %llu edges, %llu bytes (type %d), %.2f s\n", tool(),
              name_.c_str(), name_.c_str(), static_cast<unsigned long long>(vertices),
              static_cast<unsigned long long>(records), static_cast<unsigned long long>(bytes), type_, seconds);
  return 0;
}

}  // namespace edgestream
