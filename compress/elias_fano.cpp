// Elias-Fano encoding; see elias_fano.hpp.
#include "compress/elias_fano.hpp"

#include <algorithm>

namespace edgestream {

EliasFanoLayout elias_fano_layout(std::uint64_t n, std::uint32_t range, unsigned low_bits) {
  EliasFanoLayout layout;
  layout.low_bits = low_bits;
  layout.low_bytes = static_cast<std::size_t>((n * low_bits + 7) / 8);
  layout.bytes = layout.low_bytes + static_cast<std::size_t>((n + (range >> low_bits) + 7) / 8);
  return layout;
}

EliasFanoLayout elias_fano_layout(std::uint64_t n, std::uint32_t range) {
  // The bits are convex in low_bits with the minimum near log2(range / n); with the rounding to
  // whole bytes, trying every width is simplest (32 evaluations per piece of thousands of values).
  EliasFanoLayout best = elias_fano_layout(n, range, 0);
  for (unsigned bits = 1; bits < 32; ++bits) {
    const EliasFanoLayout other = elias_fano_layout(n, range, bits);
    if (other.bytes < best.bytes) best = other;
  }
  return best;
}

void elias_fano_encode(std::span<const std::uint32_t> values, const EliasFanoLayout& layout, std::span<std::byte> out) {
  std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(layout.bytes), std::byte{0});
  if (values.empty()) return;
  const std::uint32_t first = values[0];
  const unsigned low_bits = layout.low_bits;
  const std::uint32_t mask = low_bits == 0 ? 0 : static_cast<std::uint32_t>((std::uint64_t{1} << low_bits) - 1);
  std::byte* low = out.data();
  std::byte* high = out.data() + layout.low_bytes;
  std::uint64_t pending = 0;  // low bits not yet written, `filled` of them
  unsigned filled = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint32_t value = values[i] - first;
    if (low_bits > 0) {
      pending |= std::uint64_t{value & mask} << filled;
      filled += low_bits;
      while (filled >= 8) {
        *low++ = static_cast<std::byte>(pending & 0xFF);
        pending >>= 8;
        filled -= 8;
      }
    }
    const std::uint64_t position = (std::uint64_t{value} >> low_bits) + i;
    high[position >> 3] |= static_cast<std::byte>(1U << (position & 7));
  }
  if (filled > 0) *low = static_cast<std::byte>(pending & 0xFF);
}

}  // namespace edgestream
