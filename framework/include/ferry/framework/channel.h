#pragma once

#include <functional>
#include <memory>

#include "ferry/codec/status.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/client_options.h"
#include "ferry/framework/method_spec.h"

namespace google::protobuf {
class Message;
}

namespace ferry {

using CallDone = std::function<void(const Status&)>;

// What generated proxies call through. A Channel to one address multiplexes every call over one
// connection; later channel kinds (discovery, balancing, failover) implement the same interface.
class Channel {
 public:
  virtual ~Channel() = default;

  // Sends `request` and fills `*response`. `done` runs exactly once: on an IO thread when the
  // call completes, or on the calling thread if it fails before anything is sent. `response`
  // must stay valid until then. `done` must not block: it runs on the thread reading replies.
  virtual void CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                          google::protobuf::Message* response, const CallOptions& options,
                          CallDone done) = 0;
};

// A channel to `options.target` ("host:port"). Fails on an unparsable target or unknown
// serializer/compressor name; connecting is lazy and retried with backoff.
Status NewChannel(const ClientOptions& options, std::shared_ptr<Channel>* out);

}  // namespace ferry
