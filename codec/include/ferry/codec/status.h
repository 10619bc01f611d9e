#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace ferry {

// Numbering follows gRPC's canonical codes so that operators can read both without a table;
// OVERLOADED is Ferry's own: the server rejected the call before running it, so a retry
// elsewhere is always safe, unlike RESOURCE_EXHAUSTED which a handler may return after work.
enum class StatusCode : uint16_t {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
  OVERLOADED = 17,
  // Ferry's own too: the server is shutting down and did not run the call, so a retry elsewhere
  // is always safe, and the provider should get no new calls (it is not unhealthy, only leaving).
  DRAINING = 18,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::OK; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "DEADLINE_EXCEEDED: call timed out after 100 ms"
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::OK;
  std::string message_;
};

std::ostream& operator<<(std::ostream& os, StatusCode code);
std::ostream& operator<<(std::ostream& os, const Status& status);

}  // namespace ferry
