#pragma once

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "storage/admission_line.h"

namespace ferry::seckill {

// The admission line of a provider that is alone (the embedded backend), in its memory. A
// restart empties it: buyers ask again and are let in afresh, while admissions already given
// stay valid (they are tokens). Every step is logarithmic in the line's length.
class MemoryAdmissionLine final : public AdmissionLine {
 public:
  Status Ask(const AdmissionAsk& ask, AdmissionTurn* turn) override;
  Status Leave(int64_t activity_id, int64_t sku_id, const std::string& user) override;

 private:
  // Tickets in arrival order, counted below a ticket in logarithmic time (a buyer's place).
  using Tickets =
      __gnu_pbds::tree<int64_t, __gnu_pbds::null_type, std::less<int64_t>, __gnu_pbds::rb_tree_tag,
                       __gnu_pbds::tree_order_statistics_node_update>;
  struct Waiter {
    int64_t ticket = 0;
    int64_t seen_ms = 0;
  };
  struct Line {
    std::unordered_map<std::string, int64_t> admitted;  // user -> expiry
    std::set<std::pair<int64_t, std::string>> by_expiry;
    int64_t next_ticket = 0;
    Tickets tickets;
    std::unordered_map<std::string, Waiter> waiters;
    std::set<std::pair<int64_t, std::string>> by_seen;  // (last asked, user)
  };
  // Drops lapsed admissions and waiters who stopped asking.
  static void Expire(Line& line, int64_t now_ms, int64_t wait_ttl_ms);
  static void RemoveWaiter(Line& line, const std::string& user);

  std::mutex mu_;
  std::map<std::pair<int64_t, int64_t>, Line> lines_;
};

}  // namespace ferry::seckill
