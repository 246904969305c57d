// Tests of the I/O layer (io/): File in direct and buffered mode, SequentialReader/SequentialWriter
// over the io_uring and synchronous engines across chunk sizes and depths, record runs across chunk
// edges, fault injection (short transfers, EINTR storms, EIO, ENOSPC), the O_DIRECT fallback on
// tmpfs, files over 2 GiB, and read-only opens that must never modify the input.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "io/aligned_buffer.hpp"
#include "io/fault_injection.hpp"
#include "io/file.hpp"
#include "io/io_options.hpp"
#include "io/record_stream.hpp"
#include "io/sequential_reader.hpp"
#include "io/sequential_writer.hpp"
#include "io/uring_queue.hpp"
#include "tests/test_support.hpp"

using namespace edgestream;  // NOLINT(google-build-using-namespace)
using edgestream::test::TempDir;
using edgestream::test::FaultGuard;
namespace fi = edgestream::fault_injection;

namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;

std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> v(n);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t x = rng();
    std::memcpy(v.data() + i, &x, 8);
  }
  if (i < n) {
    const std::uint64_t x = rng();
    std::memcpy(v.data() + i, &x, n - i);
  }
  return v;
}

std::vector<std::byte> slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  std::vector<std::byte> out(std::filesystem::file_size(p));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
  REQUIRE(static_cast<std::size_t>(in.gcount()) == out.size());
  return out;
}

void spit(const std::filesystem::path& p, std::span<const std::byte> data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  REQUIRE(out.good());
}

// Compares without printing megabytes on failure: reports the size and the first differing offset.
void require_same_bytes(std::span<const std::byte> got, std::span<const std::byte> want) {
  REQUIRE(got.size() == want.size());
  if (got.empty() || std::memcmp(got.data(), want.data(), got.size()) == 0) return;
  std::size_t first_diff = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      first_diff = i;
      break;
    }
  }
  INFO("first differing byte at offset " << first_diff);
  REQUIRE(first_diff == got.size());
}

const char* engine_name(IoEngine e) { return e == IoEngine::kUring ? "uring" : "sync"; }

IoOptions make_options(std::size_t chunk, unsigned depth, bool direct, IoEngine engine) {
  IoOptions o;
  o.read_chunk = chunk;
  o.write_chunk = chunk;
  o.depth = depth;
  o.direct = direct;
  o.engine = engine;
  return o;
}

File open_file(const std::filesystem::path& p, OpenMode mode, bool direct) {
  auto f = File::open(p, mode, direct);
  INFO(f.status().to_string());
  REQUIRE(f.has_value());
  return std::move(f).value();
}

// Appends `data` through a SequentialWriter in pieces of varying sizes (tiny, up to one chunk, up
// to two chunks) so both the fast and the slow append paths run; returns the first error of
// append() or finish().
Status write_stream(const File& file, std::span<const std::byte> data, const IoOptions& options, std::uint64_t seed,
                    IoCounters* counters = nullptr) {
  ES_ASSIGN_OR_RETURN(auto writer, SequentialWriter::open(file, options, counters));
  std::mt19937_64 rng(seed);
  std::size_t pos = 0;
  while (pos < data.size()) {
    std::size_t piece = 0;
    switch (rng() % 3) {
      case 0: piece = 1 + rng() % 64; break;
      case 1: piece = 1 + rng() % options.write_chunk; break;
      default: piece = 1 + rng() % (2 * options.write_chunk); break;
    }
    piece = std::min(piece, data.size() - pos);
    ES_RETURN_IF_ERROR(writer->append(data.subspan(pos, piece)));
    pos += piece;
  }
  if (writer->bytes_appended() != data.size()) return internal_error("bytes_appended() != bytes given");
  return writer->finish();
}

// Streams [begin, end) through a SequentialReader, checking the shape of every chunk.
Expected<std::vector<std::byte>> read_stream(const File& file, std::uint64_t begin, std::uint64_t end,
                                             const IoOptions& options, IoCounters* counters = nullptr) {
  ES_ASSIGN_OR_RETURN(auto reader, SequentialReader::open(file, begin, end, options, counters));
  if (reader->remaining() != end - begin) return internal_error("remaining() before the first chunk is wrong");
  std::vector<std::byte> out;
  for (;;) {
    ES_ASSIGN_OR_RETURN(std::span<const std::byte> chunk, reader->next());
    if (chunk.empty()) break;
    if (chunk.size() > options.read_chunk) return internal_error("a chunk is larger than read_chunk");
    out.insert(out.end(), chunk.begin(), chunk.end());
    if (reader->remaining() != end - begin - out.size()) return internal_error("remaining() is wrong");
  }
  ES_ASSIGN_OR_RETURN(std::span<const std::byte> again, reader->next());
  if (!again.empty()) return internal_error("next() returned data after the end");
  return out;
}

#define REQUIRE_OK(expr)                    \
  do {                                      \
    const ::edgestream::Status s_ = (expr); \
    INFO(s_.to_string());                   \
    REQUIRE(s_.is_ok());                    \
  } while (0)

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

void warn_if_no_uring() {
  if (!uring_available()) WARN("io_uring is unavailable here: the kUring cases ran on the synchronous fallback");
}

}  // namespace

TEST_CASE("AlignedBuffer::huge: 2 MiB-aligned, zero-filled, no larger than asked, movable", "[io]") {
  constexpr std::size_t kHuge = 2 * kMiB;
  // Large enough for huge pages: the mapping starts on a 2 MiB boundary and ends where the
  // (4 KiB-rounded) size does: the extra huge page mapped to align it is given back.
  AlignedBuffer big = AlignedBuffer::huge(5 * kMiB + 100);
  REQUIRE(big.size() == round_up(5 * kMiB + 100, kIoAlignment));
  REQUIRE(reinterpret_cast<std::uintptr_t>(big.data()) % kHuge == 0);
  unsigned char vec = 0;
  errno = 0;
  CHECK(mincore(big.data() + big.size(), kIoAlignment, &vec) == -1);  // the page after it is not mapped
  CHECK(errno == ENOMEM);
  bool zero = true;
  for (std::size_t i = 0; i < big.size(); i += 997) zero = zero && big.data()[i] == std::byte{0};
  CHECK(zero);
  big.data()[0] = std::byte{1};
  big.data()[big.size() - 1] = std::byte{2};
  std::byte* const at = big.data();
  AlignedBuffer moved(std::move(big));
  CHECK(moved.data() == at);
  CHECK(moved.data()[moved.size() - 1] == std::byte{2});
  CHECK(big.size() == 0);  // NOLINT(bugprone-use-after-move): a moved-from buffer is empty
  // Smaller than a huge page: an ordinary page-aligned buffer.
  AlignedBuffer small = AlignedBuffer::huge(100 * kKiB + 1);
  CHECK(small.size() == round_up(100 * kKiB + 1, kIoAlignment));
  CHECK(reinterpret_cast<std::uintptr_t>(small.data()) % kIoAlignment == 0);
  CHECK(AlignedBuffer::huge(0).size() == 0);
}

