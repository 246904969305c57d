// What the codecs of one stream kind did: bytes before and after compression, frames, and the CPU
// time spent in the codecs (thread CPU time, summed over the threads that ran them).
#pragma once

#include <cstdint>

namespace edgestream {

struct CodecCounters {
  std::uint64_t raw_bytes = 0;      // written: bytes before compression
  std::uint64_t stored_bytes = 0;   // written: bytes after compression, frame headers included
  std::uint64_t frames = 0;         // frames written
  std::uint64_t raw_frames = 0;     // frames stored raw (compression saved less than 1/8, or not tried)
  std::uint64_t skipped_frames = 0; // of those, stored raw without trying (the stream's recent frames did not compress)
  std::uint64_t decoded_bytes = 0;  // read: bytes after decoding
  std::uint64_t compress_ns = 0;    // CPU time compressing (and checksumming) frames
  std::uint64_t decompress_ns = 0;  // CPU time checking and decoding frames

  CodecCounters& operator+=(const CodecCounters& o) {
    raw_bytes += o.raw_bytes;
    stored_bytes += o.stored_bytes;
    frames += o.frames;
    raw_frames += o.raw_frames;
    skipped_frames += o.skipped_frames;
    decoded_bytes += o.decoded_bytes;
    compress_ns += o.compress_ns;
    decompress_ns += o.decompress_ns;
    return *this;
  }
  /// raw / stored (1 when nothing was written).
  double ratio() const { return stored_bytes == 0 ? 1.0 : static_cast<double>(raw_bytes) / static_cast<double>(stored_bytes); }
};

}  // namespace edgestream
