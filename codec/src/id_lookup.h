#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "ferry/codec/extension_registry.h"

namespace ferry::codec {

// Wire ids map to extension instances on every frame; a lock-free table keeps that lookup off
// any mutex. Instances are created once and kept for the life of the process.
template <class Interface>
class IdLookup {
 public:
  const Interface* ById(uint8_t id) {
    if (const Interface* hit = table_[id].load(std::memory_order_acquire)) return hit;
    Refresh();
    return table_[id].load(std::memory_order_acquire);
  }

  const Interface* ByName(std::string_view name) {
    auto instance = ExtensionRegistry::Instance().Create<Interface>(name);
    if (!instance) return nullptr;
    return Keep(std::move(instance));
  }

 private:
  // Picks up extensions registered since the last refresh (plugins load after start-up).
  void Refresh() {
    auto& registry = ExtensionRegistry::Instance();
    for (const auto& name : registry.Names<Interface>()) {
      if (auto instance = registry.Create<Interface>(name)) Keep(std::move(instance));
    }
  }

  const Interface* Keep(std::shared_ptr<Interface> instance) {
    std::lock_guard lock(mu_);
    auto& slot = table_[instance->id()];
    if (const Interface* existing = slot.load(std::memory_order_acquire)) return existing;
    kept_.push_back(instance);
    slot.store(instance.get(), std::memory_order_release);
    return instance.get();
  }

  std::array<std::atomic<const Interface*>, 256> table_{};
  std::mutex mu_;
  std::vector<std::shared_ptr<Interface>> kept_;
};

}  // namespace ferry::codec
