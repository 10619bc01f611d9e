#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "echo_fixture.h"

namespace ferry::e2e {
namespace {

using namespace std::chrono_literals;

TEST_F(EchoFixture, BlockingFutureAndCallbackFormsAllWork) {
  StartServer();
  auto proxy = NewProxy();
  auto blocking = proxy.Echo(MakeEcho("one"));
  ASSERT_TRUE(blocking.ok()) << blocking.status();
  EXPECT_EQ(blocking->payload(), "one");

  auto future = proxy.EchoAsync(MakeEcho("two"));
  auto from_future = future.get();
  ASSERT_TRUE(from_future.ok()) << from_future.status();
  EXPECT_EQ(from_future->payload(), "two");

  std::promise<Result<demo::EchoResponse>> done;
  proxy.EchoWithCallback(MakeEcho("three"),
                         [&](Result<demo::EchoResponse> r) { done.set_value(std::move(r)); });
  auto from_callback = done.get_future().get();
  ASSERT_TRUE(from_callback.ok()) << from_callback.status();
  EXPECT_EQ(from_callback->payload(), "three");
}

// Many threads share one channel (one connection); every response must reach the call that
// asked for it, through both the pool (Delay) and the inline path (Echo).
TEST_F(EchoFixture, ManyThreadsManyCallsOneConnectionArePairedCorrectly) {
  StartServer(ServerOptions{.worker_threads = 4, .queue_capacity = 100000});
  auto channel = NewClientChannel(ClientOptions{.default_timeout = 20s});
  demo::EchoServiceProxy proxy(channel);
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 400;
  constexpr int kOutstanding = 32;
  std::atomic<int> mismatches{0}, failures{0}, completed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mutex mu;
      std::condition_variable cv;
      int in_flight = 0;
      for (int i = 0; i < kCallsPerThread; ++i) {
        {
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return in_flight < kOutstanding; });
          ++in_flight;
        }
        std::string payload = "t" + std::to_string(t) + "-" + std::to_string(i);
        auto on_done = [&, payload](Result<demo::EchoResponse> r) {
          if (!r.ok()) {
            failures.fetch_add(1);
          } else if (r->payload() != payload) {
            mismatches.fetch_add(1);
          }
          completed.fetch_add(1);
          std::lock_guard lock(mu);
          --in_flight;
          cv.notify_one();
        };
        if (i % 4 == 0) {
          proxy.DelayWithCallback(MakeDelay(0, payload), on_done);
        } else {
          proxy.EchoWithCallback(MakeEcho(payload), on_done);
        }
      }
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return in_flight == 0; });
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(completed.load(), kThreads * kCallsPerThread);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(EchoFixture, ContextCarriesAttachmentsTraceAndRequestId) {
  // A handler that reports what its context saw.
  class ContextEcho : public demo::EchoServiceBase {
   public:
    Status Echo(ServerContext& context, const demo::EchoRequest&,
                demo::EchoResponse* response) override {
      std::string seen = context.trace_id() + "|" + std::to_string(context.request_id()) + "|" +
                         context.attachments().at("tenant") + "|" +
                         (context.has_deadline() ? "deadline" : "none") + "|" +
                         std::string(context.method());
      response->set_payload(seen);
      return Status::Ok();
    }
  } context_echo;
  server_ = std::make_unique<Server>(ServerOptions{});
  ASSERT_TRUE(server_->AddService(&context_echo).ok());
  ASSERT_TRUE(server_->Start().ok());
  auto proxy = NewProxy();
  CallOptions options;
  options.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  options.request_id = 4242;
  options.attachments["tenant"] = "blue";
  options.timeout = 2s;
  auto r = proxy.Echo(MakeEcho(""), options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->payload(), "4bf92f3577b34da6a3ce929d0e0e4736|4242|blue|deadline|Echo");
  server_->Stop();
}

}  // namespace
}  // namespace ferry::e2e
