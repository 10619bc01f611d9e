#include "client/pending_call_table.h"

#include <algorithm>

namespace ferry::client {

void PendingCallTable::Insert(uint64_t id, PendingCall call) {
  Shard& shard = ShardOf(id);
  MutexLock lock(shard.mu);
  shard.earliest_deadline = std::min(shard.earliest_deadline, call.deadline);
  ++shard.inserted;
  if (shard.spare.empty()) {
    shard.calls.emplace(id, std::move(call));
    return;
  }
  Map::node_type node = std::move(shard.spare.back());
  shard.spare.pop_back();
  node.key() = id;
  node.mapped() = std::move(call);
  shard.calls.insert(std::move(node));
}

PendingCallTable::Entry PendingCallTable::Extract(Shard& shard, Map::iterator it) {
  Map::node_type node = shard.calls.extract(it);
  Entry entry(node.key(), std::move(node.mapped()));
  // The moved-from callback may still own captures; a recycled node must not keep them alive.
  node.mapped() = PendingCall();
  if (shard.spare.size() < kMaxSpareNodes) shard.spare.push_back(std::move(node));
  return entry;
}

std::optional<PendingCall> PendingCallTable::Take(uint64_t id) {
  Shard& shard = ShardOf(id);
  MutexLock lock(shard.mu);
  auto it = shard.calls.find(id);
  if (it == shard.calls.end()) return std::nullopt;
  return Extract(shard, it).second;
}

void PendingCallTable::TakeAll(std::vector<Entry>* out) {
  for (Shard& shard : shards_) {
    MutexLock lock(shard.mu);
    while (!shard.calls.empty()) out->push_back(Extract(shard, shard.calls.begin()));
    shard.earliest_deadline = Clock::time_point::max();
  }
}

void PendingCallTable::TakeAdmittedBy(uint64_t through_link, std::vector<Entry>* out) {
  for (Shard& shard : shards_) {
    MutexLock lock(shard.mu);
    for (auto it = shard.calls.begin(); it != shard.calls.end();) {
      if (it->second.link <= through_link) {
        out->push_back(Extract(shard, it++));
      } else {
        ++it;
      }
    }
    // earliest_deadline stays a lower bound of what is left.
    if (shard.calls.empty()) shard.earliest_deadline = Clock::time_point::max();
  }
}

Clock::time_point PendingCallTable::TakeExpired(Clock::time_point now, std::vector<Entry>* out) {
  Clock::time_point next = Clock::time_point::max();
  for (Shard& shard : shards_) {
    MutexLock lock(shard.mu);
    if (shard.earliest_deadline > now) {
      next = std::min(next, shard.earliest_deadline);
      continue;
    }
    Clock::time_point earliest = Clock::time_point::max();
    for (auto it = shard.calls.begin(); it != shard.calls.end();) {
      if (it->second.deadline <= now) {
        out->push_back(Extract(shard, it++));
      } else {
        earliest = std::min(earliest, it->second.deadline);
        ++it;
      }
    }
    shard.earliest_deadline = earliest;
    next = std::min(next, earliest);
  }
  return next;
}

size_t PendingCallTable::size() const {
  size_t total = 0;
  for (const Shard& shard : shards_) {
    MutexLock lock(shard.mu);
    total += shard.calls.size();
  }
  return total;
}

uint64_t PendingCallTable::inserted() const {
  uint64_t total = 0;
  for (const Shard& shard : shards_) {
    MutexLock lock(shard.mu);
    total += shard.inserted;
  }
  return total;
}

}  // namespace ferry::client
