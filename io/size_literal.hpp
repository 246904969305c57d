// Parsing of user-given sizes and counts: "268435456", "256M", "8G", "64K", "1T" (powers of 1024;
// an optional trailing "B" or "iB" is accepted: "256MiB"). Negative numbers, fractions, garbage and
// overflow are errors that name the option.
#pragma once

#include <cstdint>
#include <string>

#include "io/status.hpp"

namespace edgestream {

/// A byte size with an optional K/M/G/T suffix.
Expected<std::uint64_t> parse_size(const std::string& option, const std::string& text);
/// A plain non-negative integer (no suffix).
Expected<std::uint64_t> parse_count(const std::string& option, const std::string& text);

}  // namespace edgestream
