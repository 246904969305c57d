// device_probe DIR: sequential read/write bandwidth of DIR's device across request sizes and queue
// depths with direct I/O through io_uring (CONTRACT §2). CSV on stdout (header row first, nothing
// else); progress, fallbacks and the recommended read chunk, write chunk and depth on stderr;
// --preset_out FILE writes the recommendation as a benchmark_driver --config file.
#include <boost/program_options.hpp>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "core/size_literal.hpp"
#include "utils/device_probe.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

template <typename T, typename Parse>
bool parse_list(const std::string& option, const std::string& text, Parse parse, std::vector<T>& out) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto v = parse(option, item);
    if (!v) {
      std::cerr << "device_probe: " << v.status().message() << "\n";
      return false;
    }
    out.push_back(static_cast<T>(*v));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options("device_probe DIR [options]\n"
                                  "Measures DIR's device: sequential read and write bandwidth with direct I/O\n"
                                  "through io_uring. CSV on stdout; progress and the recommendation on stderr");
  // clang-format off
  options.add_options()
      ("help,h", "this help")
      ("dir", po::value<std::string>(), "directory on the device to measure (also the first positional argument)")
      ("sizes", po::value<std::string>()->default_value("4K,16K,64K,256K,1M,4M,16M,64M"), "request sizes, comma-separated (multiples of 4K)")
      ("depths", po::value<std::string>()->default_value("1,2,4,8,16"), "queue depths (requests in flight), comma-separated")
      ("ops", po::value<std::string>()->default_value("read,write"), "read, write or read,write")
      ("file_size", po::value<std::string>()->default_value("1G"), "size of the test file (written once, removed at the end)")
      ("seconds", po::value<double>()->default_value(1.0), "time bound per cell (op x size x depth)")
      ("max_inflight", po::value<std::string>()->default_value("256M"), "skip cells whose size x depth exceeds this (buffer memory)")
      ("no_dio", "buffered I/O instead of O_DIRECT (writes are timed with fdatasync, reads after dropping the cache)")
      ("preset_out", po::value<std::string>(), "write the recommendation as a benchmark_driver --config file")
      ("keep_file", "leave the test file in DIR");
  // clang-format on
  po::positional_options_description positional;
  positional.add("dir", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "device_probe: " << e.what() << "\n" << options << "\n";
    return 2;
  }
  if (vm.count("help") != 0) {
    std::cout << options << "\n";
    return 0;
  }
  if (vm.count("dir") == 0) {
    std::cerr << "device_probe: missing DIR\n" << options << "\n";
    return 2;
  }
  ProbeOptions opts;
  opts.dir = vm["dir"].as<std::string>();
  if (!parse_list<std::uint64_t>("sizes", vm["sizes"].as<std::string>(), parse_size, opts.request_sizes) ||
      !parse_list<unsigned>("depths", vm["depths"].as<std::string>(), parse_count, opts.depths)) {
    return 2;
  }
  const std::string ops = vm["ops"].as<std::string>();
  opts.read = ops.find("read") != std::string::npos;
  opts.write = ops.find("write") != std::string::npos;
  if (!opts.read && !opts.write) {
    std::cerr << "device_probe: --ops must name read and/or write, got " << ops << "\n";
    return 2;
  }
  auto file_size = parse_size("file_size", vm["file_size"].as<std::string>());
  auto inflight = parse_size("max_inflight", vm["max_inflight"].as<std::string>());
  if (!file_size || !inflight) {
    std::cerr << "device_probe: " << (!file_size ? file_size.status() : inflight.status()).message() << "\n";
    return 2;
  }
  opts.file_bytes = *file_size;
  opts.max_inflight_bytes = *inflight;
  opts.seconds_per_cell = vm["seconds"].as<double>();
  opts.direct = vm.count("no_dio") == 0;
  opts.keep_file = vm.count("keep_file") != 0;
  std::ofstream preset;
  if (vm.count("preset_out") != 0) {  // fail on a bad path before minutes of measuring
    preset.open(vm["preset_out"].as<std::string>(), std::ios::trunc);
    if (!preset) {
      std::cerr << "device_probe: cannot write --preset_out file " << vm["preset_out"].as<std::string>() << "\n";
      return 2;
    }
  }

  auto result = run_probe(opts, [](const std::string& line) { std::cerr << "device_probe: " << line << std::endl; });
  if (!result) {
    std::cerr << "device_probe: " << result.status().message() << "\n";
    if (preset.is_open()) std::remove(vm["preset_out"].as<std::string>().c_str());
    return 1;
  }
  write_probe_csv(std::cout, *result);
  std::cout.flush();
  std::cerr << "device_probe: device " << result->device << ", filesystem " << result->filesystem << ", "
            << (result->direct_io ? "direct I/O (O_DIRECT)" : "BUFFERED I/O (no O_DIRECT)") << ", "
            << (result->uring ? "io_uring" : "pread/pwrite") << ", test file " << format_size(result->file_bytes) << "\n";
  for (const std::string& note : result->notes) std::cerr << "device_probe: note: " << note << "\n";
  const ProbeRecommendation rec = recommend(*result);
  std::cerr << std::fixed << std::setprecision(0) << "device_probe: recommend --read_chunk " << format_size(rec.read_chunk)
            << " --write_chunk " << format_size(rec.write_chunk) << " --io_depth " << rec.io_depth
            << (rec.edges_codec.empty() ? "" : " --edges_codec " + rec.edges_codec)
            << (rec.grid_codec.empty() ? "" : " --grid_codec " + rec.grid_codec) << "  (read "
            << rec.read_mbps << " of best " << rec.best_read_mbps << " MB/s, write " << rec.write_mbps << " of best "
            << rec.best_write_mbps << " MB/s)\n";
  if (preset.is_open()) {
    write_preset(preset, *result, rec, opts.dir.string());
    if (!preset.flush()) {
      std::cerr << "device_probe: cannot write --preset_out file " << vm["preset_out"].as<std::string>() << "\n";
      return 1;
    }
  }
  return 0;
}
