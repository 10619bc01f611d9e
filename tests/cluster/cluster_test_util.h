#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/registry.h"
#include "ferry/framework/result.h"

namespace ferry::cluster {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

inline constexpr std::string_view kEchoService = "ferry.demo.EchoService";
// The demo's Delay, declared idempotent by this client: the server does not care, so tests get
// a slow idempotent method whose latency each provider controls.
inline constexpr MethodSpec kIdempotentDelay{
    .service = kEchoService, .method = "Delay", .idempotent = true};

// A started static registry listing `addresses`.
std::shared_ptr<Registry> StaticRegistry(const std::vector<std::string>& addresses);

// Options for tests: short connect and reconnect times, outlier ejection off (tests of it turn
// it on), a generous retry budget, and `mode`.
ClusterOptions TestOptions(const std::string& mode = "failfast");

// Fails the test (and returns nullptr) if the channel cannot be created.
std::shared_ptr<Channel> NewTestChannel(const ClusterOptions& options,
                                        std::shared_ptr<Registry> registry);

demo::EchoRequest EchoOf(std::string payload);
demo::DelayRequest DelayOf(uint32_t sleep_ms, uint32_t fail_code = 0);

// A blocking call of `method` with a DelayRequest, for method specs no proxy has.
Result<demo::EchoResponse> CallDelay(Channel& channel, const MethodSpec& method,
                                     const demo::DelayRequest& request,
                                     const CallOptions& options = {});

// Polls `condition` every few milliseconds until it holds or `timeout` passes.
bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

}  // namespace ferry::cluster
