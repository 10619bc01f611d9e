#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "ferry/framework/method_spec.h"
#include "thread_annotations.h"

namespace ferry::method {

// One value per method, found from the MethodSpec a call carries: the per-method states of a
// client filter chain, the client-side metrics of a method. Made once per method name, under a
// lock, by `make`; afterwards a call finds its method's value through a slot keyed by the
// spec's address and checked against the addresses and lengths of its names, so a spec that
// dies and leaves its address to another (a spec built at run time) is never mistaken for it,
// and generated specs are found without comparing a byte.
template <class T>
class PerMethodCache {
 public:
  using Make = std::function<T(const MethodSpec& method)>;

  explicit PerMethodCache(Make make) : make_(std::move(make)) {}
  PerMethodCache(const PerMethodCache&) = delete;
  PerMethodCache& operator=(const PerMethodCache&) = delete;

  const T& For(const MethodSpec& method) {
    const Alias* alias = slots_[SlotOf(method)].load(std::memory_order_acquire);
    if (alias != nullptr && alias->Matches(method)) return *alias->value;
    return Slow(method);
  }

 private:
  static constexpr size_t kSlots = 64;
  // Beyond this many distinct specs (run-time ones, made per call), new ones are served by the
  // locked lookup instead of being remembered: memory stays bounded.
  static constexpr size_t kMaxAliases = 4096;

  // One spec object that names a method, and that method's value.
  struct Alias {
    const MethodSpec* spec;
    const char* service;
    size_t service_size;
    const char* method;
    size_t method_size;
    const T* value;
    bool Matches(const MethodSpec& m) const {
      return spec == &m && service == m.service.data() && service_size == m.service.size() &&
             method == m.method.data() && method_size == m.method.size();
    }
  };

  static size_t SlotOf(const MethodSpec& method) {
    return static_cast<size_t>(
        (reinterpret_cast<uintptr_t>(&method) >> 3) * 0x9E3779B97F4A7C15ULL >> 58);
  }

  const T& Slow(const MethodSpec& method) {
    MutexLock lock(mu_);
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

  const Make make_;
  std::array<std::atomic<const Alias*>, kSlots> slots_{};
  Mutex mu_;
  std::map<std::string, T, std::less<>> by_name_ FERRY_GUARDED_BY(mu_);  // "service/method"
  // Stable addresses: slots point into it.
  std::deque<Alias> aliases_ FERRY_GUARDED_BY(mu_);
};

}  // namespace ferry::method
