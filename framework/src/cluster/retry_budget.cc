#include "cluster/retry_budget.h"

#include <algorithm>
#include <cmath>

namespace ferry::cluster {
namespace {

constexpr int64_t kCapacitySeconds = 10;
constexpr int64_t kMinCapacityTokens = 10;

}  // namespace

RetryBudget::RetryBudget(double ratio, uint32_t min_per_second, Clock::time_point now)
    : deposit_(std::llround(std::clamp(ratio, 0.0, 1.0) * kToken)),
      per_second_(min_per_second),
      capacity_(std::max<int64_t>(kCapacitySeconds * min_per_second, kMinCapacityTokens) * kToken),
      balance_(std::min<int64_t>(int64_t{min_per_second} * kToken, capacity_)),
      refilled_until_(now.time_since_epoch().count()) {}

void RetryBudget::Deposit() {
  if (deposit_ == 0 || balance_.load(std::memory_order_relaxed) >= capacity_) return;
  balance_.fetch_add(deposit_, std::memory_order_relaxed);
}

bool RetryBudget::TrySpend(Clock::time_point now) {
  Refill(now);
  int64_t balance = balance_.load(std::memory_order_relaxed);
  while (balance >= kToken) {
    if (balance_.compare_exchange_weak(balance, std::min(balance, capacity_) - kToken,
                                       std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

// Credits min_per_second for the time since the last credit. Only whole thousandths are
// credited and the clock advanced just as far, so frequent refills lose nothing to rounding.
void RetryBudget::Refill(Clock::time_point now) {
  if (per_second_ == 0) return;
  constexpr int64_t kTicksPerSecond = Clock::period::den / Clock::period::num;
  const int64_t now_ticks = now.time_since_epoch().count();
  int64_t since = refilled_until_.load(std::memory_order_relaxed);
  for (;;) {
    const int64_t elapsed = now_ticks - since;
    if (elapsed <= 0) return;
    // Elapsed time beyond what fills the bucket is worthless; capping it avoids overflow.
    const int64_t useful = std::min<int64_t>(elapsed, kCapacitySeconds * 2 * kTicksPerSecond);
    const int64_t credit = static_cast<int64_t>(static_cast<__int128>(useful) * per_second_ *
                                                kToken / kTicksPerSecond);
    if (credit == 0) return;
    const int64_t accounted =
        elapsed == useful ? static_cast<int64_t>(static_cast<__int128>(credit) * kTicksPerSecond /
                                                 (int64_t{per_second_} * kToken))
                          : elapsed;
    if (refilled_until_.compare_exchange_weak(since, since + accounted,
                                              std::memory_order_relaxed)) {
      int64_t balance = balance_.load(std::memory_order_relaxed);
      while (!balance_.compare_exchange_weak(balance, std::min(balance + credit, capacity_),
                                             std::memory_order_relaxed)) {
      }
      return;
    }
  }
}

}  // namespace ferry::cluster
