// libFuzzer target: a whole stored stream read back through FramedReader (compress/framed_stream.*),
// as the engine reads a scratch stream: the first 8 input bytes give the decoded length the reader
// is told to expect (the engine's bookkeeping), the rest is the file. Every outcome must be the data
// or kCorruption naming the file; never a crash, hang, overflow or over-read.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "compress/framed_stream.hpp"

namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path path = fs::temp_directory_path() / ("edgestream-fuzz-framed_stream-" + std::to_string(::getpid()));
  ~Scratch() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Scratch scratch;
  if (size < 8) return 0;
  std::uint64_t raw_bytes = 0;
  std::memcpy(&raw_bytes, data, 8);
  raw_bytes %= std::uint64_t{1} << 22;
  const std::uint64_t stored_bytes = size - 8;
  {
    std::ofstream out(scratch.path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 8), static_cast<std::streamsize>(stored_bytes));
    if (!out) return 0;
  }
  auto file = edgestream::File::open(scratch.path, edgestream::OpenMode::kReadOnly, /*direct=*/false);
  if (!file) std::abort();
  edgestream::IoOptions io;
  io.read_chunk = 4096;
  io.write_chunk = 4096;
  io.depth = 2;
  io.direct = false;
  io.engine = edgestream::IoEngine::kSync;
  constexpr std::size_t kMaxFrame = 16384;
  for (const bool framed : {true, false}) {
    const std::uint64_t expect = framed ? raw_bytes : stored_bytes;
    auto reader = edgestream::FramedReader::open(*file, stored_bytes, expect, io, framed, kMaxFrame, /*slots=*/2,
                                                 nullptr, nullptr, nullptr);
    if (!reader) continue;  // argument errors (sizes that cannot match) are fine
    std::uint64_t total = 0;
    for (;;) {
      auto chunk = (*reader)->next();
      if (!chunk) {
        if (chunk.status().code() != edgestream::StatusCode::kCorruption) std::abort();
        if (chunk.status().message().find(scratch.path.string()) == std::string::npos) std::abort();
        break;
      }
      if (chunk->empty()) {
        if (total != expect) std::abort();  // a clean end delivers every byte
        break;
      }
      total += chunk->size();
      if (total > expect) std::abort();
    }
  }
  return 0;
}
