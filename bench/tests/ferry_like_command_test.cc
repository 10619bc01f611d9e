#include "like_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "in_process_provider.h"
#include "service/like_app.h"
#include "user_token_server_options.h"

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A like app on the embedded backend, its SQLite file in a directory of its own that goes with
// it. Counts are cached, so the bench has to wait for them to settle.
struct EmbeddedLike {
  explicit EmbeddedLike(const std::string& name) : dir("like-" + name) {
    like::LikeConfig config;
    config.backend = "embedded";
    config.sqlite_path = dir.File("like.db");
    config.count_cache_ms = 300;
    const Status created = like::LikeApp::Create(config, &app);
    EXPECT_TRUE(created.ok()) << created;
  }
  ~EmbeddedLike() {
    if (app != nullptr) app->Stop();
    app.reset();
  }

  const ScratchDir dir;
  std::unique_ptr<like::LikeApp> app;
};

LikeBenchOptions SmallRun(const std::string& target) {
  LikeBenchOptions options;
  options.load.target = target;
  options.user_token_key_id = "default";
  options.user_token_secret = kUserTokenSecret;
  options.load.conns = 2;
  options.load.depth = 8;
  options.calls = 3000;
  options.get_ratio = 0.3;
  options.users = 64;
  options.contents = 20;
  options.hot_share = 0.3;
  options.content_base = 5000;
  options.duration_limit_s = 60;
  options.settle_timeout_s = 10;
  return options;
}

using LikeRun = CommandRun<LikeBenchOutcome>;

// `make_options(target)` against a provider of `services` that verifies user tokens.
LikeRun RunLike(
    std::span<Service* const> services,
    const std::function<LikeBenchOptions(const std::string&)>& make_options = SmallRun) {
  return RunAgainstProvider<LikeBenchOutcome>(services, VerifyingLikeUserTokens(),
                                              [&](const std::string& target, std::ostream& out,
                                                  std::ostream& err, LikeBenchOutcome* outcome) {
                                                return RunLikeBench(make_options(target), out, err,
                                                                    outcome);
                                              });
}

// The embedded backend (SQLite in a temporary file) behind a real like provider: every count
// equals the truth the bench kept, and the database agrees.
TEST(LikeCommandTest, EmbeddedWorkloadEndsWithEveryCountEqualToTheTruth) {
  EmbeddedLike embedded("bench");
  ASSERT_NE(embedded.app, nullptr);
  const LikeRun run = RunLike(embedded.app->services());
  const LikeBenchOutcome& outcome = run.outcome;

  EXPECT_EQ(run.exit_code, 0) << run.output();
  EXPECT_TRUE(outcome.passed);
  EXPECT_EQ(outcome.set_calls + outcome.get_calls, 3000u);
  EXPECT_GT(outcome.get_calls, 600u);  // 30% of 3000, give or take
  EXPECT_LT(outcome.get_calls, 1200u);
  EXPECT_EQ(outcome.errors, 0u);
  EXPECT_EQ(outcome.rate_limited, 0u);
  EXPECT_EQ(outcome.uncertain_pairs, 0);
  EXPECT_EQ(outcome.mismatched, 0);
  EXPECT_EQ(outcome.reconcile_violations, 0);
  EXPECT_EQ(outcome.contents_checked, 20);  // 2100 SetLike over 20 contents touch them all
  EXPECT_GT(outcome.likes, 0);
  EXPECT_GE(outcome.settle_ms, 0);
  // The hottest content (30% of the picks on top of Zipf) as the database of record has it.
  like::ReconcileResponse reconciled;
  AdmissionContext context;
  like::ReconcileRequest request;
  request.set_content_id(5001);
  ASSERT_TRUE(static_cast<like::LikeServiceBase*>(embedded.app->services()[0])
                  ->Reconcile(context, request, &reconciled)
                  .ok());
  EXPECT_GT(reconciled.database_likes(), 0);
  EXPECT_THAT(run.out, HasSubstr("\ncheck: PASS\n"));
  EXPECT_THAT(run.out, HasSubstr("\nLIKE check=pass contents=20 "));
  EXPECT_THAT(LastLine(run.out), StartsWith("RESULT qps="));
  EXPECT_THAT(LastLine(run.out), HasSubstr(" errors=0 mismatched=0"));
}

// A like provider whose counts are a map the test's SetLike keeps, and whose Reconcile claims all
// is well: the bench must not take its word.
class MapCountedLike : public like::LikeServiceBase {
 public:
  Status GetCounts(ServerContext&, const like::GetCountsRequest& request,
                   like::GetCountsResponse* response) override {
    std::lock_guard lock(mu_);
    for (int64_t id : request.content_ids()) response->add_counts(counts_[id]);
    return Status::Ok();
  }
  Status Reconcile(ServerContext&, const like::ReconcileRequest&,
                   like::ReconcileResponse*) override {
    return Status::Ok();
  }

 protected:
  std::mutex mu_;
  std::map<int64_t, int64_t> counts_;  // by content id
};

// A provider that counts every liked=true call, repeats and all, and never an unlike: the check
// must find the counts off the truth.
class MiscountingLike final : public MapCountedLike {
 public:
  Status SetLike(ServerContext&, const like::SetLikeRequest& request,
                 like::SetLikeResponse* response) override {
    std::lock_guard lock(mu_);
    if (request.liked()) ++counts_[request.content_id()];
    response->set_changed(true);
    response->set_count(counts_[request.content_id()]);
    return Status::Ok();
  }
};

