#include "storage/memory_admission_line.h"

namespace ferry::seckill {

void MemoryAdmissionLine::Expire(Line& line, int64_t now_ms, int64_t wait_ttl_ms) {
  while (!line.by_expiry.empty() && line.by_expiry.begin()->first <= now_ms) {
    line.admitted.erase(line.by_expiry.begin()->second);
    line.by_expiry.erase(line.by_expiry.begin());
  }
  while (!line.by_seen.empty() && line.by_seen.begin()->first <= now_ms - wait_ttl_ms) {
    RemoveWaiter(line, std::string(line.by_seen.begin()->second));
  }
}

void MemoryAdmissionLine::RemoveWaiter(Line& line, const std::string& user) {
  const auto it = line.waiters.find(user);
  if (it == line.waiters.end()) return;
  line.tickets.erase(it->second.ticket);
  line.by_seen.erase({it->second.seen_ms, user});
  line.waiters.erase(it);
}

Status MemoryAdmissionLine::Ask(const AdmissionAsk& ask, AdmissionTurn* turn) {
  std::lock_guard lock(mu_);
  Line& line = lines_[{ask.activity_id, ask.sku_id}];
  Expire(line, ask.now_ms, ask.wait_ttl_ms);
  *turn = AdmissionTurn{};
  if (const auto it = line.admitted.find(ask.user); it != line.admitted.end()) {
    turn->admitted = true;
    turn->expires_ms = it->second;
    return Status::Ok();
  }
  auto waiter = line.waiters.find(ask.user);
  if (waiter == line.waiters.end()) {
    if (static_cast<int64_t>(line.waiters.size()) >= ask.max_waiting) {
      turn->position = static_cast<int64_t>(line.waiters.size());
      return Status::Ok();
    }
    const int64_t ticket = line.next_ticket++;
    line.tickets.insert(ticket);
    waiter = line.waiters.emplace(ask.user, Waiter{ticket, ask.now_ms}).first;
  } else {
    line.by_seen.erase({waiter->second.seen_ms, ask.user});
    waiter->second.seen_ms = ask.now_ms;
  }
  line.by_seen.emplace(ask.now_ms, ask.user);
  const auto ahead = static_cast<int64_t>(line.tickets.order_of_key(waiter->second.ticket));
  const int64_t free = ask.capacity - static_cast<int64_t>(line.admitted.size());
  if (ahead < free) {
    RemoveWaiter(line, ask.user);
    turn->admitted = true;
    turn->expires_ms = ask.now_ms + ask.admission_ttl_ms;
    line.admitted.emplace(ask.user, turn->expires_ms);
    line.by_expiry.emplace(turn->expires_ms, ask.user);
    return Status::Ok();
  }
  turn->position = ahead;
  return Status::Ok();
}

Status MemoryAdmissionLine::Leave(int64_t activity_id, int64_t sku_id, const std::string& user) {
  std::lock_guard lock(mu_);
  const auto found = lines_.find({activity_id, sku_id});
  if (found == lines_.end()) return Status::Ok();
  Line& line = found->second;
  if (const auto it = line.admitted.find(user); it != line.admitted.end()) {
    line.by_expiry.erase({it->second, user});
    line.admitted.erase(it);
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
