#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ferry {

namespace http {
class HttpExchange;
}

// One HTTP request as a route's handler sees it. Everything in it stays valid until the handler
// answers (HttpReply); copy what it keeps longer.
class HttpRequest {
 public:
  std::string_view method() const { return method_; }  // "GET"
  std::string_view path() const { return path_; }      // "/abc", as sent (percent-encoded)
  std::string_view query() const { return query_; }    // after '?', without it; "" if none
  std::string_view body() const { return body_; }
  std::string_view peer() const { return peer_; }  // "ip:port" of the caller (the TCP peer)
  // The client's IP address, as ServerContext::client_address(): the one a trusted proxy's
  // X-Forwarded-For names (server.http.trusted_proxies), else the peer's.
  std::string_view client_address() const { return client_address_; }
  // The CN of the caller's verified TLS client certificate; "" without one (docs/tls.md).
  std::string_view peer_identity() const { return peer_identity_; }
  // The value of a header (names compare case-insensitively); "" when absent.
  std::string_view Header(std::string_view name) const;
  // Every header as (name as sent, value), in the order they came.
  const std::vector<std::pair<std::string_view, std::string_view>>& headers() const {
    return headers_;
  }
  // A named segment of the route's pattern: for `GET /{code}` and "/Ab3", Param("code") is
  // "Ab3" (as sent, percent-encoded). "" for a name the pattern does not have.
  std::string_view Param(std::string_view name) const;

 private:
  friend class http::HttpExchange;

  std::string_view method_;
  std::string_view path_;
  std::string_view query_;
  std::string_view body_;
  std::string_view peer_;
  std::string_view client_address_;
  std::string_view peer_identity_;
  std::vector<std::pair<std::string_view, std::string_view>> headers_;
  std::vector<std::pair<std::string_view, std::string_view>> params_;
};

// What a route answers: any status, headers and body. Content-Length is set by the server.
struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  HttpResponse& Set(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
};

// Answers the request a route handles, from any thread: call it exactly once. One dropped
// without being called answers 500, so a forgetful handler never leaves its client waiting.
// Move-only.
class HttpReply {
 public:
  using Sink = std::function<void(HttpResponse)>;

  explicit HttpReply(Sink sink) : sink_(std::move(sink)) {}
  HttpReply(HttpReply&& other) noexcept : sink_(std::exchange(other.sink_, nullptr)) {}
  HttpReply& operator=(HttpReply&&) = delete;
  HttpReply(const HttpReply&) = delete;
  ~HttpReply();

  void operator()(HttpResponse response);

 private:
  Sink sink_;
};

// A route a service or the application serves over HTTP on the server's port, next to the
// binary protocol: `method` ("GET", "POST", ...) and a path pattern of literal segments and named
// ones in braces, e.g. "/{code}" or "/api/links/{id}/stats". A literal segment is preferred to a
// named one where both match; two routes of one method that match the same paths are refused
// when the server starts. HEAD is answered by a GET route, without its body.
struct HttpRoute {
  std::string method;
  std::string pattern;
  std::function<void(const HttpRequest& request, HttpReply reply)> handler;
  // Cheap and non-blocking: runs on the IO thread. Otherwise on the business pool, which may
  // refuse it when full (503).
  bool on_io_thread = false;
  // For a handler on the business pool, tried first on the IO thread: the answer it can give
  // without blocking (from an in-process cache), or nullopt to hand the request to `handler`.
  // A hit then costs no thread switch and no pool slot.
  std::function<std::optional<HttpResponse>(const HttpRequest& request)> answer_on_io_thread;
  // An operator's page (metrics, health, status): served on server.http.admin_listen when one
  // is set, and then not on the public port. On the public port, it is there only for clients in
  // server.http.admin_networks; on either, only for requests whose Host names this server and,
  // but for GET and HEAD, whose Origin is the server's own (docs/http.md, "Admin pages").
  bool admin = false;
  // For an admin page that tells no more than whether the process is up or ready (a health
  // probe): on the public port it is there for every client, wherever load balancers and
  // orchestrators probe from, whatever server.http.admin_networks says.
  bool probe = false;
};

}  // namespace ferry
