#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "ferry/framework/cancellation.h"

namespace ferry {

using Attachments = std::map<std::string, std::string>;

struct CallOptions {
  // Whole budget of the call; zero means the channel's default timeout.
  std::chrono::milliseconds timeout{0};
  // Carried to the server's ServerContext::attachments().
  Attachments attachments;
  // Caller's id of the logical call, carried to ServerContext::request_id() and kept across
  // retries; zero means none. It is not the wire request id, which the connection assigns.
  uint64_t request_id = 0;
  // W3C trace context (docs/http.md, "Tracing"). Empty, or anything but 32 lowercase hex digits
  // not all zero: a new trace id is generated for the call. A call made while another is being
  // served inherits that call's trace, its span as the parent and its sampled flag (CallScope).
  std::string trace_id;
  std::string parent_span_id;
  bool sampled = true;
  // Credentials for the server's auth filter; normally set by the client's auth filter.
  std::string auth_token;
  // Key for consistent-hash balancing; when absent the balancer hashes a request field.
  std::optional<uint64_t> hash_key;
  // Set to be able to give the call up later (Cancellation::Cancel); it must stay valid until
  // the call completes. The async forms of generated proxies set their own and return it in
  // their handle.
  Cancellation* cancellation = nullptr;
};

}  // namespace ferry
