// libFuzzer target: the .ini parser (io/graph_format.*). Arbitrary bytes are written as g.ini in a
// per-process directory that also holds an edge file "e" of 24 bytes (3 type 2 records, 2 type 1
// records); read_graph_ini must return a value or a clear error, never crash, hang or read out of
// bounds, and what it accepts must be consistent with the edge file.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/graph_format.hpp"

namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("edgestream-fuzz-graph_ini-" + std::to_string(::getpid()));
  Scratch() {
    fs::create_directories(dir);
    std::ofstream(dir / "e", std::ios::binary) << std::string(24, '\0');
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Scratch scratch;
  const fs::path ini = scratch.dir / "g.ini";
  {
    std::ofstream out(ini, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) return 0;
  }
  auto parsed = edgestream::parse_graph_ini(ini);
  auto checked = edgestream::read_graph_ini(ini);
  if (checked) {
    // What read_graph_ini accepts, parse_graph_ini accepts too; the sizes match the edge file.
    if (!parsed) std::abort();
    const auto record = checked->record_size();
    if (record != 8 && record != 12) std::abort();
    if (checked->vertices > (std::uint64_t{1} << 32)) std::abort();
    std::error_code ec;
    const auto bytes = fs::file_size(checked->edge_path, ec);
    if (!ec && !checked->framed() && checked->edges * record != bytes) std::abort();
    if (!ec && checked->framed() && (checked->stored_bytes != bytes || checked->frame_bytes < 4096)) std::abort();
  } else if (checked.status().message().empty()) {
    std::abort();  // every error explains itself
  }
  return 0;
}
