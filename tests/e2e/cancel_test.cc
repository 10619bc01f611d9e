// Giving a call up through the handle of an async proxy form: the caller is answered CANCELLED
// at once, and the server is told to drop the call, over a direct and a cluster channel.
#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/cluster_channel.h"
#include "ferry/framework/server.h"
#include "service/echo_service.h"

namespace ferry::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The echo service, telling the test how each Delay ended on the server.
class WatchedEcho final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override {
    return echo_.Echo(context, request, response);
  }
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override {
    started_.set_value();
    const Status status = echo_.Delay(context, request, response);
    ended_.set_value(status);
    return status;
  }
  // Bounded waits for the one Delay a test makes.
  bool Started() { return started_future_.wait_for(10s) == std::future_status::ready; }
  std::optional<Status> Ended() {
    if (ended_future_.wait_for(10s) != std::future_status::ready) return std::nullopt;
    return ended_future_.get();
  }

 private:
  demo::EchoServiceImpl echo_;
  std::promise<void> started_;
  std::future<void> started_future_ = started_.get_future();
  std::promise<Status> ended_;
  std::future<Status> ended_future_ = ended_.get_future();
};

class CancelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.emplace(ServerOptions{.listen = "127.0.0.1:0"});
    ASSERT_TRUE(server_->AddService(&service_).ok());
    ASSERT_TRUE(server_->Start().ok());
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(server_->port()); }

  std::shared_ptr<Channel> Direct() {
    ClientOptions options;
    options.target = address();
    options.default_timeout = 30s;
    std::shared_ptr<Channel> channel;
    EXPECT_TRUE(NewChannel(options, &channel).ok());
    return channel;
  }
  std::shared_ptr<Channel> Cluster(const std::string& mode) {
    std::shared_ptr<Registry> registry;
    EXPECT_TRUE(OpenRegistry(RegistryOptions{.url = "static://" + address()}, &registry).ok());
    ClusterOptions options;
    options.service = "ferry.demo.EchoService";
    options.client.default_timeout = 30s;
    options.fault_tolerance.mode = mode;
    std::shared_ptr<Channel> channel;
    EXPECT_TRUE(NewClusterChannel(options, registry, &channel).ok());
    return channel;
  }

  // A 20 s Delay through `channel`, cancelled once the server runs it: answered CANCELLED long
  // before it would have finished, and the server's handler told to stop.
  void ExpectCancelled(const std::shared_ptr<Channel>& channel) {
    demo::EchoServiceProxy proxy(channel);
    demo::DelayRequest slow;
    slow.set_sleep_ms(20000);
    const Clock::time_point start = Clock::now();
    CallFuture<demo::EchoResponse> call = proxy.DelayAsync(slow);
    ASSERT_TRUE(service_.Started());
    call.Cancel();
    ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
    EXPECT_EQ(call.get().status().code(), StatusCode::CANCELLED);
    const std::optional<Status> ended = service_.Ended();
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->code(), StatusCode::CANCELLED) << "the server stopped the handler";
    EXPECT_LT(Clock::now() - start, 10s);
    call.Cancel();  // once answered, a cancel does nothing
  }

  WatchedEcho service_;
  std::optional<Server> server_;
};

TEST_F(CancelTest, ADirectCallIsCancelledOnBothSides) { ExpectCancelled(Direct()); }

TEST_F(CancelTest, AClusterCallSentOnceIsCancelledOnBothSides) {
  ExpectCancelled(Cluster("failfast"));
}

TEST_F(CancelTest, AClusterCallThatMayRetryIsCancelledOnBothSides) {
  ExpectCancelled(Cluster("failover"));
}

TEST_F(CancelTest, TheCallbackFormRunsItsCallbackOnceWithCancelled) {
  demo::EchoServiceProxy proxy(Direct());
  demo::DelayRequest slow;
  slow.set_sleep_ms(20000);
  std::promise<Status> answered;
  std::atomic<int> callbacks{0};
  CallHandle handle = proxy.DelayWithCallback(slow, [&](Result<demo::EchoResponse> result) {
    if (callbacks.fetch_add(1) == 0) answered.set_value(result.status());
  });
  ASSERT_TRUE(service_.Started());
  handle.Cancel();
  std::future<Status> status = answered.get_future();
  ASSERT_EQ(status.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(status.get().code(), StatusCode::CANCELLED);
  ASSERT_TRUE(service_.Ended());
  EXPECT_EQ(callbacks.load(), 1);
}

TEST_F(CancelTest, CancellingACompletedCallChangesNothing) {
  demo::EchoServiceProxy proxy(Direct());
  demo::EchoRequest request;
  request.set_payload("done");
  CallFuture<demo::EchoResponse> call = proxy.EchoAsync(request);
  call.wait();
  call.Cancel();
  Result<demo::EchoResponse> result = call.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->payload(), "done");
}

}  // namespace
}  // namespace ferry::e2e
