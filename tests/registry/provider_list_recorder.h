#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ferry/framework/registry.h"

namespace ferry::testsupport {

// Records what a Registry listener is told, and lets a test wait (bounded) for a given list.
class ProviderListRecorder {
 public:
  using Predicate = std::function<bool(const std::vector<ProviderInfo>&)>;

  Registry::Listener Listener();

  // True once the latest delivered list satisfies `predicate`, false after `timeout`.
  bool WaitFor(const Predicate& predicate, std::chrono::milliseconds timeout);
  // The latest list holds exactly these addresses (in any order).
  bool WaitForAddresses(std::vector<std::string> addresses, std::chrono::milliseconds timeout);

  std::optional<std::vector<ProviderInfo>> latest() const;
  size_t calls() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::optional<std::vector<ProviderInfo>> latest_;
  size_t calls_ = 0;
};

// The addresses of `providers`, sorted.
std::vector<std::string> Addresses(const std::vector<ProviderInfo>& providers);

}  // namespace ferry::testsupport