TEST_CASE("File read_at/write_at round trips in direct mode (aligned buffers and offsets)", "[io]") {
  TempDir dir;
  const auto path = dir / "direct.bin";
  File file = open_file(path, OpenMode::kCreate, /*direct=*/true);
  REQUIRE(file.use_direct_io());  // the test directory is on ext4, which accepts O_DIRECT
  REQUIRE(file.alignment() == kIoAlignment);

  std::mt19937_64 rng(11);
  const std::size_t file_size = 64 * kIoAlignment;
  std::vector<std::byte> model(file_size, std::byte{0});
  REQUIRE_OK(file.truncate(file_size));
  for (int round = 0; round < 40; ++round) {
    const std::size_t blocks = 1 + rng() % 8;
    const std::size_t offset = (rng() % (64 - blocks + 1)) * kIoAlignment;
    const auto data = random_bytes(blocks * kIoAlignment, rng());
    AlignedBuffer buf(data.size());
    std::memcpy(buf.data(), data.data(), data.size());
    REQUIRE_OK(file.write_at(offset, std::span<const std::byte>(buf.data(), data.size())));
    std::memcpy(model.data() + offset, data.data(), data.size());

    // Read back a random aligned window.
    const std::size_t rblocks = 1 + rng() % 16;
    const std::size_t roffset = (rng() % (64 - rblocks + 1)) * kIoAlignment;
    AlignedBuffer rbuf(rblocks * kIoAlignment);
    auto n = file.read_at(roffset, std::span<std::byte>(rbuf.data(), rblocks * kIoAlignment));
    INFO(n.status().to_string());
    REQUIRE(n.has_value());
    REQUIRE(*n == rblocks * kIoAlignment);
    require_same_bytes(std::span<const std::byte>(rbuf.data(), *n),
                       std::span<const std::byte>(model.data() + roffset, *n));
  }
  auto size = file.size();
  REQUIRE(size.has_value());
  REQUIRE(*size == file_size);
  file.close();
  require_same_bytes(slurp(path), model);

  // A direct read at the end of a file whose size is not a multiple of 4096 returns exactly the tail.
  const auto odd = random_bytes(10000, 12);
  spit(path, odd);
  File again = open_file(path, OpenMode::kReadOnly, true);
  REQUIRE(again.use_direct_io());
  AlignedBuffer tail(4 * kIoAlignment);
  auto n = again.read_at(8192, tail.span());
  INFO(n.status().to_string());
  REQUIRE(n.has_value());
  REQUIRE(*n == 10000 - 8192);
  require_same_bytes(std::span<const std::byte>(tail.data(), *n), std::span<const std::byte>(odd.data() + 8192, *n));
  // Reading at or past the end returns 0 bytes.
  auto past = again.read_at(3 * kIoAlignment, tail.span());
  REQUIRE(past.has_value());
  REQUIRE(*past == 0);
}

TEST_CASE("File read_at/write_at round trips in buffered mode (any size, offset and address)", "[io]") {
  TempDir dir;
  const auto path = dir / "buffered.bin";
  File file = open_file(path, OpenMode::kCreate, /*direct=*/false);
  REQUIRE_FALSE(file.use_direct_io());
  REQUIRE(file.alignment() == 1);

  std::mt19937_64 rng(21);
  std::vector<std::byte> model;
  for (int round = 0; round < 60; ++round) {
    const std::size_t len = 1 + rng() % 20000;
    const std::size_t offset = rng() % (model.size() + 5000);  // sometimes past the end: a hole
    const auto data = random_bytes(len + 1, rng());
    // Write from an odd address (data + 1) to show no alignment is needed.
    REQUIRE_OK(file.write_at(offset, std::span<const std::byte>(data.data() + 1, len)));
    if (model.size() < offset + len) model.resize(offset + len, std::byte{0});
    std::memcpy(model.data() + offset, data.data() + 1, len);

    const std::size_t roffset = rng() % model.size();
    const std::size_t rlen = 1 + rng() % 30000;
    std::vector<std::byte> rbuf(rlen + 3);
    auto n = file.read_at(roffset, std::span<std::byte>(rbuf.data() + 3, rlen));
    INFO(n.status().to_string());
    REQUIRE(n.has_value());
    REQUIRE(*n == std::min(rlen, model.size() - roffset));  // short only at end of file
    require_same_bytes(std::span<const std::byte>(rbuf.data() + 3, *n),
                       std::span<const std::byte>(model.data() + roffset, *n));
  }
  auto size = file.size();
  REQUIRE(size.has_value());
  REQUIRE(*size == model.size());
  REQUIRE_OK(file.sync());
  REQUIRE_OK(file.truncate(model.size() / 2));
  model.resize(model.size() / 2);
  file.close();
  REQUIRE(file.fd() == -1);
  require_same_bytes(slurp(path), model);
}

TEST_CASE("File is movable and the moved-from File is closed", "[io]") {
  TempDir dir;
  File a = open_file(dir / "m", OpenMode::kCreate, false);
  const int fd = a.fd();
  REQUIRE(fd >= 0);
  File b(std::move(a));
  REQUIRE(b.fd() == fd);
  REQUIRE(a.fd() == -1);  // NOLINT(bugprone-use-after-move)
  REQUIRE(b.path() == (dir / "m").string());
  File c;
  c = std::move(b);
  REQUIRE(c.fd() == fd);
  REQUIRE(b.fd() == -1);  // NOLINT(bugprone-use-after-move)
  const std::byte x{42};
  REQUIRE_OK(c.write_at(0, std::span<const std::byte>(&x, 1)));
}

TEST_CASE("SequentialWriter and SequentialReader round trip over direct/buffered x uring/sync x chunk x depth",
          "[io]") {
  warn_if_no_uring();
  TempDir dir;
  std::uint64_t seed = 1000;
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      for (const std::size_t chunk : {4 * kKiB, 64 * kKiB, 1 * kMiB}) {
        for (const unsigned depth : {1U, 2U, 8U}) {
          const IoOptions options = make_options(chunk, depth, direct, engine);
          // Sizes: empty, less than one block, several chunks plus a tail that is not a multiple of
          // 4096, and an exact multiple of the chunk; the larger ones exceed depth chunks so the
          // read-ahead / write-behind pipelines fill up.
          const std::vector<std::size_t> sizes = {0, 1 + (seed % 4000), (depth + 2) * chunk + 4096 * (seed % 3) + 1237,
                                                  (depth + 1) * chunk};
          for (const std::size_t size : sizes) {
            ++seed;
            CAPTURE(direct, engine_name(engine), chunk, depth, size, seed);
            const auto data = random_bytes(size, seed);
            const auto path = dir / ("rt-" + std::to_string(seed));
            {
              File file = open_file(path, OpenMode::kCreate, direct);
              REQUIRE(file.use_direct_io() == direct);
              IoCounters counters;
              REQUIRE_OK(write_stream(file, data, options, seed, &counters));
              if (size > 0) REQUIRE(counters.bytes_written >= size);
              auto file_size = file.size();
              REQUIRE(file_size.has_value());
              REQUIRE(*file_size == size);  // padding of the last direct write was truncated away
            }
            require_same_bytes(slurp(path), data);  // checked independently of SequentialReader

            File file = open_file(path, OpenMode::kReadOnly, direct);
            IoCounters counters;
            auto got = read_stream(file, 0, size, options, &counters);
            INFO(got.status().to_string());
            REQUIRE(got.has_value());
            require_same_bytes(*got, data);
            REQUIRE(counters.bytes_read == size);
            if (size > 0) REQUIRE(counters.requests >= (size + chunk - 1) / chunk);
            std::filesystem::remove(path);
          }
        }
      }
    }
  }
}

