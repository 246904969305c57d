// Streams the lines of a text input that may be plain, gzip-compressed (detected from the bytes, not
// the name) or standard input ("-"), in bounded memory. A gzip stream that ends early (truncated
// download) is an error, not end of input (GAPBS #26). Lines longer than a cap are returned cut, with
// a flag, so one huge line cannot exhaust memory.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/status.hpp"

namespace edgestream {

class LineReader {
 public:
  /// Opens `path` ("-" = standard input) for reading; never writes to it.
  /// `max_line_bytes`: longer lines are returned cut to this length with `too_long` set.
  static Expected<LineReader> open(const std::string& path, std::size_t max_line_bytes = 1 << 20);
  LineReader(LineReader&& other) noexcept;
  LineReader& operator=(LineReader&&) = delete;
  LineReader(const LineReader&) = delete;
  ~LineReader();

  struct Line {
    std::string_view text;  // without '\n' (a '\r' before it is kept); valid until the next call
    bool too_long = false;  // the line was longer than max_line_bytes and was cut
  };
  /// The next line; false at the end of the input. A read or decompression error is a Status that
  /// names the file and the line number reached.
  Expected<bool> next(Line& line);

  const std::string& path() const { return path_; }
  std::uint64_t line_number() const { return line_number_; }
  /// Uncompressed bytes consumed so far.
  std::uint64_t bytes_read() const { return bytes_; }
  /// Input size in bytes when it is a regular file (compressed size for .gz), else 0.
  std::uint64_t file_size() const { return file_size_; }
  /// Compressed bytes consumed so far (for progress against file_size()).
  std::uint64_t raw_offset() const;

 private:
  LineReader(std::string path, gzFile gz, std::size_t max_line_bytes, std::uint64_t file_size);
  Status fill();

  std::string path_;
  gzFile gz_ = nullptr;
  std::size_t max_line_;
  std::uint64_t file_size_ = 0;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // unread data in buffer_[begin_, end_)
  std::size_t end_ = 0;
  bool eof_ = false;
  std::string long_line_;  // assembly area for a line that spans buffer refills
  std::uint64_t line_number_ = 0;
  std::uint64_t bytes_ = 0;
  std::string pending_error_;  // an error found after some bytes were decoded, reported at the next fill()
};

}  // namespace edgestream
