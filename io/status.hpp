// Errors as values: Status (ok or an error with a code and a message) and Expected<T> (a value or a
// Status). Everything below main() returns these; only main() decides to print and exit.
#pragma once

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace edgestream {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad option value or bad call
  kNotFound,         // missing file
  kIoError,          // a system call failed (errno text in the message)
  kNoSpace,          // ENOSPC / EDQUOT / EFBIG while writing
  kCorruption,       // data on storage is not what it should be
  kBadInput,         // the user's graph or text is malformed
  kResourceExhausted,// memory budget too small, etc.
  kCancelled,        // SIGINT/SIGTERM asked the run to stop
  kUnsupported,      // the environment cannot do this (no O_DIRECT, no io_uring, ...)
  kInternal,
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  /// "code: message", for printing.
  std::string to_string() const;
  /// Returns a copy whose message is "context: message".
  Status with_context(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

Status invalid_argument(std::string message);
Status bad_input(std::string message);
Status corruption(std::string message);
Status not_found(std::string message);
Status resource_exhausted(std::string message);
Status internal_error(std::string message);
/// An error from errno `err` about `operation` on `path` (at `offset` when >= 0), e.g.
/// "write /x/updates.3 at offset 4096: No space left on device". ENOSPC/EDQUOT/EFBIG give kNoSpace.
Status errno_status(int err, const std::string& operation, const std::string& path, long long offset = -1);

/// A value of type T or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : data_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Expected(Status status) : data_(std::move(status)) {}     // NOLINT(google-explicit-constructor)

  bool has_value() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  /// The error; Status::ok() when a value is held.
  Status status() const { return has_value() ? Status::ok() : std::get<Status>(data_); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace edgestream

/// Propagates a non-ok Status to the caller.
#define ES_RETURN_IF_ERROR(expr)                  \
  do {                                            \
    ::edgestream::Status es_status_ = (expr);     \
    if (!es_status_.is_ok()) return es_status_;   \
  } while (0)

#define ES_CONCAT_INNER_(a, b) a##b
#define ES_CONCAT_(a, b) ES_CONCAT_INNER_(a, b)
/// `ES_ASSIGN_OR_RETURN(auto x, f());` binds the value or returns the error.
#define ES_ASSIGN_OR_RETURN(lhs, expr) ES_ASSIGN_OR_RETURN_IMPL_(ES_CONCAT_(es_expected_, __LINE__), lhs, expr)
#define ES_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.has_value()) return tmp.status();      \
  lhs = std::move(tmp).value()
