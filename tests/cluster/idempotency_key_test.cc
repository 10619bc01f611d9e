// A method marked (ferry.idempotency_key) through a cluster channel: only calls that carry the
// key are retried after they may have run, or duplicated by backup requests.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cluster_test_util.h"
#include "ferry/framework/server.h"
#include "likes.ferry.h"
#include "stats/framework_metrics.h"

namespace ferry::cluster {
namespace {

using codegen_test::likes::LikesBase;
using codegen_test::likes::LikesMethods;
using codegen_test::likes::LikesProxy;
using codegen_test::likes::SetLikeRequest;
using codegen_test::likes::SetLikeResponse;

// Each call of a test has a content id of its own, by which the providers count it.
constexpr uint64_t kUnkeyed = 1;
constexpr uint64_t kKeyed = 2;

// A Likes provider on an ephemeral loopback port that counts the SetLike calls reaching it, per
// content id, and can be told to fail them or to hold them until released.
class LikesProvider final : public LikesBase {
 public:
  LikesProvider() {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    server_ = std::make_unique<Server>(options);
    Status added = server_->AddService(this);
    EXPECT_TRUE(added.ok()) << added;
    Status started = server_->Start();
    EXPECT_TRUE(started.ok()) << started;
    address_ = "127.0.0.1:" + std::to_string(server_->port());
  }
  ~LikesProvider() override {
    Release();
    server_->Stop();
  }

  const std::string& address() const { return address_; }

  // SetLike answers with this code instead (0: answers normally).
  std::atomic<uint32_t> fail_code{0};

  // Until Release(), SetLike waits (a cancel from the caller ends the wait).
  void Hold() {
    std::lock_guard lock(mu_);
    held_ = true;
  }
  void Release() {
    {
      std::lock_guard lock(mu_);
      held_ = false;
    }
    released_.notify_all();
  }

  uint64_t calls(uint64_t content_id) const {
    std::lock_guard lock(mu_);
    auto it = calls_.find(content_id);
    return it == calls_.end() ? 0 : it->second;
  }

  Status SetLike(ServerContext& context, const SetLikeRequest& request,
                 SetLikeResponse* response) override {
    {
      std::unique_lock lock(mu_);
      ++calls_[request.content_id()];
      // In slices, to notice the caller cancelling a losing attempt.
      while (held_ && !context.cancelled()) released_.wait_for(lock, std::chrono::milliseconds(5));
    }
    if (const uint32_t code = fail_code.load(); code != 0) {
      return Status(static_cast<StatusCode>(code), "told to fail by the test");
    }
    response->set_content_id(request.content_id());
    response->set_liked(request.liked());
    return Status::Ok();
  }

