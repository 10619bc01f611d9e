#pragma once

#include <chrono>

#include "cluster/cluster.h"
#include "cluster/provider_set.h"
#include "ferry/framework/channel.h"

namespace ferry::cluster {

// A call whose policy never sends it twice (failfast): one attempt, on the provider already
// picked. Nothing about it is shared between threads, so unlike a ClusterCall it needs neither
// a call object nor a lock; the attempt's completion reports to the provider set and runs
// `done`. Unless the call is a probe or the balancer reads load, the provider itself observes
// the call (client::CallObserver) and `done` is not even wrapped. Failfast is the default
// policy, so this is the path most calls take. The call's timeout runs from `started`.
void SendSingleAttempt(Cluster& cluster, ProviderPick pick, const MethodSpec& method,
                       const google::protobuf::Message& request,
                       google::protobuf::Message* response, const CallOptions& options,
                       std::chrono::steady_clock::time_point started, CallDone&& done);
// The same from options the caller is done with, whose strings the request takes.
void SendSingleAttempt(Cluster& cluster, ProviderPick pick, const MethodSpec& method,
                       const google::protobuf::Message& request,
                       google::protobuf::Message* response, CallOptions&& options,
                       std::chrono::steady_clock::time_point started, CallDone&& done);

}  // namespace ferry::cluster
