// splitmix64's mixing function (Steele, Lea & Flood, "Fast splittable pseudorandom number
// generators", 2014): a fixed bijection of 64-bit words whose output bits each depend on every input
// bit. One definition for the hashes that need a well-mixed function of an id: HyperANF's vertex
// hash, ALS's initial factors, ingest's random weights, the engine's symmetric-input check.
#pragma once

#include <cstdint>

namespace edgestream {

/// The finaliser: mixes x (mix64(0) == 0).
inline std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// splitmix64's output for state x: the golden-ratio increment, then the finaliser.
inline std::uint64_t splitmix64(std::uint64_t x) { return mix64(x + 0x9E3779B97F4A7C15ULL); }

}  // namespace edgestream
