// Status helpers: names, formatting and errno translation.
#include "io/status.hpp"

namespace edgestream {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kNoSpace: return "no space";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kBadInput: return "bad input";
    case StatusCode::kResourceExhausted: return "resource exhausted";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(status_code_name(code_)) + ": " + message_;
}

Status Status::with_context(const std::string& context) const {
  if (is_ok()) return *this;
  return {code_, context + ": " + message_};
}

Status invalid_argument(std::string message) { return {StatusCode::kInvalidArgument, std::move(message)}; }
Status bad_input(std::string message) { return {StatusCode::kBadInput, std::move(message)}; }
Status corruption(std::string message) { return {StatusCode::kCorruption, std::move(message)}; }
Status not_found(std::string message) { return {StatusCode::kNotFound, std::move(message)}; }
Status resource_exhausted(std::string message) { return {StatusCode::kResourceExhausted, std::move(message)}; }
Status internal_error(std::string message) { return {StatusCode::kInternal, std::move(message)}; }

Status errno_status(int err, const std::string& operation, const std::string& path, long long offset) {
  std::string message = operation + " " + path;
  if (offset >= 0) message += " at offset " + std::to_string(offset);
  message += ": ";
  message += std::strerror(err);
  StatusCode code = StatusCode::kIoError;
  if (err == ENOSPC || err == EDQUOT || err == EFBIG) code = StatusCode::kNoSpace;
  if (err == ENOENT) code = StatusCode::kNotFound;
  return {code, std::move(message)};
}

}  // namespace edgestream
