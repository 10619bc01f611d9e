#include "provider_list_recorder.h"

#include <algorithm>

namespace ferry::testsupport {

Registry::Listener ProviderListRecorder::Listener() {
  return [this](const std::vector<ProviderInfo>& providers) {
    {
      std::lock_guard lock(mu_);
      latest_ = providers;
      ++calls_;
    }
    changed_.notify_all();
  };
}

bool ProviderListRecorder::WaitFor(const Predicate& predicate, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return latest_ && predicate(*latest_); });
}

bool ProviderListRecorder::WaitForAddresses(std::vector<std::string> addresses,
                                            std::chrono::milliseconds timeout) {
  std::sort(addresses.begin(), addresses.end());
  return WaitFor([&](const auto& providers) { return Addresses(providers) == addresses; }, timeout);
}

std::optional<std::vector<ProviderInfo>> ProviderListRecorder::latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

size_t ProviderListRecorder::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

std::vector<std::string> Addresses(const std::vector<ProviderInfo>& providers) {
  std::vector<std::string> addresses;
  for (const auto& provider : providers) addresses.push_back(provider.address);
  std::sort(addresses.begin(), addresses.end());
  return addresses;
}

}  // namespace ferry::testsupport