namespace {

// Writes `data` mixing append() and write_through() (from an aligned room, at the offset the
// pending bytes need, or at a misaligned one: the copying fallback), pieces of varying sizes.
Status write_stream_through(const File& file, std::span<const std::byte> data, const IoOptions& options, std::uint64_t seed,
                            std::size_t request, unsigned in_flight, IoCounters* counters = nullptr) {
  ES_ASSIGN_OR_RETURN(auto writer, SequentialWriter::open(file, options, counters));
  std::mt19937_64 rng(seed);
  AlignedBuffer room(4 * options.write_chunk + 3 * kIoAlignment);
  std::size_t pos = 0;
  while (pos < data.size()) {
    const std::size_t piece = std::min<std::size_t>(1 + rng() % (4 * options.write_chunk), data.size() - pos);
    const std::span<const std::byte> bytes = data.subspan(pos, piece);
    switch (rng() % 4) {
      case 0:
        ES_RETURN_IF_ERROR(writer->append(bytes));
        break;
      case 1: {  // misplaced: offset 1 (or the pending bytes do not fit before it)
        std::memcpy(room.data() + 1, bytes.data(), piece);
        ES_RETURN_IF_ERROR(writer->write_through(std::span(room.data(), room.size()), 1, piece, request, in_flight));
        break;
      }
      default: {  // where the pending bytes fit before it, aligned: written from the room
        const std::size_t offset = writer->pending_bytes() + kIoAlignment * (rng() % 2);
        if (offset + piece > room.size()) {
          ES_RETURN_IF_ERROR(writer->append(bytes));
          break;
        }
        std::memcpy(room.data() + offset, bytes.data(), piece);
        ES_RETURN_IF_ERROR(writer->write_through(std::span(room.data(), room.size()), offset, piece, request, in_flight));
        std::memset(room.data(), 0xEE, room.size());  // the room is the caller's again
        break;
      }
    }
    pos += piece;
  }
  if (writer->bytes_appended() != data.size()) return internal_error("bytes_appended() != bytes given");
  return writer->finish();
}

}  // namespace

TEST_CASE("SequentialWriter::write_through writes the same file as append() over direct/buffered x uring/sync x requests",
          "[io]") {
  warn_if_no_uring();
  TempDir dir;
  std::uint64_t seed = 5000;
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      for (const std::size_t chunk : {4 * kKiB, 64 * kKiB}) {
        // Requests below, at and above the chunk, one not a multiple of the block (rounded down), and
        // 0 (one block); 1 to more than kMaxThroughInFlight in flight.
        for (const auto& [request, in_flight] : std::vector<std::pair<std::size_t, unsigned>>{
                 {4 * kKiB, 1}, {chunk, 2}, {3 * chunk + 100, 4}, {256 * kKiB, 20}, {0, 3}}) {
          ++seed;
          const std::size_t size = 9 * chunk + 4096 * (seed % 3) + 1237;
          CAPTURE(direct, engine_name(engine), chunk, request, in_flight, seed);
          const auto data = random_bytes(size, seed);
          const auto path = dir / ("wt-" + std::to_string(seed));
          IoCounters counters;
          {
            File file = open_file(path, OpenMode::kCreate, direct);
            REQUIRE_OK(write_stream_through(file, data, make_options(chunk, 2, direct, engine), seed, request, in_flight, &counters));
          }
          require_same_bytes(slurp(path), data);
          REQUIRE(counters.bytes_written >= size);
          std::filesystem::remove(path);
        }
      }
    }
  }
}

TEST_CASE("SequentialWriter::write_through: requests of the size asked, no copy, and faults reported", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
    CAPTURE(engine_name(engine));
    const IoOptions options = make_options(64 * kKiB, 2, true, engine);
    {  // 4 MiB from an aligned room in 1 MiB requests: 4 requests, the file's bytes those of the room
      const auto path = dir / (std::string("wt-req-") + engine_name(engine));
      File file = open_file(path, OpenMode::kCreate, true);
      IoCounters counters;
      auto writer = SequentialWriter::open(file, options, &counters);
      REQUIRE(writer.has_value());
      AlignedBuffer room(4 * kMiB);
      const auto data = random_bytes(room.size(), 77);
      std::memcpy(room.data(), data.data(), data.size());
      REQUIRE((*writer)->pending_bytes() == 0);
      REQUIRE_OK((*writer)->write_through(std::span(room.data(), room.size()), 0, room.size(), 1 * kMiB, 4));
      REQUIRE(counters.requests == 4);
      REQUIRE(counters.bytes_written == 4 * kMiB);
      REQUIRE((*writer)->pending_bytes() == 0);
      // 100 bytes appended, then 8 KiB through: the pending 100 lead, the last 100 stay pending.
      const auto more = random_bytes(100 + 8192, 78);
      REQUIRE_OK((*writer)->append(std::span(more).first(100)));
      REQUIRE((*writer)->pending_bytes() == 100);
      std::memcpy(room.data() + 100, more.data() + 100, 8192);
      REQUIRE_OK((*writer)->write_through(std::span(room.data(), room.size()), 100, 8192, 1 * kMiB, 4));
      REQUIRE(std::memcmp(room.data(), more.data(), 100) == 0);  // the pending bytes were put before the room's
      REQUIRE((*writer)->pending_bytes() == 100);
      REQUIRE(counters.requests == 5);
      REQUIRE((*writer)->bytes_appended() == 4 * kMiB + 100 + 8192);
      REQUIRE_OK((*writer)->finish());
      auto all = data;
      all.insert(all.end(), more.begin(), more.end());
      require_same_bytes(slurp(path), all);
    }
    {  // short writes are completed; ENOSPC is kNoSpace naming the file, and it sticks
      const auto path = dir / (std::string("wt-fault-") + engine_name(engine));
      const auto data = random_bytes(2 * kMiB, 79);
      AlignedBuffer room(data.size());
      std::memcpy(room.data(), data.data(), data.size());
      {
        FaultGuard guard({fi::Rule{fi::Op::kWrite, "wt-fault", 0, 0, 5000, -1}});
        File file = open_file(path, OpenMode::kCreate, true);
        auto writer = SequentialWriter::open(file, options, nullptr);
        REQUIRE(writer.has_value());
        REQUIRE_OK((*writer)->write_through(std::span(room.data(), room.size()), 0, room.size(), 256 * kKiB, 4));
        REQUIRE_OK((*writer)->finish());
        REQUIRE(fi::injected_count() > 0);
      }
      require_same_bytes(slurp(path), data);
      {
        FaultGuard guard({fi::Rule{fi::Op::kWrite, "wt-fault", kMiB, ENOSPC, 0, -1}});
        File file = open_file(path, OpenMode::kCreate, true);
        auto writer = SequentialWriter::open(file, options, nullptr);
        REQUIRE(writer.has_value());
        const Status error = (*writer)->write_through(std::span(room.data(), room.size()), 0, room.size(), 256 * kKiB, 4);
        INFO(error.to_string());
        REQUIRE(error.code() == StatusCode::kNoSpace);
        REQUIRE(contains(error.message(), path.string()));
        REQUIRE((*writer)->append(std::span(data).first(1)).code() == StatusCode::kNoSpace);
        REQUIRE((*writer)->finish().code() == StatusCode::kNoSpace);
      }
    }
  }
}

