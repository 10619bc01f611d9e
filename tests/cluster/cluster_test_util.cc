#include "cluster_test_util.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "ferry/codegen/unary_call.h"
#include "ferry/framework/cluster_channel.h"

namespace ferry::cluster {

std::shared_ptr<Registry> StaticRegistry(const std::vector<std::string>& addresses) {
  RegistryOptions options;
  options.url = "static://";
  for (size_t i = 0; i < addresses.size(); ++i) options.url += (i ? "," : "") + addresses[i];
  std::shared_ptr<Registry> registry;
  Status status = OpenRegistry(options, &registry);
  EXPECT_TRUE(status.ok()) << status;
  return registry;
}

ClusterOptions TestOptions(const std::string& mode) {
  ClusterOptions options;
  options.service = std::string(kEchoService);
  options.client.default_timeout = 2000ms;
  options.client.connect_timeout = 500ms;
  options.client.reconnect_initial = 20ms;
  options.client.reconnect_max = 200ms;
  options.fault_tolerance.mode = mode;
  options.fault_tolerance.retry_budget_min_per_second = 1000;
  options.outlier.consecutive_failures = 0;
  return options;
}

std::shared_ptr<Channel> NewTestChannel(const ClusterOptions& options,
                                        std::shared_ptr<Registry> registry) {
  std::shared_ptr<Channel> channel;
  Status status = NewClusterChannel(options, std::move(registry), &channel);
  EXPECT_TRUE(status.ok()) << status;
  return channel;
}

demo::EchoRequest EchoOf(std::string payload) {
  demo::EchoRequest request;
  request.set_payload(std::move(payload));
  return request;
}

demo::DelayRequest DelayOf(uint32_t sleep_ms, uint32_t fail_code) {
  demo::DelayRequest request;
  request.set_payload("delay");
  request.set_sleep_ms(sleep_ms);
  request.set_fail_code(fail_code);
  return request;
}

Result<demo::EchoResponse> CallDelay(Channel& channel, const MethodSpec& method,
                                     const demo::DelayRequest& request,
                                     const CallOptions& options) {
  std::promise<Result<demo::EchoResponse>> result;
  codegen::CallbackUnaryCall<demo::EchoResponse>(
      channel, method, request, options,
      [&result](Result<demo::EchoResponse> outcome) { result.set_value(std::move(outcome)); });
  return result.get_future().get();
}

bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

}  // namespace ferry::cluster
