// EdgeRecordWriter / EdgeRecordReader over stdio (see edge_record_file.hpp).
#include "utils/edge_record_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "compress/frame.hpp"

namespace edgestream {

Expected<EdgeRecordWriter> EdgeRecordWriter::create(const std::filesystem::path& path, EdgeFileType type,
                                                    std::size_t buffer_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wbe");
  if (f == nullptr) return errno_status(errno, "create", path.string());
  std::vector<char> buffer(buffer_bytes);
  std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
  return EdgeRecordWriter(f, path, type, std::move(buffer));
}

Expected<EdgeRecordWriter> EdgeRecordWriter::create_framed(const std::filesystem::path& path, EdgeFileType type,
                                                           const CodecSpec& codec, std::size_t frame_bytes) {
  if (frame_bytes < 4096 || frame_bytes > (std::size_t{1} << 30)) {
    return invalid_argument("frame size " + std::to_string(frame_bytes) + " must be between 4K and 1G");
  }
  ES_ASSIGN_OR_RETURN(EdgeRecordWriter w, create(path, type));
  if (codec.enabled()) {
    w.codec_ = make_codec(for_records(codec, edge_record_size(type)));
    w.frame_.resize(frame_bytes);
    w.encoded_.resize(max_frame_bytes(*w.codec_, frame_bytes));
  }
  return w;
}

EdgeRecordWriter::EdgeRecordWriter(std::FILE* f, std::filesystem::path path, EdgeFileType type, std::vector<char> buffer)
    : file_(f), path_(std::move(path)), type_(type), buffer_(std::move(buffer)) {}

EdgeRecordWriter::EdgeRecordWriter(EdgeRecordWriter&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      path_(std::move(other.path_)),
      type_(other.type_),
      buffer_(std::move(other.buffer_)),  // moving a vector keeps its storage: stdio's buffer stays valid
      records_(other.records_),
      stored_(other.stored_),
      codec_(std::move(other.codec_)),
      frame_(std::move(other.frame_)),
      frame_fill_(other.frame_fill_),
      encoded_(std::move(other.encoded_)),
      raw_offset_(other.raw_offset_) {}

EdgeRecordWriter& EdgeRecordWriter::operator=(EdgeRecordWriter&& other) noexcept {
  if (this != &other) {
    if (file_ != nullptr) std::fclose(file_);
    file_ = std::exchange(other.file_, nullptr);
    path_ = std::move(other.path_);
    type_ = other.type_;
    buffer_ = std::move(other.buffer_);
    records_ = other.records_;
    stored_ = other.stored_;
    codec_ = std::move(other.codec_);
    frame_ = std::move(other.frame_);
    frame_fill_ = other.frame_fill_;
    encoded_ = std::move(other.encoded_);
    raw_offset_ = other.raw_offset_;
  }
  return *this;
}

EdgeRecordWriter::~EdgeRecordWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

Status EdgeRecordWriter::write(const Edge& e) {
  std::byte record[12];
  encode_edge(record, e, type_);
  const std::size_t size = edge_record_size(type_);
  if (codec_) {
    // Frames cut the byte stream anywhere (a record may span two), like the engine's streams.
    for (std::size_t done = 0; done < size;) {
      const std::size_t take = std::min(size - done, frame_.size() - frame_fill_);
      std::memcpy(frame_.data() + frame_fill_, record + done, take);
      frame_fill_ += take;
      done += take;
      if (frame_fill_ == frame_.size()) ES_RETURN_IF_ERROR(flush_frame());
    }
    ++records_;
    return Status::ok();
  }
  if (std::fwrite(record, 1, size, file_) != size) {
    return errno_status(errno, "write", path_.string(), static_cast<long long>(records_ * size));
  }
  ++records_;
  stored_ += size;
  return Status::ok();
}

Status EdgeRecordWriter::flush_frame() {
  if (frame_fill_ == 0) return Status::ok();
  ES_ASSIGN_OR_RETURN(const std::size_t n, encode_frame(*codec_, std::span<const std::byte>(frame_.data(), frame_fill_),
                                                        raw_offset_, encoded_));
  if (std::fwrite(encoded_.data(), 1, n, file_) != n) {
    return errno_status(errno, "write", path_.string(), static_cast<long long>(stored_));
  }
  raw_offset_ += frame_fill_;
  stored_ += n;
  frame_fill_ = 0;
  return Status::ok();
}

Status EdgeRecordWriter::close() {
  if (file_ == nullptr) return Status::ok();
  if (codec_) {
    if (Status s = flush_frame(); !s.is_ok()) {
      std::fclose(file_);
      file_ = nullptr;
      return s;
    }
  }
  const bool flush_failed = std::fflush(file_) != 0;
  const int flush_errno = errno;
  const bool close_failed = std::fclose(file_) != 0;
  const int close_errno = errno;
  file_ = nullptr;
  if (flush_failed) return errno_status(flush_errno, "write", path_.string());
  if (close_failed) return errno_status(close_errno, "close", path_.string());
  return Status::ok();
}

Expected<EdgeRecordReader> EdgeRecordReader::open(const std::filesystem::path& path, EdgeFileType type,
                                                  std::size_t buffer_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rbe");
  if (f == nullptr) return errno_status(errno, "open", path.string());
  std::vector<char> buffer(buffer_bytes);
  std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
  return EdgeRecordReader(f, path, type, std::move(buffer));
}

EdgeRecordReader::EdgeRecordReader(std::FILE* f, std::filesystem::path path, EdgeFileType type, std::vector<char> buffer)
    : file_(f), path_(std::move(path)), type_(type), buffer_(std::move(buffer)) {}

EdgeRecordReader::EdgeRecordReader(EdgeRecordReader&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      path_(std::move(other.path_)),
      type_(other.type_),
      buffer_(std::move(other.buffer_)),
      records_(other.records_) {}

EdgeRecordReader& EdgeRecordReader::operator=(EdgeRecordReader&& other) noexcept {
  if (this != &other) {
    if (file_ != nullptr) std::fclose(file_);
    file_ = std::exchange(other.file_, nullptr);
    path_ = std::move(other.path_);
    type_ = other.type_;
    buffer_ = std::move(other.buffer_);
    records_ = other.records_;
  }
  return *this;
}

EdgeRecordReader::~EdgeRecordReader() {
  if (file_ != nullptr) std::fclose(file_);
}

Expected<bool> EdgeRecordReader::next(Edge& e) {
  std::byte record[12];
  const std::size_t size = edge_record_size(type_);
  const std::size_t got = std::fread(record, 1, size, file_);
  if (got != size) {
    if (std::ferror(file_) != 0) return errno_status(errno, "read", path_.string(), static_cast<long long>(records_ * size));
    if (got == 0) return false;
    return corruption(path_.string() + ": partial record at the end (" + std::to_string(got) + " of " +
                      std::to_string(size) + " bytes)");
  }
  e = decode_edge(record, type_);
  ++records_;
  return true;
}

}  // namespace edgestream
