#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/http.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/server_context.h"

namespace google::protobuf {
class Message;
}

namespace ferry {

// Completes the call a handler serves, from any thread: call it exactly once with the call's
// answer; the request, response and context stay valid until then. A completion dropped
// without being called answers INTERNAL, so a forgetful handler never leaves its caller
// waiting. Move-only.
class ServerDone {
 public:
  // What a ServerDone completes: the server's call, or a caller's own (a test, an in-process
  // invocation).
  class Target {
   public:
    virtual void Complete(const Status& status) = 0;
    // The ServerDone was destroyed by an exception leaving the handler. True when the target
    // answers once the exception is caught (the server does, with what was thrown); false to
    // have it completed with INTERNAL now.
    virtual bool TakeOverAfterThrow() { return false; }

   protected:
    ~Target() = default;
  };

  explicit ServerDone(Target* target);
  ServerDone(ServerDone&& other) noexcept;
  ServerDone& operator=(ServerDone&&) = delete;
  ServerDone(const ServerDone&) = delete;
  ~ServerDone();

  void operator()(const Status& status);

 private:
  Target* target_;
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
  // HTTP routes the service serves on the server's port (the short-link service's redirect is
  // `GET /{code}`), asked for once when the server starts. None by default.
  virtual std::vector<HttpRoute> http_routes() { return {}; }
};

}  // namespace ferry