TEST_CASE("SequentialWriter restart() rewrites from offset 0 and finish() truncates to the new length", "[io]") {
  TempDir dir;
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine));
      const auto path = dir / "restart";
      File file = open_file(path, OpenMode::kCreate, direct);
      const IoOptions options = make_options(64 * kKiB, 2, direct, engine);
      auto writer = SequentialWriter::open(file, options, nullptr);
      REQUIRE(writer.has_value());
      const auto first = random_bytes(300001, 1);
      REQUIRE_OK((*writer)->append(first));
      REQUIRE_OK((*writer)->finish());
      require_same_bytes(slurp(path), first);

      (*writer)->restart();
      REQUIRE((*writer)->bytes_appended() == 0);
      const auto second = random_bytes(70001, 2);
      REQUIRE_OK((*writer)->append(second));
      REQUIRE_OK((*writer)->finish());
      require_same_bytes(slurp(path), second);

      // finish() of a writer that never received data leaves an empty file.
      (*writer)->restart();
      REQUIRE_OK((*writer)->finish());
      REQUIRE(std::filesystem::file_size(path) == 0);
    }
  }
}

TEST_CASE("SequentialReader over a sub-range [begin, end) with aligned begin", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "range.bin";
  const auto data = random_bytes(300007, 5);
  spit(path, data);
  std::mt19937_64 rng(6);
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      for (const std::size_t chunk : {4 * kKiB, 64 * kKiB}) {
        File file = open_file(path, OpenMode::kReadOnly, direct);
        REQUIRE(file.use_direct_io() == direct);
        const IoOptions options = make_options(chunk, 3, direct, engine);
        for (int round = 0; round < 8; ++round) {
          const std::uint64_t begin = (rng() % (data.size() / kIoAlignment + 1)) * kIoAlignment;
          std::uint64_t end = begin + rng() % (data.size() - begin + 1);
          if (round == 0) end = data.size();
          if (round == 1) end = begin;  // empty range
          CAPTURE(direct, engine_name(engine), chunk, begin, end);
          auto got = read_stream(file, begin, end, options);
          INFO(got.status().to_string());
          REQUIRE(got.has_value());
          require_same_bytes(*got, std::span<const std::byte>(data.data() + begin, end - begin));
        }
      }
    }
  }
}

TEST_CASE("SequentialReader/Writer reject bad arguments and report a file shorter than the range", "[io]") {
  TempDir dir;
  const auto path = dir / "short.bin";
  const auto data = random_bytes(50000, 8);
  spit(path, data);
  File direct = open_file(path, OpenMode::kReadOnly, true);
  REQUIRE(direct.use_direct_io());

  auto unaligned = SequentialReader::open(direct, 100, 5000, make_options(4096, 2, true, IoEngine::kSync), nullptr);
  REQUIRE_FALSE(unaligned.has_value());
  REQUIRE(unaligned.status().code() == StatusCode::kInvalidArgument);
  REQUIRE(contains(unaligned.status().message(), path.string()));

  auto backwards = SequentialReader::open(direct, 8192, 4096, make_options(4096, 2, true, IoEngine::kSync), nullptr);
  REQUIRE_FALSE(backwards.has_value());
  REQUIRE(backwards.status().code() == StatusCode::kInvalidArgument);

  auto bad_chunk = SequentialReader::open(direct, 0, 5000, make_options(5000, 2, true, IoEngine::kSync), nullptr);
  REQUIRE_FALSE(bad_chunk.has_value());
  REQUIRE(bad_chunk.status().code() == StatusCode::kInvalidArgument);

  File out = open_file(dir / "w", OpenMode::kCreate, false);
  auto bad_writer = SequentialWriter::open(out, make_options(1000, 2, false, IoEngine::kSync), nullptr);
  REQUIRE_FALSE(bad_writer.has_value());
  REQUIRE(bad_writer.status().code() == StatusCode::kInvalidArgument);
  auto zero_writer = SequentialWriter::open(out, make_options(0, 2, false, IoEngine::kSync), nullptr);
  REQUIRE_FALSE(zero_writer.has_value());

  // A file shorter than `end` is an error, not a silent short stream.
  for (const bool is_direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(is_direct, engine_name(engine));
      File file = open_file(path, OpenMode::kReadOnly, is_direct);
      auto got = read_stream(file, 0, data.size() + 10000, make_options(16 * kKiB, 2, is_direct, engine));
      REQUIRE_FALSE(got.has_value());
      REQUIRE(got.status().code() == StatusCode::kCorruption);
      REQUIRE(contains(got.status().message(), path.string()));
    }
  }
}

namespace {

// Record i of the test record files: {u32 i, u32 i * 2654435761, [f32 i / 2]}.
std::vector<std::byte> record_file_bytes(std::size_t records, std::size_t record_size) {
  std::vector<std::byte> bytes(records * record_size);
  for (std::size_t i = 0; i < records; ++i) {
    const auto a = static_cast<std::uint32_t>(i);
    const auto b = static_cast<std::uint32_t>(i * 2654435761U);
    std::memcpy(bytes.data() + i * record_size, &a, 4);
    std::memcpy(bytes.data() + i * record_size + 4, &b, 4);
    if (record_size == 12) {
      const float w = static_cast<float>(i) / 2.0F;
      std::memcpy(bytes.data() + i * record_size + 8, &w, 4);
    }
  }
  return bytes;
}

}  // namespace

TEST_CASE("for_each_record_run reassembles records cut by chunk edges and numbers them consecutively", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  for (const std::size_t record_size : {std::size_t{12}, std::size_t{8}}) {
    const std::size_t records = 20011;
    const auto path = dir / ("records" + std::to_string(record_size));
    spit(path, record_file_bytes(records, record_size));
    for (const bool direct : {true, false}) {
      for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
        for (const std::size_t chunk : {4 * kKiB, 64 * kKiB}) {
          CAPTURE(record_size, direct, engine_name(engine), chunk);
          File file = open_file(path, OpenMode::kReadOnly, direct);
          auto reader = SequentialReader::open(file, 0, records * record_size, make_options(chunk, 2, direct, engine),
                                               nullptr);
          REQUIRE(reader.has_value());
          std::uint64_t next_index = 0;
          std::uint64_t single_record_runs = 0;
          std::uint64_t bad = 0;
          const Status st = for_each_record_run(
              **reader, record_size, path.string(), [&](std::span<const std::byte> run, std::uint64_t first) {
                if (run.empty() || run.size() % record_size != 0 || first != next_index) ++bad;
                const std::size_t n = run.size() / record_size;
                if (n == 1) ++single_record_runs;
                for (std::size_t k = 0; k < n; ++k) {
                  std::uint32_t a = 0;
                  std::uint32_t b = 0;
                  std::memcpy(&a, run.data() + k * record_size, 4);
                  std::memcpy(&b, run.data() + k * record_size + 4, 4);
                  const std::uint64_t i = first + k;
                  if (a != static_cast<std::uint32_t>(i) || b != static_cast<std::uint32_t>(i * 2654435761U)) ++bad;
                  if (record_size == 12) {
                    float w = 0;
                    std::memcpy(&w, run.data() + k * record_size + 8, 4);
                    if (w != static_cast<float>(i) / 2.0F) ++bad;
                  }
                }
                next_index = first + n;
                return Status::ok();
              });
          INFO(st.to_string());
          REQUIRE(st.is_ok());
          REQUIRE(bad == 0);
          REQUIRE(next_index == records);
          // 12-byte records straddle 4 KiB chunk edges: the reassembled single records must appear.
          if (record_size == 12) REQUIRE(single_record_runs > 0);
        }
      }
    }
  }
}

