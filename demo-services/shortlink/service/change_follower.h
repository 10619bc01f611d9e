#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "service/link_resolver.h"
#include "storage/link_store.h"

namespace ferry::shortlink {

// Tails the database's change log so that a create or change reaches this provider's caches
// and the shared filter even when the provider that made it lost its write (Redis timed out)
// and died before repeating it. Each step
// reads the changes logged since its last step began, less `lag_ms` (a transaction commits a
// little after it logged its time, so a change can appear late), and makes the caches forget
// versions older than each and the filter add the code; changes already seen are skipped.
class ChangeFollower {
 public:
  ChangeFollower(LinkStore* store, LinkResolver* resolver, std::function<int64_t()> now_ms,
                 int64_t lag_ms = 10'000)
      : store_(store), resolver_(resolver), now_ms_(std::move(now_ms)), lag_ms_(lag_ms) {}

  Status Step();

 private:
  LinkStore* const store_;
  LinkResolver* const resolver_;
  const std::function<int64_t()> now_ms_;
  const int64_t lag_ms_;
  int64_t since_ms_ = 0;             // 0: from now on
  std::map<int64_t, int64_t> seen_;  // change id -> when this provider first read it
};

}  // namespace ferry::shortlink
