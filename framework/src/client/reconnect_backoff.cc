#include "client/reconnect_backoff.h"

#include <algorithm>

namespace ferry::client {

ReconnectBackoff::ReconnectBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
    : initial_(std::max(initial, std::chrono::milliseconds(1))),
      max_(std::max(max, initial_)),
      step_(initial_),
      random_(std::random_device{}()) {}

std::chrono::milliseconds ReconnectBackoff::Next() {
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  const auto delay = std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(
      static_cast<double>(step_.count()) * jitter(random_)));
  step_ = std::min(step_ * 2, max_);
  return std::clamp(delay, std::chrono::milliseconds(1), max_);
}

void ReconnectBackoff::Reset() { step_ = initial_; }

}  // namespace ferry::client
