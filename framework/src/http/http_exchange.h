#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ferry/framework/http.h"

namespace ferry::http {

// One request a session serves: what was parsed, owned, and the HttpRequest view of it that
// handlers get. Lives until the request is answered.
class HttpExchange {
 public:
  struct Parsed {
    std::string method;
    std::string target;  // path and query, as sent
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    bool keep_alive = true;
    unsigned version = 11;  // 10 or 11
  };
  // Where the request came from. The views are the connection's, which outlives the exchange.
  struct Origin {
    std::string_view peer;           // "ip:port"
    std::string_view peer_identity;  // the TLS client certificate's CN, "" without one
    std::string_view peer_address;   // the peer's IP address
    // The client a trusted proxy forwarded for (ForwardedClient); empty: the peer is.
    std::string forwarded_client;
  };

  HttpExchange(uint64_t id, Parsed parsed, Origin origin);

  uint64_t id() const { return id_; }
  const HttpRequest& request() const { return request_; }
  bool keep_alive() const { return parsed_.keep_alive; }
  unsigned version() const { return parsed_.version; }
  bool head() const { return parsed_.method == "HEAD"; }
  // The memory its body holds, against server.limits.max_buffered_bytes.
  size_t body_capacity() const { return parsed_.body.capacity(); }
  void SetParams(std::vector<std::pair<std::string_view, std::string_view>> params) {
    request_.params_ = std::move(params);
  }

 private:
  const uint64_t id_;
  const Parsed parsed_;
  const std::string forwarded_client_;
  HttpRequest request_;
};

}  // namespace ferry::http
