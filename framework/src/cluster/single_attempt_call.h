#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/request_meta.h"
#include "cluster/attempt_verdict.h"
#include "cluster/cluster.h"
#include "cluster/provider_set.h"
#include "ferry/framework/channel.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::cluster {

// The completion of a single attempt whose provider must hear of its outcome (a probe, or a
// balancer that reads load). A named type rather than a lambda, so that an attempt refused by
// a draining provider can take its parts back out of the CallDone it became.
struct ReportingDone {
  ProviderSet* providers;
  ProviderPick pick;
  bool idempotent;
  std::chrono::steady_clock::time_point started;
  CallDone done;

  void operator()(const Status& status) {
    // Whether the request left matters only to a retry, and there is none.
    providers->Report(pick, JudgeAttempt(status, idempotent, /*certainly_unsent=*/false), started);
    // Before `done`: once it ran, the channel and its providers may be gone.
    pick = ProviderPick{};
    done(status);
  }
};

// What a single attempt is sent with, shared by a resend after a refusal.
struct SingleAttempt {
  const MethodSpec& method;
  const wire::RpcMeta& meta;
  const google::protobuf::Message& request;
  const codec::EncodedBody* body;  // `request` as the client filters saw it; null: encode it
  google::protobuf::Message* response;
  std::optional<uint64_t> hash_key;
  std::chrono::steady_clock::time_point started;
  std::chrono::milliseconds timeout;
  Cancellation* cancellation;
};

// Picks again after the providers in `refused_by` refused the call for draining, and sends it
// there; out of line, as it happens only while a provider is going away.
[[gnu::noinline]] void ResendRefused(Cluster& cluster, const SingleAttempt& attempt,
                                     std::vector<std::string> refused_by, CallDone&& done,
                                     stats::CallMeter&& meter);

// Sends the request `meta` describes to `pick`; if the provider turns out to be draining before
// the request left (it said GOAWAY just after it was picked), sends it to another provider,
// whatever the method: it certainly did not run.
inline void SendToPick(Cluster& cluster, ProviderPick pick, const SingleAttempt& attempt,
                       const std::vector<std::string>* refused_before, CallDone&& done,
                       stats::CallMeter&& meter) {
  const auto& [method, meta, request, body, response, hash_key, started, timeout, cancellation] =
      attempt;
  const bool bounded = timeout > std::chrono::milliseconds::zero();
  const auto deadline = bounded ? started + timeout : std::chrono::steady_clock::time_point::max();
  // Held across Call(): the call's completion lets go of the pick, which may be the provider's
  // last owner once the registry dropped it, and that completion may run inside Call() or, on
  // the connection's IO thread, while this thread is still in it.
  const std::shared_ptr<Provider> provider = pick.provider;
  client::ClientConnection::Refused refused;
  uint64_t id = 0;
  if (!pick.probe && !cluster.providers().tracks_load()) {
    // Nothing to remember per call but the provider, which observes the call itself: `done`
    // goes to the connection unwrapped.
    id = provider->connection().Call(meta, request, body, response, deadline, timeout,
                                     std::move(done), std::move(meter), std::move(pick.provider),
                                     &refused);
  } else {
    id = provider->connection().Call(meta, request, body, response, deadline, timeout,
                                     ReportingDone{&cluster.providers(), std::move(pick),
                                                   method.idempotent, started, std::move(done)},
                                     std::move(meter), nullptr, &refused);
  }
  if (refused.done) {
    CallDone original = std::move(refused.done);
    if (auto* reporting = original.target<ReportingDone>()) {
      cluster.providers().Report(reporting->pick,
                                 AttemptVerdict{.health = ProviderHealth::kUnknown}, started);
      original = std::move(reporting->done);
    }
    std::vector<std::string> refused_by;
    if (refused_before != nullptr) refused_by = *refused_before;
    refused_by.push_back(provider->address());
    ResendRefused(cluster, attempt, std::move(refused_by), std::move(original),
                  std::move(refused.meter));
    return;
  }
  if (cancellation != nullptr) provider->connection().CancelOn(*cancellation, id);
}

// A call whose policy never sends it twice (failfast): one attempt, on the provider already
// picked. Nothing about it is shared between threads, so unlike a ClusterCall it needs neither
// a call object nor a lock; the attempt's completion reports to the provider set and runs
// `done`. Unless the call is a probe or the balancer reads load, the provider itself observes
// the call (client::CallObserver) and `done` is not even wrapped. Failfast is the default
// policy of methods that are not idempotent. The call's timeout runs from `started`.
// `options` is a const CallOptions&, or a CallOptions&& the caller is done with, whose strings
// the request then takes. Inline, so that the channel's dispatch and this are one function.
template <class Options>
[[gnu::always_inline]] inline void SendSingleAttempt(
    Cluster& cluster, ProviderPick pick, const MethodSpec& method,
    const google::protobuf::Message& request, const codec::EncodedBody* body,
    google::protobuf::Message* response, Options&& options,
    std::chrono::steady_clock::time_point started, CallDone&& done, stats::CallMeter&& meter) {
  const std::chrono::milliseconds timeout = cluster.TimeoutOf(options);
  const bool bounded = timeout > std::chrono::milliseconds::zero();
  // FillRequestMeta may take the options' strings, never their cancellation; the options
  // outlive the send.
  Cancellation* const cancellation = options.cancellation;
  const std::optional<uint64_t> hash_key = options.hash_key;
  // Reused per thread: it is serialized before Call() returns.
  thread_local wire::RpcMeta meta;
  client::FillRequestMeta(
      method, std::forward<Options>(options),
      {.timeout_us =
           bounded ? static_cast<uint64_t>(
                         std::chrono::duration_cast<std::chrono::microseconds>(timeout).count())
                   : 0,
       .max_response_bytes = cluster.max_response_bytes()},
      &meta);
  SendToPick(cluster, std::move(pick),
             SingleAttempt{method, meta, request, body, response, hash_key, started, timeout,
                           cancellation},
             nullptr, std::move(done), std::move(meter));
}

}  // namespace ferry::cluster
