#include "ferry/framework/cancellation.h"

#include <utility>

namespace ferry {

void Cancellation::Cancel() {
  std::function<void()> hook;
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    hook = std::move(hook_);
    hook_ = nullptr;
  }
  if (hook) hook();
}

bool Cancellation::cancelled() const {
  std::lock_guard lock(mu_);
  return cancelled_;
}

void Cancellation::OnCancel(std::function<void()> hook) {
  std::function<void()> replaced;
  {
    std::unique_lock lock(mu_);
    if (!cancelled_) {
      replaced = std::exchange(hook_, std::move(hook));
      return;
    }
  }
  hook();
}

void Cancellation::Clear() {
  std::function<void()> cleared;
  std::lock_guard lock(mu_);
  cleared = std::move(hook_);
  hook_ = nullptr;
  // `cleared` is destroyed after the lock is released: what it holds may own this object.
}

}  // namespace ferry