TEST(LikeCommandTest, AProviderThatMiscountsFailsTheCheck) {
  MiscountingLike miscounting;
  Service* services[] = {&miscounting};
  const LikeRun run = RunLike(services, [](const std::string& target) {
    LikeBenchOptions options = SmallRun(target);
    options.settle_timeout_s = 0.5;
    return options;
  });
  const LikeBenchOutcome& outcome = run.outcome;

  EXPECT_EQ(run.exit_code, 1) << run.output();
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.errors, 0u);
  EXPECT_GT(outcome.mismatched, 0);
  EXPECT_EQ(outcome.settle_ms, -1);
  EXPECT_THAT(run.out, HasSubstr("\ncheck: FAIL; "));
  EXPECT_THAT(run.out, HasSubstr("contents' counts are not the truth, content 500"));
  EXPECT_THAT(run.out, HasSubstr("\nLIKE check=fail "));
  EXPECT_THAT(LastLine(run.out), StartsWith("RESULT qps="));
}

// Keeps the state right (a set per content) but answers some calls only after the caller's
// timeout, having applied them: the bench must resend those with the same request id and state,
// and count a pair whose every attempt timed out as uncertain, not as its last wish.
class LateLike final : public MapCountedLike {
 public:
  // `late(request_id, attempt)`: whether attempt (1, 2, ...) of that request answers late.
  explicit LateLike(std::function<bool(const std::string&, int)> late) : late_(std::move(late)) {}

  Status SetLike(ServerContext&, const like::SetLikeRequest& request,
                 like::SetLikeResponse* response) override {
    bool late = false;
    {
      std::lock_guard lock(mu_);
      auto& [attempts, liked] = requests_[request.request_id()];
      if (attempts > 0 && liked != request.liked()) ++resent_with_another_state_;
      liked = request.liked();
      late = late_(request.request_id(), ++attempts);
      bool& state = state_[{request.content_id(), request.user_id()}];
      if (state != request.liked()) counts_[request.content_id()] += request.liked() ? 1 : -1;
      state = request.liked();
      response->set_count(counts_[request.content_id()]);
    }
    if (late) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    return Status::Ok();
  }

  int resent() {
    std::lock_guard lock(mu_);
    int n = 0;
    for (const auto& [id, request] : requests_) n += request.first > 1 ? 1 : 0;
    return n;
  }
  int resent_with_another_state() {
    std::lock_guard lock(mu_);
    return resent_with_another_state_;
  }

 private:
  const std::function<bool(const std::string&, int)> late_;
  std::map<std::string, std::pair<int, bool>> requests_;  // request id -> attempts, liked
  std::map<std::pair<int64_t, std::string>, bool> state_;
  int resent_with_another_state_ = 0;
};

LikeBenchOptions LateRun(const std::string& target) {
  LikeBenchOptions options = SmallRun(target);
  options.calls = 300;
  options.get_ratio = 0;
  options.channel.timeout_ms = 100;
  options.retries = 2;
  return options;
}

bool OneIn(const std::string& request_id, size_t n) {
  return std::hash<std::string>{}(request_id) % n == 0;
}

TEST(LikeCommandTest, ATimedOutSetLikeIsResentWithTheSameRequestAndCountedOnce) {
  LateLike provider_service(
      [](const std::string& id, int attempt) { return attempt == 1 && OneIn(id, 6); });
  Service* services[] = {&provider_service};
  const LikeRun run = RunLike(services, LateRun);
  const LikeBenchOutcome& outcome = run.outcome;

  EXPECT_EQ(run.exit_code, 0) << run.output();
  EXPECT_TRUE(outcome.passed);
  EXPECT_GT(outcome.retries, 0u);
  EXPECT_GT(provider_service.resent(), 0);
  EXPECT_EQ(provider_service.resent_with_another_state(), 0);
  EXPECT_EQ(outcome.set_calls + outcome.errors, 300u);
  EXPECT_EQ(outcome.mismatched, 0);
}

TEST(LikeCommandTest, ASetLikeWhoseEveryAttemptTimedOutIsUncertainNotWrong) {
  LateLike provider_service([](const std::string& id, int) { return OneIn(id, 10); });
  Service* services[] = {&provider_service};
  const LikeRun run = RunLike(services, LateRun);
  const LikeBenchOutcome& outcome = run.outcome;

  // Applied although never acknowledged: the count may hold them, and the check allows it.
  EXPECT_EQ(run.exit_code, 0) << run.output();
  EXPECT_TRUE(outcome.passed);
  EXPECT_GT(outcome.errors, 0u);
  ASSERT_FALSE(outcome.errors_by_status.empty());
  EXPECT_EQ(outcome.errors_by_status[0].first, "DEADLINE_EXCEEDED");
  EXPECT_GT(outcome.uncertain_pairs, 0);
  EXPECT_EQ(outcome.mismatched, 0);
  EXPECT_THAT(run.out, HasSubstr(" (content, user) uncertain\n"));
}

// Each user belongs to one slot of the load, so there must be a user per slot.
TEST(LikeCommandTest, FewerUsersThanCallsInFlightIsRefused) {
  const char* argv[] = {"like",    "--target", "127.0.0.1:1", "--conns", "2",
                        "--depth", "8",        "--users",     "15"};
  testing::internal::CaptureStderr();
  EXPECT_EQ(kLikeCommand.run(9, argv), 2);
  EXPECT_THAT(testing::internal::GetCapturedStderr(),
              HasSubstr("--users: at least --conns x --depth = 16, got 15"));
}

}  // namespace
}  // namespace ferry::bench
