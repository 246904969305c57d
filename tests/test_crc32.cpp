// [crc32]: crc32_update (compress/crc32.hpp), the checksum of every frame, grid window and spilled
// state, equals zlib's crc32 for every length, alignment and starting value, whichever path the
// CPU takes (carry-less multiply folding for >= 64 bytes where PCLMULQDQ exists, zlib otherwise),
// and continues across split points like zlib's.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "compress/crc32.hpp"
#include "compress/frame.hpp"

namespace edgestream::test {
namespace {

std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng());
  return v;
}

std::uint32_t zlib_of(std::uint32_t crc, std::span<const std::byte> bytes) {
  return static_cast<std::uint32_t>(::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

}  // namespace

TEST_CASE("crc32: the standard check value and the empty input", "[crc32]") {
  INFO("carry-less multiply path on this CPU: " << (crc32_accelerated() ? "yes" : "no"));
  constexpr std::string_view kCheck = "123456789";
  const std::span<const std::byte> check(reinterpret_cast<const std::byte*>(kCheck.data()), kCheck.size());
  CHECK(crc32_update(0, check) == 0xCBF43926U);
  CHECK(crc32_update(0, {}) == 0U);
  CHECK(crc32_update(0xDEADBEEFU, {}) == 0xDEADBEEFU);
  // 64 bytes and more take the folding path where the CPU has it: a known value there too
  // (the check string repeated, computed by zlib).
  std::vector<std::byte> repeated;
  for (int i = 0; i < 20; ++i) repeated.insert(repeated.end(), check.begin(), check.end());
  CHECK(crc32_update(0, repeated) == zlib_of(0, repeated));
}

TEST_CASE("crc32: equals zlib for every length to 1100 bytes, at every alignment, from any start value", "[crc32]") {
  const std::vector<std::byte> data = random_bytes(4096, 7);
  std::mt19937 rng(11);
  std::size_t mismatches = 0;
  std::size_t checked = 0;
  for (std::size_t length = 0; length <= 1100; ++length) {
    for (std::size_t offset = 0; offset < 16; ++offset) {
      const std::uint32_t start = (length + offset) % 3 == 0 ? 0U : static_cast<std::uint32_t>(rng());
      const auto bytes = std::span<const std::byte>(data).subspan(offset, length);
      if (crc32_update(start, bytes) != zlib_of(start, bytes)) {
        if (mismatches++ < 5) UNSCOPED_INFO("mismatch at length " << length << ", offset " << offset);
      }
      ++checked;
    }
  }
  INFO(checked << " inputs checked");
  CHECK(mismatches == 0);
}

TEST_CASE("crc32: large buffers, all-zero and all-one bytes, and frame_crc agree with zlib", "[crc32]") {
  for (const std::size_t n : {std::size_t{64}, std::size_t{4096}, std::size_t{(1U << 20) + 7}, std::size_t{(4U << 20) + 48}}) {
    INFO("length " << n);
    const std::vector<std::byte> data = random_bytes(n, n);
    CHECK(crc32_update(0, data) == zlib_of(0, data));
    CHECK(frame_crc(data) == zlib_of(0, data));
    const std::vector<std::byte> zeros(n, std::byte{0});
    CHECK(crc32_update(0, zeros) == zlib_of(0, zeros));
    const std::vector<std::byte> ones(n, std::byte{0xFF});
    CHECK(crc32_update(0x12345678U, ones) == zlib_of(0x12345678U, ones));
  }
}

TEST_CASE("crc32: continuing across any split point gives the whole buffer's checksum", "[crc32]") {
  const std::vector<std::byte> data = random_bytes(3000, 3);
  const std::span<const std::byte> all(data);
  const std::uint32_t whole = zlib_of(0, all);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    // Up to three pieces with random boundaries (pieces shorter and longer than 64 bytes).
    std::size_t a = rng() % (data.size() + 1);
    std::size_t b = rng() % (data.size() + 1);
    if (a > b) std::swap(a, b);
    std::uint32_t crc = crc32_update(0, all.subspan(0, a));
    crc = crc32_update(crc, all.subspan(a, b - a));
    crc = crc32_update(crc, all.subspan(b));
    INFO("split at " << a << " and " << b);
    CHECK(crc == whole);
  }
  CHECK(crc32_zlib(0, all) == whole);
}

}  // namespace edgestream::test
