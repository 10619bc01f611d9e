#include "service/circuit_breaker.h"

namespace ferry::shortlink {

bool CircuitBreaker::Allow(Clock::time_point now) {
  std::lock_guard lock(mu_);
  switch (state_) {
    case State::kClosed:
      return true;
    case State::kOpen:
      if (now - opened_at_ < open_for_) return false;
      state_ = State::kHalfOpen;
      probing_ = true;
      return true;
    case State::kHalfOpen:
      if (probing_) return false;
      probing_ = true;
      return true;
  }
  return false;
}

void CircuitBreaker::Succeeded() {
  std::lock_guard lock(mu_);
  state_ = State::kClosed;
  failures_ = 0;
  probing_ = false;
}

void CircuitBreaker::Failed(Clock::time_point now) {
  std::lock_guard lock(mu_);
  probing_ = false;
  if (state_ == State::kHalfOpen || ++failures_ >= failures_to_open_) {
    if (state_ != State::kOpen) ++openings_;
    state_ = State::kOpen;
    opened_at_ = now;
    failures_ = 0;
  }
}

bool CircuitBreaker::open() const {
  std::lock_guard lock(mu_);
  return state_ != State::kClosed;
}

uint64_t CircuitBreaker::openings() const {
  std::lock_guard lock(mu_);
  return openings_;
}

}  // namespace ferry::shortlink
