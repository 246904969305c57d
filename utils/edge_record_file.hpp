// Buffered sequential reading and writing of packed edge records (type 1: 12 B, type 2: 8 B; see
// io/graph_format.hpp) through stdio, for the ingest tool's output, spill and sorted-run files. These
// are small tool-side streams (not the engine's direct-I/O path); every failure is a Status naming
// the file.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "compress/codec.hpp"
#include "io/graph_format.hpp"

namespace edgestream {

class EdgeRecordWriter {
 public:
  /// Creates (truncates) `path`. `buffer_bytes` of stdio buffer.
  static Expected<EdgeRecordWriter> create(const std::filesystem::path& path, EdgeFileType type,
                                           std::size_t buffer_bytes = 1 << 20);
  /// Creates `path` holding framed chunks (compress/frame.hpp) of `frame_bytes` raw bytes each,
  /// compressed with `codec` (a compressed input graph, docs/ingest.md); codec none = raw records.
  static Expected<EdgeRecordWriter> create_framed(const std::filesystem::path& path, EdgeFileType type,
                                                  const CodecSpec& codec, std::size_t frame_bytes);
  EdgeRecordWriter(EdgeRecordWriter&& other) noexcept;
  EdgeRecordWriter& operator=(EdgeRecordWriter&& other) noexcept;
  EdgeRecordWriter(const EdgeRecordWriter&) = delete;
  ~EdgeRecordWriter();  // closes without reporting: call close() to see errors

  Status write(const Edge& e);
  /// Flushes and closes; reports any write error (ENOSPC, ...).
  Status close();
  std::uint64_t records() const { return records_; }
  /// Bytes in the file after close() (frames with headers when framed).
  std::uint64_t stored_bytes() const { return stored_; }

 private:
  EdgeRecordWriter(std::FILE* f, std::filesystem::path path, EdgeFileType type, std::vector<char> buffer);
  Status flush_frame();
  std::FILE* file_ = nullptr;
  std::filesystem::path path_;
  EdgeFileType type_ = EdgeFileType::kWeighted;
  std::vector<char> buffer_;
  std::uint64_t records_ = 0;
  std::uint64_t stored_ = 0;
  std::unique_ptr<Codec> codec_;  // framed output when set
  std::vector<std::byte> frame_;  // raw bytes of the frame being filled (capacity = frame size)
  std::size_t frame_fill_ = 0;
  std::vector<std::byte> encoded_;
  std::uint64_t raw_offset_ = 0;
};

class EdgeRecordReader {
 public:
  static Expected<EdgeRecordReader> open(const std::filesystem::path& path, EdgeFileType type,
                                         std::size_t buffer_bytes = 1 << 20);
  EdgeRecordReader(EdgeRecordReader&& other) noexcept;
  EdgeRecordReader& operator=(EdgeRecordReader&& other) noexcept;
  EdgeRecordReader(const EdgeRecordReader&) = delete;
  ~EdgeRecordReader();

  /// The next record into `e`; false at end of file. A partial trailing record or a read error is an error.
  Expected<bool> next(Edge& e);

 private:
  EdgeRecordReader(std::FILE* f, std::filesystem::path path, EdgeFileType type, std::vector<char> buffer);
  std::FILE* file_ = nullptr;
  std::filesystem::path path_;
  EdgeFileType type_ = EdgeFileType::kWeighted;
  std::vector<char> buffer_;
  std::uint64_t records_ = 0;
};

}  // namespace edgestream
