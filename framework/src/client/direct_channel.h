#pragma once

#include <chrono>
#include <memory>

#include "client/client_connection.h"
#include "client/client_stats.h"
#include "ferry/framework/channel.h"
#include "filter/client_filter_chain.h"
#include "transport/endpoint.h"
#include "transport/io_thread_pool.h"

namespace ferry::client {

// The channel NewChannel() returns: every call to one endpoint over one multiplexed connection,
// on IO threads the channel owns, through the channel's client filters.
class DirectChannel final : public Channel {
 public:
  // `body_options` carries the already resolved serializer and compressor ids.
  DirectChannel(const ClientOptions& options, transport::Endpoint endpoint,
                codec::BodyOptions body_options, filter::ClientFilterChain filters);
  // Completes pending calls with CANCELLED. May run inside a `done` callback on one of the
  // channel's own IO threads; the threads are then joined from a helper thread instead.
  ~DirectChannel() override;

  void CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                  google::protobuf::Message* response, const CallOptions& options,
                  CallDone done) override;

  ClientStats stats() const { return connection_->stats(); }

 private:
  bool OnOwnIoThread() const;
  template <class Options>
  // `body`: the request as the filters saw it encoded, or null to encode `request`.
  void Send(const MethodSpec& method, const google::protobuf::Message& request,
            const codec::EncodedBody* body, google::protobuf::Message* response, Options&& options,
            std::chrono::steady_clock::time_point started, CallDone&& done);

  const filter::ClientFilterChain filters_;
  std::chrono::milliseconds default_timeout_;
  const bool metrics_;
  // Declared before the connection so that it is destroyed after it: the pool's io_contexts
  // hold handlers that keep the connection alive until they are destroyed.
  std::unique_ptr<transport::IoThreadPool> pool_;
  std::shared_ptr<ClientConnection> connection_;
};

}  // namespace ferry::client
