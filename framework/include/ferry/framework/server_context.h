#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/framework/call_options.h"

namespace ferry {

namespace server {
class ServerCall;
}

// What a handler knows about the call it serves. Owned by the server for the call's duration:
// keep nothing of it past the handler's return, as the context of an inline method is refilled
// for the connection's next inline call.
class ServerContext {
 public:
  using Clock = std::chrono::steady_clock;

  std::string_view service() const { return service_; }
  std::string_view method() const { return method_; }
  // Non-zero for a method a server serves: unique to it among every method any server of this
  // process ever served, so a filter can key per-method state by it without comparing names.
  uint64_t method_id() const { return method_id_; }
  // Clock::time_point::max() when the caller set no deadline.
  Clock::time_point deadline() const { return deadline_; }
  bool has_deadline() const { return deadline_ != Clock::time_point::max(); }
  bool deadline_passed() const { return has_deadline() && Clock::now() >= deadline_; }
  // When the server read the request off the connection (once per read, shared by the requests
  // it brought); Clock::time_point{} in a context the server did not fill.
  Clock::time_point received_at() const { return received_at_; }
  // "ip:port" of the caller.
  const std::string& peer() const { return peer_; }
  const std::string& trace_id() const { return trace_id_; }
  // CallOptions::request_id of the caller; 0 when it set none.
  uint64_t request_id() const { return request_id_; }
  const Attachments& attachments() const { return attachments_; }
  // What the caller sent in the frame's auth_token (checked by the auth filter).
  const std::string& auth_token() const { return auth_token_; }
  // Non-zero when the server knows the token by identity: calls whose tokens have the same
  // non-zero id carry the same bytes (the client sent them once, indexed, and referred to them
  // since). Lets a filter that checked a token skip comparing it again. Never reused.
  uint64_t auth_token_id() const { return auth_token_id_; }
  // True once the caller cancelled (it timed out or gave up); long handlers may stop early.
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

  // Filled by the server before the handler runs.
  void set_service(std::string_view s) {
    service_ = s;
    method_id_ = 0;
  }
  void set_method(std::string_view m) {
    method_ = m;
    method_id_ = 0;
  }
  void set_deadline(Clock::time_point d) { deadline_ = d; }
  void set_received_at(Clock::time_point t) { received_at_ = t; }
  void set_peer(std::string p) { peer_ = std::move(p); }
  void set_trace_id(std::string t) { trace_id_ = std::move(t); }
  void set_request_id(uint64_t id) { request_id_ = id; }
  Attachments* mutable_attachments() { return &attachments_; }
  void set_auth_token(std::string token) {
    auth_token_ = std::move(token);
    auth_token_id_ = 0;
  }
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }

 private:
  // Fills the context from the request it serves; on a connection's inline calls it reuses one
  // context, whose strings then keep their capacity from call to call.
  friend class server::ServerCall;

  std::string_view service_;
  std::string_view method_;
  uint64_t method_id_ = 0;
  Clock::time_point deadline_ = Clock::time_point::max();
  Clock::time_point received_at_;
  std::string peer_;
  std::string trace_id_;
  uint64_t request_id_ = 0;
  Attachments attachments_;
  std::string auth_token_;
  uint64_t auth_token_id_ = 0;
  std::atomic<bool> cancelled_{false};
};

}  // namespace ferry
