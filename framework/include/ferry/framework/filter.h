#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/status.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/config_reader.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/server_context.h"

namespace google::protobuf {
class Message;
}

namespace ferry {

// One entry of a `filters:` list: the filter's registered name and its own mapping, kept as the
// file's node so that errors found when a filter is configured still name the file and line.
struct FilterSpec {
  std::string name;
  YAML::Node config;   // the whole entry, `name` included
  std::string source;  // the file it came from, e.g. "echo.yaml"
  std::string path;    // its key path there, e.g. "server.filters[0]"
  // The file's allow_sample_secrets (or the App's --dev): ConfigReader::Secret() of the
  // filter's keys accepts the shipped configs' sample secrets.
  bool allow_sample_secrets = false;

  // A spec written in code, e.g. FromYaml("auth", "{secret: s3cr3t}"); `yaml` must be a
  // mapping. Errors configuring it then name "<code>" and `name` instead of a file.
  static FilterSpec FromYaml(std::string name, std::string_view yaml);
};

// What every filter is handed besides its call: state of its own that the chain keeps for it.
// `method_state` is what the filter's NewMethodState() returned for the call's method (on this
// channel or server), made once before that method's first call and shared by all its calls.
// `call_state` starts null for every call; a filter may point it at something in OnCall and
// gets it back in OnDone (it owns whatever it points to). Kept only for filters that observe
// completions: a blind filter's is always null.
struct FilterState {
  void* method_state = nullptr;
  void* call_state = nullptr;
};

// How a request travels besides its names, attachments and body: what the frame's header and
// meta say of it (over HTTP: serializer JSON, no compression, not one-way, the default response
// limit and X-Ferry-Timeout-Ms). For a filter that signs them, so that none can be changed in
// flight (`auth`).
struct RequestFraming {
  // The call's budget: on the client its whole timeout when the filters run, on the server what
  // this attempt says is left of it (at most that whole); 0: no deadline.
  uint64_t timeout_us = 0;
  uint8_t serializer = 0;   // the body's serializer_id
  uint8_t compression = 0;  // the body's compression_id
  bool one_way = false;     // no answer wanted
  // The largest answer the caller reads (its max_frame_bytes).
  uint64_t max_response_bytes = codec::kDefaultMaxFrameBytes;
};

// A call as client filters see it; filters may change `options` (attachments, auth token,
// trace id) before it is sent.
struct ClientCall {
  const MethodSpec& method;
  const google::protobuf::Message& request;
  CallOptions& options;
  FilterState state;  // this filter's own (see FilterState)
  // The request's body exactly as it travels (serialized with the channel's serializer,
  // compressed when it reaches the compression threshold), encoded once before the first
  // filter ran; every attempt of the call sends these bytes, so a signature over them holds
  // for all of them. Valid until the call's OnDone returned.
  std::string_view body;
  // How it travels, as of this filter: its timeout is the options' (or the channel's default).
  RequestFraming framing;
};

// A request as server filters see it before its body is decoded (ServerFilter::OnAdmit):
// everything the meta says is in `context`, the body only as the bytes that came. A filter
// that verified who the caller is says so with context.set_verified_caller(), for the
// filters after it and the handler.
struct ServerAdmission {
  AdmissionContext& context;
  std::string_view body;         // as sent: maybe compressed, in the request's serializer
  void* method_state = nullptr;  // as FilterState::method_state
  RequestFraming framing;        // as sent
};

// A call as server filters see it.
struct ServerCall {
  AdmissionContext& context;
  const google::protobuf::Message& request;
  FilterState state;  // this filter's own (see FilterState)
};

// What client and server filters share. Implementations register by name; one instance per
// channel or server, called concurrently from many threads.
template <class Call>
class Filter {
 public:
  virtual ~Filter() = default;
  // Reads the filter's own keys of its `filters:` entry, reporting mistakes through `config`
  // (which names file, line and key); `name` is already read. Called once, before any call.
  virtual void Configure(config::ConfigReader& config) = 0;
  // State for one method, handed back in every call of it as FilterState::method_state. Called
  // once per method and channel (or server) before the method's first call through this
  // filter, never concurrently with itself. The default keeps none.
  virtual std::shared_ptr<void> NewMethodState(const MethodSpec& /*method*/) { return nullptr; }
  // Before the call. A non-OK status is the call's answer: nothing is sent (client) or the
  // handler does not run (server), and later filters do not see the call. An exception is
  // contained as a handler's is: logged, and the call's answer is INTERNAL; this filter's
  // OnDone then does not run.
  virtual Status OnCall(Call& call) = 0;
  // After the call completed, whatever the outcome, for each filter whose OnCall returned. Must
  // not block. A client call's `request` may be gone by then. An exception is logged and changes
  // nothing: the other filters' OnDone still run and the call is answered as it was to be.
  virtual void OnDone(const Call& /*call*/, const Status& /*status*/,
                      std::chrono::nanoseconds /*latency*/) {}
  // False when OnDone does nothing. When no filter of a chain observes completions, the chain
  // neither times calls nor keeps any state for them: on small calls that is most of its cost.
  virtual bool ObservesDone() const { return true; }
};

// Interceptor around every call a client makes (YAML `clients.<name>.filters`); kind
// "client_filter".
class ClientFilter : public Filter<ClientCall> {
 public:
  static constexpr std::string_view kExtensionKind = "client_filter";
};

// Interceptor around every call a server runs (YAML `server.filters`); kind "server_filter".
class ServerFilter : public Filter<ServerCall> {
 public:
  static constexpr std::string_view kExtensionKind = "server_filter";

  // Before the body is decompressed and parsed, and before the call takes a place in the
  // business pool, on the connection's IO thread: checks that need no request message
  // (credentials, a signature over the body's bytes) refuse here, so that a refused request
  // costs neither a decoder nor a worker. A non-OK status is the call's answer, and neither
  // OnCall nor OnDone of any filter sees the call. Admits every request unless overridden.
  virtual Status OnAdmit(const ServerAdmission& /*request*/) { return Status::Ok(); }
  // Once the server has made this filter's state for each of its methods and routes
  // (NewMethodState), before it listens: a filter whose configuration names methods refuses
  // there those the server does not serve. A non-OK status fails Server::Start() with it.
  virtual Status OnServerStart() { return Status::Ok(); }
};

}  // namespace ferry
