#include "cluster/attempt_verdict.h"

#include <gtest/gtest.h>

namespace ferry::cluster {
namespace {

AttemptVerdict Judge(StatusCode code, bool idempotent, bool unsent = false) {
  return JudgeAttempt(Status(code, "x"), idempotent, unsent);
}

TEST(AttemptVerdictTest, OverloadedIsRetriedForEveryMethod) {
  EXPECT_TRUE(Judge(StatusCode::OVERLOADED, false).retryable);
  EXPECT_TRUE(Judge(StatusCode::OVERLOADED, true).retryable);
  EXPECT_EQ(Judge(StatusCode::OVERLOADED, false).health, ProviderHealth::kFailed);
}

TEST(AttemptVerdictTest, UnavailableIsRetriedOnlyIfIdempotentOrCertainlyUnsent) {
  EXPECT_TRUE(Judge(StatusCode::UNAVAILABLE, true).retryable);
  EXPECT_FALSE(Judge(StatusCode::UNAVAILABLE, false).retryable);
  EXPECT_TRUE(Judge(StatusCode::UNAVAILABLE, false, /*unsent=*/true).retryable);
  EXPECT_EQ(Judge(StatusCode::UNAVAILABLE, false).health, ProviderHealth::kFailed);
  EXPECT_FALSE(Judge(StatusCode::UNAVAILABLE, true).latency_sample);
}

TEST(AttemptVerdictTest, DeadlineExceededIsNeverRetriedButCountsAgainstTheProvider) {
  EXPECT_FALSE(Judge(StatusCode::DEADLINE_EXCEEDED, true).retryable);
  EXPECT_FALSE(Judge(StatusCode::DEADLINE_EXCEEDED, false).retryable);
  EXPECT_EQ(Judge(StatusCode::DEADLINE_EXCEEDED, true).health, ProviderHealth::kFailed);
  EXPECT_TRUE(Judge(StatusCode::DEADLINE_EXCEEDED, true).latency_sample);
}

TEST(AttemptVerdictTest, ApplicationErrorsAreAnswersNotFailures) {
  for (StatusCode code :
       {StatusCode::INVALID_ARGUMENT, StatusCode::NOT_FOUND, StatusCode::ALREADY_EXISTS,
        StatusCode::PERMISSION_DENIED, StatusCode::RESOURCE_EXHAUSTED,
        StatusCode::FAILED_PRECONDITION, StatusCode::ABORTED, StatusCode::INTERNAL,
        StatusCode::UNIMPLEMENTED, StatusCode::UNKNOWN, StatusCode::UNAUTHENTICATED}) {
    const AttemptVerdict verdict = Judge(code, true, true);
    EXPECT_FALSE(verdict.retryable) << code;
    EXPECT_EQ(verdict.health, ProviderHealth::kAnswered) << code;
  }
}

TEST(AttemptVerdictTest, CancelledSaysNothingAboutTheProvider) {
  const AttemptVerdict verdict = Judge(StatusCode::CANCELLED, true, true);
  EXPECT_FALSE(verdict.retryable);
  EXPECT_EQ(verdict.health, ProviderHealth::kUnknown);
}

TEST(AttemptVerdictTest, SuccessIsALatencySample) {
  const AttemptVerdict verdict = JudgeAttempt(Status::Ok(), false, false);
  EXPECT_FALSE(verdict.retryable);
  EXPECT_EQ(verdict.health, ProviderHealth::kAnswered);
  EXPECT_TRUE(verdict.latency_sample);
}

}  // namespace
}  // namespace ferry::cluster
