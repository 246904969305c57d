// Writes --output: one text line per vertex in id order, "vertex<TAB>value[<TAB>value...]".
// The file is written under a temporary name and renamed into place by commit(), so an interrupted
// or failed run never leaves a partial output file under the requested name.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "io/status.hpp"

namespace edgestream {

class VertexOutput {
 public:
  VertexOutput() = default;
  VertexOutput(const VertexOutput&) = delete;
  VertexOutput& operator=(const VertexOutput&) = delete;
  ~VertexOutput();

  /// Opens "<path>.tmp-<pid>" for writing. An empty path makes every call a no-op.
  Status open(const std::filesystem::path& path);
  bool active() const { return file_ != nullptr; }

  /// Starts a line with the vertex id; add values, then end_line().
  void begin_line(std::uint64_t vertex);
  void add(std::int64_t value);
  void add_unsigned(std::uint64_t value);
  /// %.9g (round-trips a float); "inf"/"-inf"/"nan" for non-finite values.
  void add(float value);
  void add(double value);
  void end_line();

  /// Flushes, closes and renames into place.
  Status commit();
  /// Closes and deletes the temporary file (also done by the destructor if not committed).
  void abandon();

 private:
  static constexpr std::size_t kBufferBytes = std::size_t{1} << 20;  // the file's stdio buffer
  std::unique_ptr<char[]> buffer_;  // kBufferBytes, from open() (outlives file_: closed first)
  std::FILE* file_ = nullptr;
  std::filesystem::path path_;
  std::filesystem::path tmp_path_;
  char line_[256];
  std::size_t length_ = 0;
  int injected_error_ = 0;  // an errno from io/fault_injection (tests), reported by commit()
};

}  // namespace edgestream
