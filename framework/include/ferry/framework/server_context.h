#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/framework/call_options.h"
#include "ferry/framework/call_scope.h"

namespace ferry {

namespace server {
class HttpCallContext;
class RouteCall;
class ServerCall;
}  // namespace server

// What a handler knows about the call it serves: read-only, as the server and its filters
// established it (who the caller and the user are cannot be changed by a handler). Owned by the
// server until the call completes (ServerDone): keep nothing of it afterwards, as the server
// reuses it for a later call.
class ServerContext {
 public:
  using Clock = std::chrono::steady_clock;

  std::string_view service() const { return service_; }
  std::string_view method() const { return method_; }
  // Clock::time_point::max() when the caller set no deadline.
  Clock::time_point deadline() const { return scope_.deadline; }
  bool has_deadline() const { return scope_.deadline != Clock::time_point::max(); }
  bool deadline_passed() const { return has_deadline() && Clock::now() >= scope_.deadline; }
  // "ip:port" of the caller: the TCP peer, which behind a reverse proxy is the proxy.
  const std::string& peer() const { return peer_; }
  // The IP address of the client ("203.0.113.7", "2001:db8::1"; no port, no brackets): for an
  // HTTP request from a trusted proxy (server.http.trusted_proxies, docs/http.md) the one its
  // X-Forwarded-For names, else the peer's. Key per-client state (rate limits, visitor
  // counts) by this, not by peer().
  const std::string& client_address() const { return client_address_; }
  // Who the caller proved to be: the common name (CN) of the client certificate the server's
  // TLS handshake verified (server.tls.ca_file, docs/tls.md); empty without one.
  const std::string& peer_identity() const { return peer_identity_; }
  const std::string& trace_id() const { return scope_.trace_id; }
  // This call's span, and the caller's span it is a child of ("" for a root span).
  const std::string& span_id() const { return scope_.span_id; }
  const std::string& parent_span_id() const { return parent_span_id_; }
  bool sampled() const { return scope_.sampled; }
  // The deadline and trace that calls made on behalf of this one inherit (CurrentCallScope).
  const CallScope& scope() const { return scope_; }
  // CallOptions::request_id of the caller; 0 when it set none.
  uint64_t request_id() const { return request_id_; }
  const Attachments& attachments() const { return attachments_; }
  // What the caller sent in the frame's auth_token (checked by the auth filter).
  const std::string& auth_token() const { return auth_token_; }
  // Who the caller is, as a server filter verified it (`auth` in OnAdmit: the caller
  // its token signs); empty when none did. Unlike an attachment, the caller cannot
  // choose it: use it, not attachments, to tell callers apart (per-caller rate limits).
  const std::string& verified_caller() const { return verified_caller_; }
  // On whose behalf the call is made, as a server filter verified it in OnAdmit (the
  // `user_token` filter: the user its token names); empty when none did. Not the caller: a
  // gateway or front end (the verified caller) calls for many users. Handlers act for this
  // user, never for a user id the request merely names.
  const std::string& verified_user() const { return verified_user_; }
  // What the verified user may act as, as the same filter verified it (the roles a user token
  // signs, e.g. "operator"); empty when none did.
  const std::vector<std::string>& verified_roles() const { return verified_roles_; }
  bool has_verified_role(std::string_view role) const {
    for (const std::string& held : verified_roles_) {
      if (held == role) return true;
    }
    return false;
  }
  // True once the caller cancelled (it timed out or gave up); long handlers may stop early.
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 protected:
  ServerContext() = default;
  ~ServerContext() = default;
  ServerContext(const ServerContext&) = delete;
  ServerContext& operator=(const ServerContext&) = delete;

 private:
  friend class AdmissionContext;
  // Fill the context from the request it serves; a connection's inline calls reuse one
  // context, whose strings then keep their capacity from call to call.
  friend class server::ServerCall;
  friend class server::HttpCallContext;
  friend class server::RouteCall;

  std::string_view service_;
  std::string_view method_;
  CallScope scope_;
  std::string parent_span_id_;
  std::string peer_;
  std::string client_address_;
  std::string peer_identity_;
  uint64_t request_id_ = 0;
  Attachments attachments_;
  std::string auth_token_;
  std::string verified_caller_;
  std::string verified_user_;
  std::vector<std::string> verified_roles_;
  std::atomic<bool> cancelled_{false};
};

// The context as server filters see it (ServerAdmission, ServerCall in filter.h): the one place
// where who the caller and the user are is established. Tests of a handler make one to stand in
// for the filters.
class AdmissionContext final : public ServerContext {
 public:
  AdmissionContext() = default;

  // For a filter that verified the caller (in OnAdmit; in OnCall for a check that blocks).
  void set_verified_caller(std::string_view caller) { verified_caller_.assign(caller); }
  // For a filter's OnAdmit that verified the user's identity, and only then.
  void set_verified_user(std::string_view user) { verified_user_.assign(user); }
  // Beside set_verified_user(), for the roles the same credential proved.
  void add_verified_role(std::string_view role) { verified_roles_.emplace_back(role); }
  // What the server does when the caller gives up (cancel frame, deadline, hang-up).
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
};

}  // namespace ferry
