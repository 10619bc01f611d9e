#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "storage/order_store.h"

namespace ferry::seckill {

// Each provider's copy of the blacklist kept in the order store, so that checking a buyer costs
// no query: read when the provider starts, again every `blacklist.refresh_ms` (SeckillApp), and
// at once after this provider's own Blacklist call. While the database cannot be read the last
// copy stays in force.
class BuyerBlacklist {
 public:
  explicit BuyerBlacklist(OrderStore* store) : store_(store) {}

  Status Refresh();
  // Applies `change` to the store, then refreshes; *entries are the lists' sizes afterwards.
  Status Change(const BlacklistChange& change, BlacklistEntries* entries);
  // Whether `user` or `client_address` is listed (either may be empty).
  bool Blocked(std::string_view user, std::string_view client_address) const;

 private:
  // Reads the store's lists into *entries and makes them the copy.
  Status Read(BlacklistEntries* entries);

  struct Copy {
    std::unordered_set<std::string> users;
    std::unordered_set<std::string> addresses;
  };

  OrderStore* const store_;
  mutable std::mutex mu_;
  std::shared_ptr<const Copy> copy_ = std::make_shared<Copy>();  // guarded by mu_
};

}  // namespace ferry::seckill
