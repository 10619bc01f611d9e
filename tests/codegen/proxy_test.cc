#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "echo.ferry.h"
#include "fake_channel.h"

namespace ferry::demo {
namespace {

using ferry::testing::FakeChannel;

class EchoServiceProxyTest : public ::testing::Test {
 protected:
  EchoServiceProxyTest() {
    request_.set_payload("ping");
    reply_.set_payload("pong");
    options_.timeout = std::chrono::milliseconds(75);
    options_.request_id = 42;
    options_.attachments["tenant"] = "blue";
  }

  // The one call the channel saw must be Echo with exactly our request and options.
  void ExpectOneEchoCallAsSent() {
    ASSERT_EQ(channel_->calls().size(), 1u);
    const FakeChannel::RecordedCall& call = channel_->calls()[0];
    EXPECT_EQ(call.method, &EchoServiceMethods::Echo);
    EXPECT_EQ(call.request->SerializeAsString(), request_.SerializeAsString());
    EXPECT_EQ(call.options.timeout, options_.timeout);
    EXPECT_EQ(call.options.request_id, options_.request_id);
    EXPECT_EQ(call.options.attachments, options_.attachments);
  }

  std::shared_ptr<FakeChannel> channel_ = std::make_shared<FakeChannel>();
  EchoServiceProxy proxy_{channel_};
  EchoRequest request_;
  EchoResponse reply_;
  CallOptions options_;
};

TEST_F(EchoServiceProxyTest, BlockingReturnsTheResponse) {
  channel_->SetReply(Status::Ok(), &reply_);
  Result<EchoResponse> result = proxy_.Echo(request_, options_);
  ExpectOneEchoCallAsSent();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->payload(), "pong");
}

TEST_F(EchoServiceProxyTest, BlockingReturnsTheStatus) {
  channel_->SetReply(Status(StatusCode::UNAVAILABLE, "no route"), nullptr);
  Result<EchoResponse> result = proxy_.Echo(request_, options_);
  ExpectOneEchoCallAsSent();
  EXPECT_EQ(result.status(), Status(StatusCode::UNAVAILABLE, "no route"));
}

TEST_F(EchoServiceProxyTest, BlockingWaitsForACompletionFromAnotherThread) {
  channel_->SetReply(Status::Ok(), &reply_);
  channel_->HoldCompletions();
  std::future<Result<EchoResponse>> call =
      std::async(std::launch::async, [this] { return proxy_.Echo(request_, options_); });
  // The call is in flight once the channel saw it; the bound keeps a broken proxy from hanging.
  for (int i = 0; i < 2000 && channel_->calls_seen() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(channel_->calls_seen(), 1u);
  EXPECT_EQ(call.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  channel_->CompleteHeldCalls();
  Result<EchoResponse> result = call.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->payload(), "pong");
}

TEST_F(EchoServiceProxyTest, FutureIsReadyOnlyOnceTheChannelCompletes) {
  channel_->SetReply(Status::Ok(), &reply_);
  channel_->HoldCompletions();
  CallFuture<EchoResponse> future = proxy_.EchoAsync(request_, options_);
  ExpectOneEchoCallAsSent();
  EXPECT_EQ(future.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  channel_->CompleteHeldCalls();
  Result<EchoResponse> result = future.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->payload(), "pong");
}

TEST_F(EchoServiceProxyTest, FutureCarriesTheStatus) {
  channel_->SetReply(Status(StatusCode::DEADLINE_EXCEEDED, "75 ms"), nullptr);
  CallFuture<EchoResponse> future = proxy_.EchoAsync(request_, options_);
  ExpectOneEchoCallAsSent();
  EXPECT_EQ(future.get().status(), Status(StatusCode::DEADLINE_EXCEEDED, "75 ms"));
}

TEST_F(EchoServiceProxyTest, CallbackRunsOnceWithTheResponse) {
  channel_->SetReply(Status::Ok(), &reply_);
  channel_->HoldCompletions();
  int runs = 0;
  std::optional<Result<EchoResponse>> result;
  proxy_.EchoWithCallback(
      request_,
      [&](Result<EchoResponse> r) {
        ++runs;
        result.emplace(std::move(r));
      },
      options_);
  ExpectOneEchoCallAsSent();
  EXPECT_EQ(runs, 0);
  channel_->CompleteHeldCalls();
  ASSERT_EQ(runs, 1);
  ASSERT_TRUE(result->ok()) << result->status();
  EXPECT_EQ((*result)->payload(), "pong");
}

TEST_F(EchoServiceProxyTest, CallbackCarriesTheStatus) {
  channel_->SetReply(Status(StatusCode::OVERLOADED, "queue full"), nullptr);
  std::optional<Result<EchoResponse>> result;
  proxy_.EchoWithCallback(
      request_, [&](Result<EchoResponse> r) { result.emplace(std::move(r)); }, options_);
  ExpectOneEchoCallAsSent();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->status(), Status(StatusCode::OVERLOADED, "queue full"));
}

TEST_F(EchoServiceProxyTest, AsyncFormsTakeDefaultOptionsUnambiguously) {
  channel_->SetReply(Status::Ok(), &reply_);
  // Both compile: `{}` can only be the options of the future form, and the callback form has a
  // name of its own.
  EXPECT_TRUE(proxy_.EchoAsync(request_, {}).get().ok());
  std::optional<Status> status;
  proxy_.EchoWithCallback(request_, [&](Result<EchoResponse> r) { status = r.status(); }, {});
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->ok()) << *status;
}

