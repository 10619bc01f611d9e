#include "ferry/framework/cancellation.h"

#include <thread>
#include <utility>

namespace ferry {

void Cancellation::Lock() {
  while (locked_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
}

void Cancellation::Cancel() {
  Binding binding;
  Lock();
  if (cancelled_.load(std::memory_order_relaxed)) {
    Unlock();
    return;
  }
  cancelled_.store(true, std::memory_order_release);
  binding = std::move(binding_);
  binding_ = Binding{};
  Unlock();
  if (binding.fn == nullptr) return;
  if (const std::shared_ptr<void> target = binding.target.lock())
    binding.fn(target.get(), binding.arg);
}

void Cancellation::Bind(CancelFn fn, std::weak_ptr<void> target, uint64_t arg) {
  Binding replaced;
  Lock();
  if (!cancelled_.load(std::memory_order_relaxed)) {
    replaced = std::exchange(binding_, Binding{fn, std::move(target), arg});
    Unlock();
    return;
  }
  Unlock();
  if (const std::shared_ptr<void> locked = target.lock()) fn(locked.get(), arg);
}

}  // namespace ferry
