// Striping one logical stream over several volumes (RAID-0 at chunk granularity): the stream's
// bytes are cut into stripes of `unit` bytes; stripe i lives on member (i mod n) of the layout, at
// offset (i div n) * unit in that member's file. Each member is an ordinary File on its own volume
// (direct I/O or the buffered fallback, decided per member) with that volume's request sizes and
// queue depth, and the volume's byte counters. File::open_striped builds a File over a layout;
// SequentialReader/SequentialWriter then map every request to (member file, member offset) through
// File::segment() and keep up to each member's depth in flight, so a single stream being read or
// written keeps every volume of its layout busy.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "io/io_options.hpp"

namespace edgestream {

class File;

/// Traffic of one volume, summed over every stream striped onto it (updated from any thread).
struct VolumeCounters {
  std::atomic<std::uint64_t> bytes_read{0};
  std::atomic<std::uint64_t> bytes_written{0};
  std::atomic<std::uint64_t> requests{0};
  // Asynchronous requests: on each submission the number of the submitting stream's requests then
  // in flight on this volume (the new one included) is added to in_flight_sum, so
  // in_flight_sum / async_requests is the mean queue depth a stream kept on this volume.
  std::atomic<std::uint64_t> async_requests{0};
  std::atomic<std::uint64_t> in_flight_sum{0};
  std::atomic<std::uint64_t> max_in_flight{0};

  void note_submit(unsigned in_flight) {
    async_requests.fetch_add(1, std::memory_order_relaxed);
    in_flight_sum.fetch_add(in_flight, std::memory_order_relaxed);
    std::uint64_t seen = max_in_flight.load(std::memory_order_relaxed);
    while (in_flight > seen && !max_in_flight.compare_exchange_weak(seen, in_flight, std::memory_order_relaxed)) {
    }
  }
};

/// One member of a striped stream: its file, the volume's request sizes and depth, its counters.
struct StripeMember {
  std::filesystem::path path;
  IoOptions io;                         // read_chunk, write_chunk, depth of this volume
  VolumeCounters* counters = nullptr;  // the volume's counters (may be null); must outlive the file
};

struct StripeLayout {
  std::vector<StripeMember> members;  // at least one; stripe i is on members[i % size]
  std::uint64_t unit = 0;             // stripe size: a positive multiple of kIoAlignment
};

/// Where logical offset `offset` lives: member index, offset in that member's file, and how many
/// logical bytes from there stay contiguous in that member (to the end of the stripe).
struct StripeLocation {
  std::size_t member;
  std::uint64_t member_offset;
  std::uint64_t contiguous;
};
StripeLocation locate_stripe(std::uint64_t offset, std::size_t members, std::uint64_t unit);

/// Length of member `member`'s file when the logical stream is `logical_size` bytes long.
std::uint64_t stripe_member_length(std::uint64_t logical_size, std::size_t member, std::size_t members,
                                   std::uint64_t unit);

/// The members of a striped File (owned by it; see File::open_striped).
struct Stripes {
  std::vector<File> files;
  std::vector<IoOptions> io;
  std::vector<VolumeCounters*> counters;
  std::uint64_t unit = 0;
};

}  // namespace edgestream