 private:
  std::unique_ptr<Server> server_;
  std::string address_;
  mutable std::mutex mu_;
  std::condition_variable released_;
  bool held_ = false;
  std::map<uint64_t, uint64_t> calls_;
};

ClusterOptions LikesOptions(const std::string& mode) {
  ClusterOptions options = TestOptions(mode);
  options.service = std::string(LikesMethods::SetLike.service);
  options.fault_tolerance.max_attempts = 2;
  options.fault_tolerance.backup_delay = 10ms;
  options.fault_tolerance.retry_budget_ratio = 1.0;
  return options;
}

SetLikeRequest SetLikeOf(uint64_t content_id, std::string request_id) {
  SetLikeRequest request;
  request.set_content_id(content_id);
  request.set_liked(true);
  request.set_request_id(std::move(request_id));
  return request;
}

const stats::ClusterMetrics& LikesMetrics() {
  return stats::ClusterFor(LikesMethods::SetLike.service);
}

TEST(IdempotencyKeyTest, InBackupModeACallWithAKeyGetsABackupRequest) {
  LikesProvider a, b;
  a.Hold();
  b.Hold();
  LikesProxy proxy(
      NewTestChannel(LikesOptions("backup"), StaticRegistry({a.address(), b.address()})));
  const uint64_t backups_before = LikesMetrics().backup_requests->Value();
  std::promise<Status> keyed;
  proxy.SetLikeWithCallback(SetLikeOf(kKeyed, "req-1"), [&keyed](Result<SetLikeResponse> result) {
    keyed.set_value(result.status());
  });
  // Both providers hold their attempt: the second can only be the backup.
  ASSERT_TRUE(WaitFor([&] { return a.calls(kKeyed) + b.calls(kKeyed) == 2; }, 5s));
  EXPECT_EQ(a.calls(kKeyed), 1u);
  EXPECT_EQ(b.calls(kKeyed), 1u);
  a.Release();
  b.Release();
  const Status status = keyed.get_future().get();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(LikesMetrics().backup_requests->Value() - backups_before, 1u);
}

TEST(IdempotencyKeyTest, InBackupModeACallWithoutAKeyGoesToOneProviderOnly) {
  LikesProvider a, b;
  a.Hold();
  b.Hold();
  LikesProxy proxy(
      NewTestChannel(LikesOptions("backup"), StaticRegistry({a.address(), b.address()})));
  const uint64_t backups_before = LikesMetrics().backup_requests->Value();
  auto unkeyed = proxy.SetLikeAsync(SetLikeOf(kUnkeyed, ""));
  ASSERT_TRUE(WaitFor([&] { return a.calls(kUnkeyed) + b.calls(kUnkeyed) == 1; }, 5s));
  // A keyed call started after it, with the same backup delay, stands in for a clock: once its
  // backup has arrived, one of the unkeyed call would have too.
  std::promise<Status> keyed;
  proxy.SetLikeWithCallback(SetLikeOf(kKeyed, "req-1"), [&keyed](Result<SetLikeResponse> result) {
    keyed.set_value(result.status());
  });
  ASSERT_TRUE(WaitFor([&] { return a.calls(kKeyed) + b.calls(kKeyed) == 2; }, 5s));
  EXPECT_EQ(a.calls(kUnkeyed) + b.calls(kUnkeyed), 1u);
  a.Release();
  b.Release();
  const Result<SetLikeResponse> result = unkeyed.get();
  EXPECT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(keyed.get_future().get().ok());
  EXPECT_EQ(a.calls(kUnkeyed) + b.calls(kUnkeyed), 1u);
  EXPECT_EQ(LikesMetrics().backup_requests->Value() - backups_before, 1u) << "the keyed call's";
}

// Both providers answer UNAVAILABLE, which a request that reached a provider may have run
// before: only the keyed call may run again, on the other provider.
void ExpectOnlyTheKeyedCallRetried(const ClusterOptions& options) {
  LikesProvider a, b;
  a.fail_code = b.fail_code = static_cast<uint32_t>(StatusCode::UNAVAILABLE);
  LikesProxy proxy(NewTestChannel(options, StaticRegistry({a.address(), b.address()})));
  const uint64_t retries_before = LikesMetrics().retries->Value();
  EXPECT_EQ(proxy.SetLike(SetLikeOf(kUnkeyed, "")).status().code(), StatusCode::UNAVAILABLE);
  EXPECT_EQ(a.calls(kUnkeyed) + b.calls(kUnkeyed), 1u);
  EXPECT_EQ(LikesMetrics().retries->Value(), retries_before);

  EXPECT_EQ(proxy.SetLike(SetLikeOf(kKeyed, "req-1")).status().code(), StatusCode::UNAVAILABLE);
  EXPECT_EQ(a.calls(kKeyed), 1u);
  EXPECT_EQ(b.calls(kKeyed), 1u);
  EXPECT_EQ(LikesMetrics().retries->Value() - retries_before, 1u);
}

TEST(IdempotencyKeyTest, InFailoverModeOnlyACallWithAKeyIsRetriedAfterItWasSent) {
  ExpectOnlyTheKeyedCallRetried(LikesOptions("failover"));
}

// With no mode, the default follows the call's idempotence: failover with a key, failfast
// without.
TEST(IdempotencyKeyTest, WithNoModeOnlyACallWithAKeyFailsOver) {
  ExpectOnlyTheKeyedCallRetried(LikesOptions(/*mode=*/""));
}

TEST(IdempotencyKeyTest, WithNoModeInAMethodEntryOnlyACallWithAKeyFailsOver) {
  ClusterOptions options = LikesOptions("failfast");
  options.method_fault_tolerance["SetLike"] = options.fault_tolerance;
  options.method_fault_tolerance["SetLike"].mode = "";
  ExpectOnlyTheKeyedCallRetried(options);
}

}  // namespace
}  // namespace ferry::cluster