TEST_CASE("for_each_record_run: a stream ending inside a record is corruption; fn errors stop the walk", "[io]") {
  TempDir dir;
  for (const std::size_t record_size : {std::size_t{12}, std::size_t{8}}) {
    auto bytes = record_file_bytes(1000, record_size);
    bytes.resize(bytes.size() + 5);  // 5 bytes of a record that never ends
    const auto path = dir / ("cut" + std::to_string(record_size));
    spit(path, bytes);
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(record_size, engine_name(engine));
      File file = open_file(path, OpenMode::kReadOnly, true);
      auto reader = SequentialReader::open(file, 0, bytes.size(), make_options(4 * kKiB, 2, true, engine), nullptr);
      REQUIRE(reader.has_value());
      std::uint64_t seen = 0;
      const Status st = for_each_record_run(**reader, record_size, "edge file " + path.string(),
                                            [&](std::span<const std::byte> run, std::uint64_t) {
                                              seen += run.size() / record_size;
                                              return Status::ok();
                                            });
      REQUIRE(seen == 1000);
      REQUIRE(st.code() == StatusCode::kCorruption);
      REQUIRE(contains(st.message(), path.string()));
      REQUIRE(contains(st.message(), "5 bytes"));
    }
  }

  // A Status returned by fn stops the walk and comes back unchanged.
  const auto path = dir / "stop";
  spit(path, record_file_bytes(5000, 8));
  File file = open_file(path, OpenMode::kReadOnly, false);
  auto reader = SequentialReader::open(file, 0, 5000 * 8, make_options(4 * kKiB, 2, false, IoEngine::kSync), nullptr);
  REQUIRE(reader.has_value());
  int calls_after_stop = 0;
  bool stopped = false;
  const Status st = for_each_record_run(**reader, 8, "stop", [&](std::span<const std::byte>, std::uint64_t first) {
    if (stopped) ++calls_after_stop;
    if (first >= 1024) {
      stopped = true;
      return bad_input("stop here");
    }
    return Status::ok();
  });
  REQUIRE(st.code() == StatusCode::kBadInput);
  REQUIRE(st.message() == "stop here");
  REQUIRE(calls_after_stop == 0);
}

TEST_CASE("Fault injection: short reads still yield exactly the file's bytes", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "shortread.bin";
  const auto data = random_bytes(200003, 31);
  spit(path, data);
  for (const bool direct : {true, false}) {
    // Direct I/O resumes on a block boundary, so its short reads keep at least one whole block.
    const std::size_t max_transfer = direct ? 5000 : 999;
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine), max_transfer);
      FaultGuard guard({fi::Rule{fi::Op::kRead, "shortread", 0, 0, max_transfer, -1}});
      File file = open_file(path, OpenMode::kReadOnly, direct);
      auto got = read_stream(file, 0, data.size(), make_options(64 * kKiB, 2, direct, engine));
      INFO(got.status().to_string());
      REQUIRE(got.has_value());
      require_same_bytes(*got, data);
      REQUIRE(fi::injected_count() > 0);  // the rule really cut transfers
    }
  }
  // File::read_at on its own, buffered, with tiny transfers into an odd address.
  FaultGuard guard({fi::Rule{fi::Op::kRead, "shortread", 0, 0, 7, -1}});
  File file = open_file(path, OpenMode::kReadOnly, false);
  std::vector<std::byte> buf(5001);
  auto n = file.read_at(12345, std::span<std::byte>(buf.data() + 1, 5000));
  REQUIRE(n.has_value());
  REQUIRE(*n == 5000);
  require_same_bytes(std::span<const std::byte>(buf.data() + 1, 5000), std::span<const std::byte>(data.data() + 12345, 5000));
  REQUIRE(fi::injected_count() >= 5000 / 7);
}

TEST_CASE("Fault injection: short writes still produce a correct file", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto data = random_bytes(200003, 32);
  for (const bool direct : {true, false}) {
    const std::size_t max_transfer = direct ? 5000 : 999;
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine), max_transfer);
      const auto path = dir / (std::string("shortwrite-") + (direct ? "d-" : "b-") + engine_name(engine));
      FaultGuard guard({fi::Rule{fi::Op::kWrite, "shortwrite", 0, 0, max_transfer, -1}});
      {
        File file = open_file(path, OpenMode::kCreate, direct);
        REQUIRE_OK(write_stream(file, data, make_options(64 * kKiB, 2, direct, engine), 7));
      }
      REQUIRE(fi::injected_count() > 0);
      require_same_bytes(slurp(path), data);
    }
  }
}

TEST_CASE("Fault injection: EINTR storms are survived by reads and writes", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto data = random_bytes(300001, 33);
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine));
      const auto path = dir / (std::string("eintr-") + (direct ? "d-" : "b-") + engine_name(engine));
      const IoOptions options = make_options(16 * kKiB, 4, direct, engine);
      {
        FaultGuard guard({fi::Rule{fi::Op::kWrite, "eintr", 0, EINTR, 0, 50}});
        File file = open_file(path, OpenMode::kCreate, direct);
        REQUIRE_OK(write_stream(file, data, options, 9));
        REQUIRE(fi::injected_count() == 50);
      }
      require_same_bytes(slurp(path), data);
      {
        FaultGuard guard({fi::Rule{fi::Op::kRead, "eintr", 0, EINTR, 0, 50}});
        File file = open_file(path, OpenMode::kReadOnly, direct);
        auto got = read_stream(file, 0, data.size(), options);
        INFO(got.status().to_string());
        REQUIRE(got.has_value());
        require_same_bytes(*got, data);
        REQUIRE(fi::injected_count() == 50);
      }
    }
  }
}

TEST_CASE("Fault injection: EIO on read is a kIoError naming the file and the offset", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "eio.bin";
  const auto data = random_bytes(300001, 34);
  spit(path, data);
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine));
      FaultGuard guard({fi::Rule{fi::Op::kRead, "eio.bin", 100000, EIO, 0, -1}});
      File file = open_file(path, OpenMode::kReadOnly, direct);
      const std::size_t chunk = 16 * kKiB;
      auto reader = SequentialReader::open(file, 0, data.size(), make_options(chunk, 2, direct, engine), nullptr);
      Status error;
      std::vector<std::byte> got;
      if (!reader.has_value()) {
        error = reader.status();
      } else {
        for (;;) {
          auto chunk_or = (*reader)->next();
          if (!chunk_or.has_value()) {
            error = chunk_or.status();
            break;
          }
          if (chunk_or->empty()) break;
          got.insert(got.end(), chunk_or->begin(), chunk_or->end());
        }
      }
      INFO(error.to_string());
      REQUIRE(error.code() == StatusCode::kIoError);
      REQUIRE(contains(error.message(), path.string()));
      REQUIRE(contains(error.message(), "offset"));
      REQUIRE(contains(error.message(), std::strerror(EIO)));
      // What came before the error was correct.
      REQUIRE(got.size() < data.size());
      require_same_bytes(got, std::span<const std::byte>(data.data(), got.size()));
    }
  }
  // File::read_at reports the offset of the failing request.
  FaultGuard guard({fi::Rule{fi::Op::kRead, "eio.bin", 0, EIO, 0, -1}});
  File file = open_file(path, OpenMode::kReadOnly, false);
  std::vector<std::byte> buf(100);
  auto n = file.read_at(777, buf);
  REQUIRE_FALSE(n.has_value());
  REQUIRE(n.status().code() == StatusCode::kIoError);
  REQUIRE(contains(n.status().message(), path.string()));
  REQUIRE(contains(n.status().message(), "offset 777"));
}