TEST_F(EchoServiceProxyTest, AsyncFormsHandTheChannelACancellationTheirHandleTriggers) {
  channel_->SetReply(Status::Ok(), &reply_);
  channel_->HoldCompletions();
  CallFuture<EchoResponse> future = proxy_.EchoAsync(request_, options_);
  CallHandle handle = proxy_.EchoWithCallback(
      request_, [](Result<EchoResponse>) {}, options_);
  ASSERT_EQ(channel_->calls().size(), 2u);
  Cancellation* const first = channel_->calls()[0].options.cancellation;
  Cancellation* const second = channel_->calls()[1].options.cancellation;
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(first, second) << "each call has its own";
  // What a channel does with it: binds the call so that a cancel reaches it.
  auto gave_up = std::make_shared<int>(0);
  const auto give_up = [](void* count, uint64_t times) { *static_cast<int*>(count) += times; };
  first->Bind(give_up, gave_up, 1);
  future.Cancel();
  future.Cancel();
  EXPECT_EQ(*gave_up, 1) << "a cancellation fires once";
  EXPECT_TRUE(first->cancelled());
  EXPECT_FALSE(second->cancelled());
  handle.Cancel();
  EXPECT_TRUE(second->cancelled());
  // A call bound after the cancel is given up at once.
  second->Bind(give_up, gave_up, 10);
  EXPECT_EQ(*gave_up, 11);
  // A target that is gone is a call that ended: nothing runs.
  Cancellation unbound;
  std::weak_ptr<int> gone;
  {
    auto target = std::make_shared<int>(0);
    unbound.Bind(give_up, target, 100);
    gone = target;
  }
  unbound.Cancel();
  EXPECT_TRUE(gone.expired());
  channel_->CompleteHeldCalls();
  EXPECT_TRUE(future.get().ok());
}

TEST_F(EchoServiceProxyTest, EachMethodUsesItsOwnSpec) {
  channel_->SetReply(Status::Ok(), &reply_);
  DelayRequest delay;
  delay.set_sleep_ms(3);
  ASSERT_TRUE(proxy_.Delay(delay).ok());
  ASSERT_EQ(channel_->calls().size(), 1u);
  EXPECT_EQ(channel_->calls()[0].method, &EchoServiceMethods::Delay);
  EXPECT_EQ(channel_->calls()[0].request->SerializeAsString(), delay.SerializeAsString());
  // Omitted options mean defaults: the channel applies its own timeout.
  EXPECT_EQ(channel_->calls()[0].options.timeout, std::chrono::milliseconds(0));
}

}  // namespace
}  // namespace ferry::demo
