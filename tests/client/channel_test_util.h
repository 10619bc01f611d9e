#pragma once

#include <google/protobuf/wrappers.pb.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "client/direct_channel.h"
#include "ferry/framework/channel.h"

namespace ferry::testing {

inline constexpr MethodSpec kEchoMethod{"ferry.test.EchoService", "Echo"};

// Polls `condition` every millisecond until it holds or `limit` passes.
inline bool WaitUntil(const std::function<bool()>& condition,
                      std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Options for a channel to a test server: short reconnect backoff, otherwise the defaults.
inline ClientOptions TestOptions(const std::string& target) {
  ClientOptions options;
  options.target = target;
  options.default_timeout = std::chrono::seconds(10);
  options.reconnect_initial = std::chrono::milliseconds(5);
  options.reconnect_max = std::chrono::milliseconds(50);
  return options;
}

inline std::shared_ptr<client::DirectChannel> MakeChannel(const ClientOptions& options) {
  std::shared_ptr<Channel> channel;
  const Status status = NewChannel(options, &channel);
  if (!status.ok()) throw std::runtime_error(status.ToString());
  return std::dynamic_pointer_cast<client::DirectChannel>(channel);
}

struct EchoResult {
  Status status;
  std::string value;
};

// One call, waited for (at most 30 s: a hang shows as DEADLINE_EXCEEDED "test gave up").
inline EchoResult Echo(Channel& channel, const std::string& value, CallOptions options = {}) {
  google::protobuf::StringValue request;
  request.set_value(value);
  auto response = std::make_shared<google::protobuf::StringValue>();
  auto done = std::make_shared<std::promise<Status>>();
  auto completed = done->get_future();
  channel.CallMethod(kEchoMethod, request, response.get(), options,
                     [done, response](const Status& status) { done->set_value(status); });
  if (completed.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    return {Status(StatusCode::DEADLINE_EXCEEDED, "test gave up waiting"), ""};
  }
  return {completed.get(), response->value()};
}

}  // namespace ferry::testing
