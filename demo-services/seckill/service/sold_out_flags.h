#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

namespace ferry::seckill {

// Per activity+sku: "the last look found no stock", so that the flood after the sale ends is
// answered SOLD_OUT in the provider without touching the cache. Set and cleared by the stock
// signals of every provider (SeckillCore::ApplyStockSignal); a flag still expires after `ttl_ms`
// so that stock returned through another provider is seen again even when its signal was lost.
class SoldOutFlags {
 public:
  explicit SoldOutFlags(int64_t ttl_ms) : ttl_ms_(ttl_ms) {}

  bool IsSoldOut(int64_t activity_id, int64_t sku_id, int64_t now_ms) const {
    std::lock_guard lock(mutex_);
    auto it = set_at_.find({activity_id, sku_id});
    return it != set_at_.end() && now_ms - it->second < ttl_ms_;
  }
  void Set(int64_t activity_id, int64_t sku_id, int64_t now_ms) {
    std::lock_guard lock(mutex_);
    set_at_[{activity_id, sku_id}] = now_ms;
  }
  void Clear(int64_t activity_id, int64_t sku_id) {
    std::lock_guard lock(mutex_);
    set_at_.erase({activity_id, sku_id});
  }

 private:
  const int64_t ttl_ms_;
  mutable std::mutex mutex_;
  std::map<std::pair<int64_t, int64_t>, int64_t> set_at_;
};

}  // namespace ferry::seckill
