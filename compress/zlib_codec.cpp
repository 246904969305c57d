// ZlibCodec: one-shot deflate/inflate of a chunk (chunks are at most a few MiB, well within uInt).
#include "compress/zlib_codec.hpp"

#include <zlib.h>

#include <limits>
#include <string>

namespace edgestream {

std::size_t ZlibCodec::max_compressed_length(std::size_t raw_length) const {
  return static_cast<std::size_t>(compressBound(static_cast<uLong>(raw_length)));
}

Expected<std::size_t> ZlibCodec::compress(std::span<const std::byte> raw, std::span<std::byte> out) const {
  if (raw.size() > std::numeric_limits<uInt>::max() / 2) return invalid_argument("zlib: chunk too large");
  uLongf length = static_cast<uLongf>(out.size());
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &length, reinterpret_cast<const Bytef*>(raw.data()),
                           static_cast<uLong>(raw.size()), level_);
  if (rc != Z_OK) return internal_error("zlib compress2 failed with code " + std::to_string(rc));
  return static_cast<std::size_t>(length);
}

Status ZlibCodec::decompress(std::span<const std::byte> stored, std::span<std::byte> out) const {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return internal_error("zlib inflateInit failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(stored.data()));
  zs.avail_in = static_cast<uInt>(stored.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&zs, Z_FINISH);
  const std::size_t produced = out.size() - zs.avail_out;
  const bool all_input = zs.avail_in == 0;
  const std::string message = zs.msg != nullptr ? zs.msg : "code " + std::to_string(rc);
  inflateEnd(&zs);
  if (rc == Z_STREAM_END && produced == out.size() && all_input) return Status::ok();
  if (rc == Z_STREAM_END) {
    return corruption("zlib chunk decodes to " + std::to_string(produced) + " bytes (expected " +
                      std::to_string(out.size()) + ")" + (all_input ? "" : " with input left over"));
  }
  return corruption(std::string("zlib decoder error: ") +
                    (rc == Z_BUF_ERROR ? "more data than expected or truncated input"
                                       : message));
}

}  // namespace edgestream