TEST_CASE("SequentialReader: after a read error, later calls report it again instead of skipping data", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "sticky.bin";
  const auto data = random_bytes(40 * 4096, 35);
  spit(path, data);
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine));
      File file = open_file(path, OpenMode::kReadOnly, direct);
      auto reader = SequentialReader::open(file, 0, data.size(), make_options(4096, 4, direct, engine), nullptr);
      REQUIRE(reader.has_value());
      auto first = (*reader)->next();
      REQUIRE(first.has_value());
      REQUIRE(first->size() == 4096);
      Status error;
      {
        // Fail exactly one request (the retry of a short read counts as a request too, so cut
        // nothing): the failure is transient.
        FaultGuard guard({fi::Rule{fi::Op::kRead, "sticky", 0, EIO, 0, 1}});
        for (int i = 0; i < 40 && error.is_ok(); ++i) {
          auto chunk = (*reader)->next();
          if (!chunk.has_value()) error = chunk.status();
        }
        REQUIRE(fi::injected_count() == 1);
      }
      INFO(error.to_string());
      REQUIRE(error.code() == StatusCode::kIoError);
      // The stream cannot go on past the hole: every later call fails too.
      for (int i = 0; i < 3; ++i) {
        auto again = (*reader)->next();
        REQUIRE_FALSE(again.has_value());
        REQUIRE(again.status().code() == StatusCode::kIoError);
      }
    }
  }
}

TEST_CASE("File: a direct transfer that never makes block progress is an error, not a hang", "[io]") {
  TempDir dir;
  const auto path = dir / "stall.bin";
  const auto data = random_bytes(16 * 4096, 36);
  spit(path, data);
  File file = open_file(path, OpenMode::kReadWrite, true);
  REQUIRE(file.use_direct_io());
  FaultGuard guard({fi::Rule{fi::Op::kRead, "stall", 0, 0, 1000, -1}, fi::Rule{fi::Op::kWrite, "stall", 0, 0, 1000, -1}});
  AlignedBuffer buf(4096);
  auto n = file.read_at(4096, buf.span());
  REQUIRE_FALSE(n.has_value());
  REQUIRE(n.status().code() == StatusCode::kIoError);
  REQUIRE(contains(n.status().message(), path.string()));
  REQUIRE(contains(n.status().message(), "offset 4096"));
  const Status w = file.write_at(8192, std::span<const std::byte>(buf.data(), 4096));
  REQUIRE(w.code() == StatusCode::kIoError);
  REQUIRE(contains(w.message(), path.string()));
  REQUIRE(contains(w.message(), "offset 8192"));
}

TEST_CASE("Fault injection: ENOSPC while writing is kNoSpace naming the file, from append() or finish()", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const std::size_t chunk = 64 * kKiB;
  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine));
      const auto path = dir / (std::string("nospace-") + (direct ? "d-" : "b-") + engine_name(engine));
      const IoOptions options = make_options(chunk, 2, direct, engine);

      {  // space runs out in the middle of the stream
        FaultGuard guard({fi::Rule{fi::Op::kWrite, "nospace", 200000, ENOSPC, 0, -1}});
        File file = open_file(path, OpenMode::kCreate, direct);
        auto writer = SequentialWriter::open(file, options, nullptr);
        REQUIRE(writer.has_value());
        const auto data = random_bytes(20 * chunk, 40);
        Status error;
        for (std::size_t pos = 0; pos < data.size() && error.is_ok(); pos += 10007) {
          error = (*writer)->append(std::span<const std::byte>(data).subspan(pos, std::min<std::size_t>(10007, data.size() - pos)));
        }
        const bool from_append = !error.is_ok();
        const Status finished = (*writer)->finish();
        if (!from_append) error = finished;
        INFO(error.to_string());
        REQUIRE(error.code() == StatusCode::kNoSpace);
        REQUIRE(contains(error.message(), path.string()));
        REQUIRE(contains(error.message(), "offset"));
        // The first error sticks: finish() and later appends report it too.
        REQUIRE(finished.code() == StatusCode::kNoSpace);
        const std::byte one{1};
        REQUIRE((*writer)->append(std::span<const std::byte>(&one, 1)).code() == StatusCode::kNoSpace);
        // With 2 writes in flight, a 20-chunk stream meets the failure while appending.
        REQUIRE(from_append);
      }
      {  // space runs out on the last, partial write done by finish()
        const auto data = random_bytes(3 * chunk + 1000, 41);
        // Synchronous writes happen in order: fail the 4th. io_uring completions may be handled in
        // any order, but with 8 buffers none is handled before finish(): fail whichever comes first.
        const std::uint64_t after = engine == IoEngine::kSync ? 3 * chunk : 0;
        FaultGuard guard({fi::Rule{fi::Op::kWrite, "nospace", after, ENOSPC, 0, -1}});
        File file = open_file(path, OpenMode::kCreate, direct);
        auto writer = SequentialWriter::open(file, make_options(chunk, 8, direct, engine), nullptr);
        REQUIRE(writer.has_value());
        REQUIRE_OK((*writer)->append(data));  // 3 full chunks go out, the tail stays buffered
        const Status finished = (*writer)->finish();
        INFO(finished.to_string());
        REQUIRE(finished.code() == StatusCode::kNoSpace);
        REQUIRE(contains(finished.message(), path.string()));
        REQUIRE(fi::injected_count() >= 1);
      }
    }
  }
  {  // File::write_at
    FaultGuard guard({fi::Rule{fi::Op::kWrite, "plain", 0, ENOSPC, 0, -1}});
    File file = open_file(dir / "plain", OpenMode::kCreate, false);
    const std::byte x{7};
    const Status st = file.write_at(4242, std::span<const std::byte>(&x, 1));
    REQUIRE(st.code() == StatusCode::kNoSpace);
    REQUIRE(contains(st.message(), (dir / "plain").string()));
    REQUIRE(contains(st.message(), "offset 4242"));
  }
}

TEST_CASE("Direct I/O on tmpfs (/dev/shm): refused O_DIRECT falls back to buffered I/O", "[io]") {
  std::error_code ec;
  if (!std::filesystem::is_directory("/dev/shm", ec)) {
    WARN("/dev/shm does not exist here, so there is no tmpfs to test the O_DIRECT fallback on");
    return;
  }
  struct statfs fs {};
  REQUIRE(::statfs("/dev/shm", &fs) == 0);
  if (fs.f_type != TMPFS_MAGIC) {
    WARN("/dev/shm is not tmpfs here; skipping the O_DIRECT fallback test");
    return;
  }
  const auto dir = std::filesystem::path("/dev/shm") / ("edgestream-io-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code e;
      std::filesystem::remove_all(dir, e);
    }
  } cleanup{dir};

  // Ask the kernel directly whether this tmpfs takes O_DIRECT (Linux >= 6.6 accepts it).
  const auto probe = dir / "probe";
  const int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
  const int probe_errno = errno;
  if (fd >= 0) ::close(fd);
  const bool kernel_accepts_direct = fd >= 0;
  if (!kernel_accepts_direct) REQUIRE(probe_errno == EINVAL);

  const auto path = dir / "stream.bin";
  const auto data = random_bytes(3 * 64 * kKiB + 777, 50);
  for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
    CAPTURE(engine_name(engine), kernel_accepts_direct);
    {
      File file = open_file(path, OpenMode::kCreate, /*direct=*/true);
      if (kernel_accepts_direct) {
        // The File reflects what the kernel granted.
        REQUIRE(file.use_direct_io());
      } else {
        REQUIRE_FALSE(file.use_direct_io());
        REQUIRE(file.alignment() == 1);
      }
      REQUIRE_OK(write_stream(file, data, make_options(64 * kKiB, 2, true, engine), 51));
      REQUIRE(*file.size() == data.size());
    }
    require_same_bytes(slurp(path), data);
    File file = open_file(path, OpenMode::kReadOnly, /*direct=*/true);
    REQUIRE(file.use_direct_io() == kernel_accepts_direct);
    auto got = read_stream(file, 0, data.size(), make_options(64 * kKiB, 2, true, engine));
    INFO(got.status().to_string());
    REQUIRE(got.has_value());
    require_same_bytes(*got, data);
  }
  if (kernel_accepts_direct) {
    WARN("this kernel accepts O_DIRECT on tmpfs, so the buffered fallback of File::open could not be exercised "
         "(only that direct I/O on /dev/shm round-trips)");
  }
}

