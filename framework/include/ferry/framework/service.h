#pragma once

#include <span>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/server_context.h"

namespace google::protobuf {
class Message;
}

namespace ferry {

namespace server {
class ServerCall;
}

// Completes the call a handler serves, from any thread: call it exactly once with the call's
// answer; the request, response and context stay valid until then. A completion dropped
// without being called answers INTERNAL, so a forgetful handler never leaves its caller
// waiting. Move-only.
class ServerDone {
 public:
  ServerDone(ServerDone&& other) noexcept;
  ServerDone& operator=(ServerDone&&) = delete;
  ServerDone(const ServerDone&) = delete;
  ~ServerDone();

  void operator()(const Status& status);

 private:
  friend class server::ServerCall;
  explicit ServerDone(server::ServerCall* call);

  server::ServerCall* call_;
  int exceptions_;  // std::uncaught_exceptions() when made: tells unwinding from dropping
};

// Base of every generated `<Name>Base` server class. Service authors derive from the generated
// class and override, per method, its synchronous or its asynchronous virtual; the server
// dispatches through methods().
class Service {
 public:
  struct Method {
    const MethodSpec* spec;
    // Prototypes the server New()s a request and response from for each call.
    const google::protobuf::Message* request_prototype;
    const google::protobuf::Message* response_prototype;
    // Casts to the typed messages and starts the service author's handler, which completes
    // through `done` (at once, for a synchronous handler).
    void (*invoke)(Service& service, ServerContext& context,
                   const google::protobuf::Message& request, google::protobuf::Message* response,
                   ServerDone done);
  };

  virtual ~Service() = default;
  virtual std::string_view full_name() const = 0;
  virtual std::span<const Method> methods() const = 0;
};

}  // namespace ferry
