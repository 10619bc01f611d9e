#include "cluster/cluster_channel.h"

#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cluster/cluster_call.h"
#include "cluster/single_attempt_call.h"
#include "ferry/framework/cluster_channel.h"
#include "logger.h"

namespace ferry {

Status NewClusterChannel(const ClusterOptions& options, std::shared_ptr<Registry> registry,
                         std::shared_ptr<Channel>* out) {
  if (registry == nullptr) {
    return Status(StatusCode::INVALID_ARGUMENT, "a cluster channel needs a registry");
  }
  std::unique_ptr<cluster::Cluster> cluster;
  if (Status status = cluster::Cluster::Create(options, &cluster); !status.ok()) return status;
  filter::ClientFilterChain filters;
  if (Status status = filter::ClientFilterChain::Create(
          options.client.filters, options.client.default_timeout, cluster->body_options(),
          cluster->max_response_bytes(), &filters);
      !status.ok()) {
    return status;
  }
  auto channel = std::make_shared<cluster::ClusterChannel>(std::move(registry), std::move(cluster),
                                                           std::move(filters));
  if (!channel->cluster().WaitForFirstList(options.client.connect_timeout)) {
    Logger().warn(
        "{}: no provider list from the registry within {} ms; calls fail until one "
        "arrives",
        options.service, options.client.connect_timeout.count());
  }
  *out = std::move(channel);
  return Status::Ok();
}

namespace cluster {

ClusterChannel::ClusterChannel(std::shared_ptr<Registry> registry, std::unique_ptr<Cluster> cluster,
                               filter::ClientFilterChain filters)
    : filters_(std::move(filters)), registry_(std::move(registry)), cluster_(std::move(cluster)) {
  Cluster* target = cluster_.get();
  subscription_ = registry_->Subscribe(
      target->service(),
      [target](const std::vector<ProviderInfo>& providers) { target->OnProviders(providers); });
}

ClusterChannel::~ClusterChannel() {
  // Returns once the listener is not running and never will again.
  registry_->Unsubscribe(subscription_);
  cluster_->Close();
  cluster_->StopThreads();
  if (cluster_->OnOwnIoThread()) {
    std::thread([cluster = std::move(cluster_)]() mutable {
      cluster->StopThreads();
      cluster.reset();
    }).detach();
  }
}

void ClusterChannel::CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                                google::protobuf::Message* response, const CallOptions& options,
                                CallDone done) {
  filters_.Run(method, request, options, std::move(done),
               [&](auto&& sent, std::chrono::steady_clock::time_point started, CallDone&& to,
                   const codec::EncodedBody* body) {
                 Dispatch(method, request, body, response, std::forward<decltype(sent)>(sent),
                          started, std::move(to));
               });
}

template <class Options>
void ClusterChannel::Dispatch(const MethodSpec& method, const google::protobuf::Message& request,
                              const codec::EncodedBody* body, google::protobuf::Message* response,
                              Options&& options, std::chrono::steady_clock::time_point started,
                              CallDone&& done) {
  stats::CallMeter meter = cluster_->MeterCall(method, started);
  const auto fail = [&](const Status& status) {
    meter.Finish(status.code());
    done(status);
  };
  if (cluster_->closed()) {
    return fail(
        Status(StatusCode::CANCELLED, "channel to " + cluster_->service() + " was shut down"));
  }
  const std::optional<uint64_t> hash_key = cluster_->HashKeyOf(options, request);
  ProviderPick pick = cluster_->providers().Pick(hash_key, {});
  if (pick.provider == nullptr) {
    std::string reason = cluster_->providers().DescribeNoPick(0);
    // The list may then be missing (none read since start) or stale: say why.
    if (Status registry = registry_->Health(); !registry.ok()) {
      reason += " (" + registry.message() + ")";
    }
    return fail(Status(StatusCode::UNAVAILABLE, reason));
  }
  // Decided per call, not per method: with an idempotency key, the request says (every proxy
  // form, and callers of CallMethod alike, come through here).
  const bool idempotent = method.IsIdempotent(request);
  const FaultTolerancePolicy& policy = cluster_->PolicyFor(method, idempotent);
  if (policy.MayRetry()) {
    ClusterCall::Start(*cluster_, policy, idempotent, std::move(pick), hash_key, method, request,
                       body, response, options, started, std::move(done), std::move(meter));
  } else {
    SendSingleAttempt(*cluster_, std::move(pick), method, request, body, response,
                      std::forward<Options>(options), started, std::move(done), std::move(meter));
  }
}

}  // namespace cluster
}  // namespace ferry