TEST_CASE("Files over 2 GiB: sparse file, data beyond 2^31 and 2^32", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "big.bin";
  const std::uint64_t two_gib = std::uint64_t{1} << 31;
  const std::uint64_t four_gib = std::uint64_t{1} << 32;
  const std::uint64_t off_a = two_gib - 4096;  // straddles 2^31
  const std::uint64_t off_b = two_gib + 64 * 4096;
  const std::uint64_t off_c = four_gib + 3 * 4096;  // beyond 2^32: extends the 3 GiB file
  const auto a = random_bytes(8192, 60);
  const auto b = random_bytes(12288, 61);
  const auto c = random_bytes(8192, 62);
  {
    File file = open_file(path, OpenMode::kCreate, true);
    REQUIRE(file.use_direct_io());
    REQUIRE_OK(file.truncate(3 * (std::uint64_t{1} << 30)));
    REQUIRE(*file.size() == 3 * (std::uint64_t{1} << 30));
    for (const auto& [off, bytes] : {std::pair{off_a, &a}, std::pair{off_b, &b}, std::pair{off_c, &c}}) {
      AlignedBuffer buf(bytes->size());
      std::memcpy(buf.data(), bytes->data(), bytes->size());
      REQUIRE_OK(file.write_at(off, std::span<const std::byte>(buf.data(), bytes->size())));
    }
    REQUIRE(*file.size() == off_c + c.size());
  }
  for (const bool direct : {true, false}) {
    File file = open_file(path, OpenMode::kReadOnly, direct);
    for (const auto& [off, bytes] : {std::pair{off_a, &a}, std::pair{off_b, &b}, std::pair{off_c, &c}}) {
      CAPTURE(direct, off);
      AlignedBuffer buf(bytes->size());
      auto n = file.read_at(off, std::span<std::byte>(buf.data(), bytes->size()));
      INFO(n.status().to_string());
      REQUIRE(n.has_value());
      REQUIRE(*n == bytes->size());
      require_same_bytes(std::span<const std::byte>(buf.data(), *n), *bytes);
    }
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      CAPTURE(direct, engine_name(engine));
      // [2^31 - 4096, 2^31 + 68 * 4096): a, a hole, b.
      auto got = read_stream(file, off_a, off_b + b.size(), make_options(64 * kKiB, 2, direct, engine));
      INFO(got.status().to_string());
      REQUIRE(got.has_value());
      std::vector<std::byte> want(off_b + b.size() - off_a, std::byte{0});
      std::memcpy(want.data(), a.data(), a.size());
      std::memcpy(want.data() + (off_b - off_a), b.data(), b.size());
      require_same_bytes(*got, want);
      // [2^32, end): a hole then c.
      auto tail = read_stream(file, four_gib, off_c + c.size(), make_options(4 * kKiB, 8, direct, engine));
      INFO(tail.status().to_string());
      REQUIRE(tail.has_value());
      std::vector<std::byte> want_tail(off_c + c.size() - four_gib, std::byte{0});
      std::memcpy(want_tail.data() + (off_c - four_gib), c.data(), c.size());
      require_same_bytes(*tail, want_tail);
    }
  }
}

TEST_CASE("File::open of a missing file is kNotFound naming the path", "[io]") {
  TempDir dir;
  const auto path = dir / "no-such-file";
  for (const bool direct : {true, false}) {
    for (const OpenMode mode : {OpenMode::kReadOnly, OpenMode::kReadWrite}) {
      CAPTURE(direct, static_cast<int>(mode));
      auto f = File::open(path, mode, direct);
      REQUIRE_FALSE(f.has_value());
      REQUIRE(f.status().code() == StatusCode::kNotFound);
      REQUIRE(contains(f.status().message(), path.string()));
      REQUIRE_FALSE(std::filesystem::exists(path));  // and it was not created
    }
  }
  // A missing directory is reported the same way, for kCreate too.
  auto f = File::open(dir / "missing-dir" / "x", OpenMode::kCreate, true);
  REQUIRE_FALSE(f.has_value());
  REQUIRE(f.status().code() == StatusCode::kNotFound);
  REQUIRE(contains(f.status().message(), (dir / "missing-dir" / "x").string()));
}

