#include "cluster/single_attempt_call.h"

namespace ferry::cluster {

void ResendRefused(Cluster& cluster, const SingleAttempt& attempt,
                   std::vector<std::string> refused_by, CallDone&& done, stats::CallMeter&& meter) {
  ProviderPick pick = cluster.providers().Pick(attempt.hash_key, refused_by);
  if (pick.provider == nullptr) {
    const Status status(StatusCode::DRAINING,
                        cluster.providers().DescribeNoPick(refused_by.size()) +
                            "; the call was sent to none, the last refusing it while draining");
    meter.Finish(status.code());
    done(status);
    return;
  }
  SendToPick(cluster, std::move(pick), attempt, &refused_by, std::move(done), std::move(meter));
}

}  // namespace ferry::cluster
