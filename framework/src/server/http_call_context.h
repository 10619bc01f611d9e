#pragma once

#include <cstdint>

#include "ferry/codec/status.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/http.h"
#include "ferry/framework/server_context.h"

namespace ferry::server {

class ServerConnection;

// A budget beyond a year is no deadline at all, and would overflow the clock arithmetic.
constexpr uint64_t kMaxCallTimeoutUs = uint64_t{365} * 24 * 3600 * 1000 * 1000;

// What a call made over HTTP (the JSON gateway, a route) tells its filters and handler: the
// peer, the client behind a trusted proxy, the deadline (X-Ferry-Timeout-Ms), the trace
// (traceparent), the call id (X-Ferry-Call-Id), the bearer token and the X-Ferry-Attachment-*
// headers. Service and method are the caller's to set. `*framing` is how the request travels,
// for the filters' OnAdmit: a JSON body, uncompressed, answered, within X-Ferry-Timeout-Ms.
class HttpCallContext {
 public:
  // INVALID_ARGUMENT for a malformed X-Ferry-Timeout-Ms or X-Ferry-Call-Id.
  static Status Fill(const HttpRequest& request, const ServerConnection& connection,
                     ServerContext::Clock::time_point received, ServerContext* context,
                     RequestFraming* framing);
};

}  // namespace ferry::server
