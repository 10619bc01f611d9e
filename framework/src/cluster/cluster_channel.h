#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "cluster/cluster.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/registry.h"
#include "filter/client_filter_chain.h"

namespace ferry::cluster {

// The channel NewClusterChannel() returns: follows the registry's providers of one service,
// picks one per call, and sends the call once (SendSingleAttempt) or, when its policy may send
// it again, as a ClusterCall, after the channel's client filters.
class ClusterChannel final : public Channel {
 public:
  ClusterChannel(std::shared_ptr<Registry> registry, std::unique_ptr<Cluster> cluster,
                 filter::ClientFilterChain filters);
  // Stops following the registry and fails pending calls with CANCELLED. May run inside a
  // `done` on one of the channel's own IO threads; the threads are then joined, and the
  // cluster freed, from a helper thread.
  ~ClusterChannel() override;

  void CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                  google::protobuf::Message* response, const CallOptions& options,
                  CallDone done) override;

  Cluster& cluster() { return *cluster_; }

 private:
  // Always inline: CallMethod, the filters' continuation and this are one call path.
  template <class Options>
  [[gnu::always_inline]] inline void Dispatch(
      const MethodSpec& method, const google::protobuf::Message& request,
      const codec::EncodedBody* body, google::protobuf::Message* response, Options&& options,
      std::chrono::steady_clock::time_point started, CallDone&& done);

  const filter::ClientFilterChain filters_;
  const std::shared_ptr<Registry> registry_;
  std::unique_ptr<Cluster> cluster_;
  uint64_t subscription_ = 0;
};

}  // namespace ferry::cluster
