#pragma once

#include <cstdint>

#include "ferry/codec/status.h"

namespace ferry::cluster {

// What one attempt's result says about its provider.
enum class ProviderHealth : uint8_t {
  kAnswered,  // the provider answered, even with an application error: it is alive
  kFailed,    // unreachable, overloaded or too slow: counts towards ejection
  kUnknown,   // the caller gave up (cancelled): says nothing either way
};

// How the channel treats an attempt that ended with some status (docs/fault-tolerance.md).
struct AttemptVerdict {
  // Another provider may be tried, policy, deadline and retry budget permitting.
  bool retryable = false;
  ProviderHealth health = ProviderHealth::kAnswered;
  // The elapsed time is a latency sample of the provider. Fast local failures are not: they
  // would make a dead or overloaded provider look like the quickest one.
  bool latency_sample = false;
};

// `certainly_unsent`: the request never reached a socket (the connection refused it before
// queueing it, or never came up while it was queued), so the provider cannot have run it.
AttemptVerdict JudgeAttempt(const Status& status, bool idempotent, bool certainly_unsent);

}  // namespace ferry::cluster
