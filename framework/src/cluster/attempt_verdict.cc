#include "cluster/attempt_verdict.h"

namespace ferry::cluster {

AttemptVerdict JudgeAttempt(const Status& status, bool idempotent, bool certainly_unsent) {
  switch (status.code()) {
    case StatusCode::OK:
      return {.retryable = false, .health = ProviderHealth::kAnswered, .latency_sample = true};
    case StatusCode::OVERLOADED:
      // The server refused it before running it: safe to send elsewhere whatever the method.
      return {.retryable = true, .health = ProviderHealth::kFailed, .latency_sample = false};
    case StatusCode::DRAINING:
      // The server is going away and did not run it: safe elsewhere whatever the method, and no
      // mark against a provider that is only restarting.
      return {.retryable = true, .health = ProviderHealth::kUnknown, .latency_sample = false};
    case StatusCode::UNAVAILABLE:
      // The connection failed or the server is stopping. Unless the request certainly stayed
      // here, it may have run before the failure, so only an idempotent method may run again.
      return {.retryable = idempotent || certainly_unsent,
              .health = ProviderHealth::kFailed,
              .latency_sample = false};
    case StatusCode::DEADLINE_EXCEEDED:
      // Every attempt shares the call's deadline: once one expires there is no time left.
      return {.retryable = false, .health = ProviderHealth::kFailed, .latency_sample = true};
    case StatusCode::CANCELLED:
      // The caller stopped waiting, typically because a backup request won. The elapsed time
      // is a lower bound of the provider's latency: worth recording, so that a provider that
      // keeps losing does not look fast.
      return {.retryable = false, .health = ProviderHealth::kUnknown, .latency_sample = true};
    default:
      // Application errors (INVALID_ARGUMENT, NOT_FOUND, INTERNAL, RESOURCE_EXHAUSTED, ...) are
      // answers: another provider would most likely answer the same.
      return {.retryable = false, .health = ProviderHealth::kAnswered, .latency_sample = true};
  }
}

}  // namespace ferry::cluster
