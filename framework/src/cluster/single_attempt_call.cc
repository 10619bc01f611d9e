#include "cluster/single_attempt_call.h"

namespace ferry::cluster {

void ResendRefused(Cluster& cluster, const SingleAttempt& attempt,
                   std::vector<std::string> refused_by, CallDone&& done) {
  ProviderPick pick = cluster.providers().Pick(attempt.hash_key, refused_by);
  if (pick.provider == nullptr) {
    done(Status(StatusCode::DRAINING,
                cluster.providers().DescribeNoPick(refused_by.size()) +
                    "; the call was sent to none, the last refusing it while draining"));
    return;
  }
  SendToPick(cluster, std::move(pick), attempt, &refused_by, std::move(done));
}

}  // namespace ferry::cluster
