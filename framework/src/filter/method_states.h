#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ferry/framework/method_spec.h"

namespace ferry::filter {

// What each filter of a chain keeps for one method (Filter::NewMethodState), by filter index.
using FilterMethodStates = std::vector<std::shared_ptr<void>>;

// The per-method states of one client filter chain, found from the MethodSpec a call carries.
// Made once per method name, under a lock, by `make`; afterwards a call finds its method's
// states through a slot keyed by the spec's address and checked against the addresses and
// lengths of its names, so a spec that dies and leaves its address to another (a spec built at
// run time) is never mistaken for it, and generated specs are found without comparing a byte.
class MethodStates {
 public:
  using Make = std::function<FilterMethodStates(const MethodSpec& method)>;

  explicit MethodStates(Make make) : make_(std::move(make)) {}
  MethodStates(const MethodStates&) = delete;
  MethodStates& operator=(const MethodStates&) = delete;

  const FilterMethodStates& For(const MethodSpec& method) {
    const Alias* alias = slots_[SlotOf(method)].load(std::memory_order_acquire);
    if (alias != nullptr && alias->Matches(method)) return *alias->states;
    return Slow(method);
  }

 private:
  static constexpr size_t kSlots = 64;
  // Beyond this many distinct specs (run-time ones, made per call), new ones are served by the
  // locked lookup instead of being remembered: memory stays bounded.
  static constexpr size_t kMaxAliases = 4096;

  // One spec object that names a method, and that method's states.
  struct Alias {
    const MethodSpec* spec;
    const char* service;
    size_t service_size;
    const char* method;
    size_t method_size;
    const FilterMethodStates* states;
    bool Matches(const MethodSpec& m) const {
      return spec == &m && service == m.service.data() && service_size == m.service.size() &&
             method == m.method.data() && method_size == m.method.size();
    }
  };

  static size_t SlotOf(const MethodSpec& method) {
    return static_cast<size_t>(
        (reinterpret_cast<uintptr_t>(&method) >> 3) * 0x9E3779B97F4A7C15ULL >> 58);
  }
  const FilterMethodStates& Slow(const MethodSpec& method);

  const Make make_;
  std::array<std::atomic<const Alias*>, kSlots> slots_{};
  std::mutex mu_;
  std::map<std::string, FilterMethodStates, std::less<>> by_name_;  // "service/method"
  std::deque<Alias> aliases_;  // stable addresses: slots point into it
};

}  // namespace ferry::filter