TEST_CASE("Opening read-only never modifies the file; kReadWrite keeps and kCreate truncates it", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "input.bin";
  const auto data = random_bytes(100003, 70);
  spit(path, data);
  struct stat before {};
  REQUIRE(::stat(path.c_str(), &before) == 0);
  ::usleep(20000);  // a later write would get a visibly later mtime

  for (const bool direct : {true, false}) {
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      File file = open_file(path, OpenMode::kReadOnly, direct);
      auto got = read_stream(file, 0, data.size(), make_options(16 * kKiB, 4, direct, engine));
      REQUIRE(got.has_value());
      AlignedBuffer buf(8192);
      REQUIRE(file.read_at(4096, buf.span()).has_value());
      // Writing through a read-only File fails and changes nothing.
      const Status st = file.write_at(0, std::span<const std::byte>(buf.data(), 4096));
      REQUIRE_FALSE(st.is_ok());
      REQUIRE(contains(st.message(), path.string()));
      REQUIRE_FALSE(file.truncate(0).is_ok());
    }
  }
  struct stat after {};
  REQUIRE(::stat(path.c_str(), &after) == 0);
  REQUIRE(after.st_size == before.st_size);
  REQUIRE(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
  REQUIRE(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
  require_same_bytes(slurp(path), data);

  {
    File rw = open_file(path, OpenMode::kReadWrite, false);
    REQUIRE(*rw.size() == data.size());  // not truncated
  }
  {
    File created = open_file(path, OpenMode::kCreate, false);
    REQUIRE(*created.size() == 0);  // truncated
  }
}

namespace {

// Streams `extents` through a SequentialReader, checking every chunk: at most read_chunk bytes,
// inside one extent, offset() where the concatenation says it starts, remaining() counting down to
// 0. Returns the concatenated bytes.
Expected<std::vector<std::byte>> read_extents(const File& file, const std::vector<ByteExtent>& extents,
                                              const IoOptions& options, IoCounters* counters = nullptr) {
  ES_ASSIGN_OR_RETURN(auto reader, SequentialReader::open(file, extents, options, counters));
  std::uint64_t total = 0;
  for (const ByteExtent& e : extents) total += e.end - e.begin;
  if (reader->remaining() != total) return internal_error("remaining() before the first chunk is wrong");
  std::vector<std::byte> out;
  std::size_t extent = 0;      // the extent the next expected byte lies in
  std::uint64_t at = extents.empty() ? 0 : extents[0].begin;  // the file offset of that byte
  for (int guard = 0;; ++guard) {
    if (guard > 100000) return internal_error("next() never reaches the end");
    ES_ASSIGN_OR_RETURN(std::span<const std::byte> chunk, reader->next());
    if (chunk.empty()) break;
    if (extent < extents.size() && at == extents[extent].end && ++extent < extents.size()) at = extents[extent].begin;
    if (extent >= extents.size()) return internal_error("a chunk after the last extent");
    if (chunk.size() > options.read_chunk) return internal_error("a chunk is larger than read_chunk");
    if (reader->offset() != at) {
      return internal_error("offset() is " + std::to_string(reader->offset()) + ", expected " + std::to_string(at));
    }
    if (at + chunk.size() > extents[extent].end) {
      return internal_error("the chunk at " + std::to_string(at) + " of " + std::to_string(chunk.size()) +
                            " bytes crosses the end of its extent " + std::to_string(extents[extent].end));
    }
    out.insert(out.end(), chunk.begin(), chunk.end());
    at += chunk.size();
    if (reader->remaining() != total - out.size()) return internal_error("remaining() is wrong");
  }
  if (out.size() != total || reader->remaining() != 0) return internal_error("the stream ended early");
  ES_ASSIGN_OR_RETURN(std::span<const std::byte> again, reader->next());
  if (!again.empty()) return internal_error("next() returned data after the end");
  return out;
}

std::vector<std::byte> extent_bytes(const std::vector<std::byte>& data, const std::vector<ByteExtent>& extents) {
  std::vector<std::byte> out;
  for (const ByteExtent& e : extents) {
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(e.begin), data.begin() + static_cast<std::ptrdiff_t>(e.end));
  }
  return out;
}

}  // namespace

// Extent lists (fixed and random) over direct/buffered x uring/sync x chunk x depth give exactly
// the selected bytes, each chunk inside one extent at offset(), and count every byte read.
TEST_CASE("SequentialReader over extent lists: unaligned, short, long, adjacent and to the end of file", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "extents.bin";
  const std::uint64_t size = 300007;
  const auto data = random_bytes(size, 80);
  spit(path, data);
  std::vector<std::vector<ByteExtent>> lists = {
      // Unaligned begins and ends, a one-byte extent adjacent to the one before, a two-byte one across
      // a block edge, one spanning many chunks, adjacent ones, and the last reaching the end of file.
      {{100, 5000}, {5000, 5001}, {8191, 8193}, {12288, 70000}, {70001, 150000}, {150000, 150001}, {299000, size}},
      {{0, size}},
      {{4095, 4097}},
      {{size - 1, size}},
      {{4096, 8192}, {16384, 16385}, {20480, 20480 + 3 * 16384}},  // aligned ones
      {{1, 2}, {2, 3}, {3, 4096 * 3 + 1}, {4096 * 3 + 1, 4096 * 9 - 1}},  // a chain of adjacent extents
      {},  // no extents: an empty stream
  };
  // Random lists: up to 25 extents of 1 byte to ~70 KiB with gaps of 0 (adjacent) to ~12 KiB.
  std::mt19937_64 rng(81);
  for (int r = 0; r < 4; ++r) {
    std::vector<ByteExtent> list;
    std::uint64_t at = rng() % 5000;
    for (int i = 0; i < 25 && at < size; ++i) {
      const std::uint64_t len = rng() % 3 == 0 ? 1 + rng() % 300 : 1 + rng() % 70000;
      const std::uint64_t end = std::min(size, at + len);
      list.push_back({at, end});
      at = end + (rng() % 2 == 0 ? 0 : rng() % 12000);
    }
    lists.push_back(list);
  }
  for (const bool direct : {true, false}) {
    File file = open_file(path, OpenMode::kReadOnly, direct);
    REQUIRE(file.use_direct_io() == direct);
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      for (const std::size_t chunk : {4 * kKiB, 16 * kKiB}) {
        for (const unsigned depth : {1U, 3U}) {
          const IoOptions options = make_options(chunk, depth, direct, engine);
          for (std::size_t l = 0; l < lists.size(); ++l) {
            CAPTURE(direct, engine_name(engine), chunk, depth, l);
            IoCounters counters;
            auto got = read_extents(file, lists[l], options, &counters);
            INFO(got.status().to_string());
            REQUIRE(got.has_value());
            const auto want = extent_bytes(data, lists[l]);
            require_same_bytes(*got, want);
            REQUIRE(counters.bytes_read == want.size());
          }
        }
      }
    }
  }
}

// Empty, backwards, overlapping and decreasing extents are kInvalidArgument naming the file; an
// extent past the end of file is an error naming it (never a short stream or a hang).
TEST_CASE("SequentialReader rejects bad extent lists and reports extents past the end of file", "[io]") {
  warn_if_no_uring();
  TempDir dir;
  const auto path = dir / "bad-extents.bin";
  const std::uint64_t size = 50001;
  const auto data = random_bytes(size, 82);
  spit(path, data);
  const std::vector<std::vector<ByteExtent>> bad = {
      {{10, 10}},                          // empty
      {{200, 100}},                        // backwards
      {{0, 100}, {50, 200}},               // overlapping
      {{0, 100}, {99, 200}},               // overlapping by one byte
      {{1000, 2000}, {0, 100}},            // decreasing
      {{0, 100}, {200, 300}, {300, 300}},  // an empty one after good ones
      {{0, 4096}, {0, 4096}},              // the same twice
  };
  // Past the end: partly (crossing EOF), wholly, and after a good extent; unaligned and aligned.
  const std::vector<std::vector<ByteExtent>> past_eof = {
      {{size - 100, size + 1}},
      {{49152, 57344}},
      {{size + 5000, size + 9000}},
      {{100, 200}, {300, 40000}, {size - 10, size + 70000}},
      {{0, size + 100000}},
  };
  for (const bool direct : {true, false}) {
    File file = open_file(path, OpenMode::kReadOnly, direct);
    for (const IoEngine engine : {IoEngine::kUring, IoEngine::kSync}) {
      const IoOptions options = make_options(8 * kKiB, 2, direct, engine);
      for (std::size_t l = 0; l < bad.size(); ++l) {
        CAPTURE(direct, engine_name(engine), l);
        auto reader = SequentialReader::open(file, bad[l], options, nullptr);
        REQUIRE_FALSE(reader.has_value());
        REQUIRE(reader.status().code() == StatusCode::kInvalidArgument);
        REQUIRE(contains(reader.status().message(), path.string()));
      }
      for (std::size_t l = 0; l < past_eof.size(); ++l) {
        CAPTURE(direct, engine_name(engine), l);
        // Either open() refuses it or next() reports it: never a short stream, a crash or a hang.
        auto got = read_extents(file, past_eof[l], options);
        REQUIRE_FALSE(got.has_value());
        INFO(got.status().to_string());
        REQUIRE(got.status().code() != StatusCode::kInternal);  // not one of read_extents' own checks
        REQUIRE(contains(got.status().message(), path.string()));
      }
    }
  }
}
