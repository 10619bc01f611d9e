#pragma once

#include <chrono>
#include <functional>

namespace ferry::testsupport {

// Polls `condition` until it is true or `timeout` passes; returns its last value. For what a
// test cannot be told of (a background job's effect seen through the service's own API).
bool Eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = std::chrono::seconds(20),
                std::chrono::milliseconds interval = std::chrono::milliseconds(20));

}  // namespace ferry::testsupport
