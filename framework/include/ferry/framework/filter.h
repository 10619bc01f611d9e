#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/server_context.h"

namespace google::protobuf {
class Message;
}

namespace ferry {

// One entry of a `filters:` list in YAML: the filter's registered name and its whole mapping
// re-emitted as YAML, handed to Configure().
struct FilterSpec {
  std::string name;
  std::string yaml;
};

// A call as client filters see it; filters may change `options` (attachments, auth token,
// trace id) before it is sent.
struct ClientCall {
  const MethodSpec& method;
  const google::protobuf::Message& request;
  CallOptions& options;
  // When the call started, as the channel that runs the filters read it (its deadline runs
  // from about then): a filter needing the time takes it from here instead of reading a clock.
  std::chrono::steady_clock::time_point started;
};

// Interceptor around every call a client makes, in the order configured (YAML
// `filters.client`). Implementations register by name (kind "client_filter"); one instance per
// channel, called concurrently from many threads.
class ClientFilter {
 public:
  static constexpr std::string_view kExtensionKind = "client_filter";
  virtual ~ClientFilter() = default;
  // `yaml` is the filter's own mapping from the config, e.g. "{name: auth, secret: s3cr3t}".
  // INVALID_ARGUMENT naming the key when it is wrong.
  virtual Status Configure(const std::string& yaml) = 0;
  // Before sending. A non-OK status fails the call with it; nothing is sent.
  virtual Status OnCall(ClientCall& call) = 0;
  // After the call completed, whatever the outcome. Must not block. `call.request` may be gone
  // by then.
  virtual void OnDone(const ClientCall& call, const Status& status,
                      std::chrono::nanoseconds latency) = 0;
  // False when OnDone does nothing. When no filter of a chain observes completions, the chain
  // neither times calls nor keeps any state for them: on small calls that is most of its cost.
  virtual bool ObservesDone() const { return true; }
};

struct ServerCall {
  ServerContext& context;
  const google::protobuf::Message& request;
};

// Interceptor around every call a server runs (YAML `filters.server`); kind "server_filter".
class ServerFilter {
 public:
  static constexpr std::string_view kExtensionKind = "server_filter";
  virtual ~ServerFilter() = default;
  virtual Status Configure(const std::string& yaml) = 0;
  // Before the handler. A non-OK status is the call's answer; the handler does not run.
  virtual Status OnCall(ServerCall& call) = 0;
  virtual void OnDone(const ServerCall& call, const Status& status,
                      std::chrono::nanoseconds latency) = 0;
  // As ClientFilter::ObservesDone().
  virtual bool ObservesDone() const { return true; }
};

}  // namespace ferry
