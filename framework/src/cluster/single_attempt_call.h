#pragma once

#include <chrono>
#include <memory>
#include <utility>

#include "client/request_meta.h"
#include "cluster/attempt_verdict.h"
#include "cluster/cluster.h"
#include "cluster/provider_set.h"
#include "ferry/framework/channel.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::cluster {

// A call whose policy never sends it twice (failfast): one attempt, on the provider already
// picked. Nothing about it is shared between threads, so unlike a ClusterCall it needs neither
// a call object nor a lock; the attempt's completion reports to the provider set and runs
// `done`. Unless the call is a probe or the balancer reads load, the provider itself observes
// the call (client::CallObserver) and `done` is not even wrapped. Failfast is the default
// policy, so this is the path most calls take. The call's timeout runs from `started`.
// `options` is a const CallOptions&, or a CallOptions&& the caller is done with, whose strings
// the request then takes. Inline, so that the channel's dispatch and this are one function.
template <class Options>
[[gnu::always_inline]] inline void SendSingleAttempt(
    Cluster& cluster, ProviderPick pick, const MethodSpec& method,
    const google::protobuf::Message& request, google::protobuf::Message* response,
    Options&& options, std::chrono::steady_clock::time_point started, CallDone&& done) {
  const std::chrono::milliseconds timeout = cluster.TimeoutOf(options);
  const bool bounded = timeout > std::chrono::milliseconds::zero();
  // Reused per thread: it is serialized before Call() returns.
  thread_local wire::RpcMeta meta;
  client::FillRequestMeta(
      method, std::forward<Options>(options),
      bounded ? std::chrono::duration_cast<std::chrono::microseconds>(timeout).count() : 0, &meta);
  // Held across Call(): the call's completion lets go of the pick, which may be the provider's
  // last owner once the registry dropped it, and that completion may run inside Call() or, on
  // the connection's IO thread, while this thread is still in it.
  const std::shared_ptr<Provider> provider = pick.provider;
  const auto deadline = bounded ? started + timeout : std::chrono::steady_clock::time_point::max();
  if (!pick.probe && !cluster.providers().tracks_load()) {
    // Nothing to remember per call but the provider, which observes the call itself: `done`
    // goes to the connection unwrapped.
    provider->connection().Call(meta, options.auth_token, request, response, deadline, timeout,
                                std::move(done), std::move(pick.provider));
    return;
  }
  provider->connection().Call(
      meta, options.auth_token, request, response, deadline, timeout,
      [&providers = cluster.providers(), pick = std::move(pick), idempotent = method.idempotent,
       started, done = std::move(done)](const Status& status) mutable {
        // Whether the request left matters only to a retry, and there is none.
        providers.Report(pick, JudgeAttempt(status, idempotent, /*certainly_unsent=*/false),
                         started);
        // Before `done`: once it ran, the channel and its providers may be gone.
        pick = ProviderPick{};
        done(status);
      });
}

}  // namespace ferry::cluster
