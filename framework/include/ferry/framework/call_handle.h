#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <utility>

#include "ferry/framework/cancellation.h"
#include "ferry/framework/result.h"

namespace ferry {

// What the callback form of a generated proxy method returns: a way to give the call up. Once
// cancelled, the call completes at once with CANCELLED (unless it already completed) and the
// server is told to drop it. Copyable; a handle kept after the call completed cancels nothing.
class CallHandle {
 public:
  CallHandle() = default;
  explicit CallHandle(std::shared_ptr<Cancellation> cancellation)
      : cancellation_(std::move(cancellation)) {}

  void Cancel() const {
    if (cancellation_ != nullptr) cancellation_->Cancel();
  }

 private:
  std::shared_ptr<Cancellation> cancellation_;
};

// What the future form of a generated proxy method returns: the call's result once it
// completes, and a way to give it up meanwhile. Move-only, like the std::future inside.
template <class Response>
class CallFuture {
 public:
  CallFuture(std::future<Result<Response>> future, CallHandle handle)
      : future_(std::move(future)), handle_(std::move(handle)) {}

  // Blocks until the call completes; once only.
  Result<Response> get() { return future_.get(); }
  void wait() const { future_.wait(); }
  template <class Rep, class Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& timeout) const {
    return future_.wait_for(timeout);
  }
  bool valid() const { return future_.valid(); }

  void Cancel() const { handle_.Cancel(); }
  const CallHandle& handle() const { return handle_; }

 private:
  std::future<Result<Response>> future_;
  CallHandle handle_;
};

}  // namespace ferry
