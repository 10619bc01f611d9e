#include "filter/method_states.h"

namespace ferry::filter {

const FilterMethodStates& MethodStates::Slow(const MethodSpec& method) {
  std::lock_guard lock(mu_);
  std::string key;
  key.reserve(method.service.size() + 1 + method.method.size());
  key.append(method.service).append("/").append(method.method);
  auto it = by_name_.find(key);
  if (it == by_name_.end()) it = by_name_.emplace(std::move(key), make_(method)).first;
  if (aliases_.size() < kMaxAliases) {
    const Alias& alias =
        aliases_.emplace_back(Alias{&method, method.service.data(), method.service.size(),
                                    method.method.data(), method.method.size(), &it->second});
    slots_[SlotOf(method)].store(&alias, std::memory_order_release);
  }
  return it->second;
}

}  // namespace ferry::filter
