#include "server/connection_registry.h"

#include "server/server_connection.h"

namespace ferry::server {

void ConnectionRegistry::Add(std::shared_ptr<ServerConnection> connection) {
  std::lock_guard lock(mu_);
  ServerConnection* key = connection.get();
  connections_.emplace(key, std::move(connection));
}

void ConnectionRegistry::Remove(ServerConnection* connection) {
  std::shared_ptr<ServerConnection> removed;  // released outside the lock
  {
    std::lock_guard lock(mu_);
    const auto it = connections_.find(connection);
    if (it == connections_.end()) return;
    removed = std::move(it->second);
    connections_.erase(it);
    NotifyLocked();
  }
}

void ConnectionRegistry::NotifyCallsFinished() {
  std::lock_guard lock(mu_);
  NotifyLocked();
}

void ConnectionRegistry::CallEnded() {
  // Sequentially consistent with draining_: either the waiter sees no call left, or this
  // thread sees the waiter and wakes it.
  if (live_calls_.fetch_sub(1) != 1 || !draining_.load()) return;
  std::lock_guard lock(mu_);
  NotifyLocked();
}

void ConnectionRegistry::NotifyLocked() {
  // Under the lock, so that a waiter cannot miss it between its check and its wait, nor return
  // and destroy the registry while this thread is still inside notify_all().
  changed_.notify_all();
}

std::vector<std::shared_ptr<ServerConnection>> ConnectionRegistry::Snapshot() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<ServerConnection>> out;
  out.reserve(connections_.size());
  for (const auto& [key, connection] : connections_) out.push_back(connection);
  return out;
}

bool ConnectionRegistry::NoCallsInFlightLocked() const { return live_calls_.load() == 0; }

bool ConnectionRegistry::NoCallsInFlight() const {
  std::lock_guard lock(mu_);
  return NoCallsInFlightLocked();
}

bool ConnectionRegistry::WaitUntilNoCallsInFlight(Clock::time_point deadline) {
  draining_.store(true);
  std::unique_lock lock(mu_);
  return changed_.wait_until(lock, deadline, [&] { return NoCallsInFlightLocked(); });
}

void ConnectionRegistry::WaitUntilNoCallsInFlight() {
  draining_.store(true);
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return NoCallsInFlightLocked(); });
}

bool ConnectionRegistry::WaitUntilEmpty(Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  return changed_.wait_until(lock, deadline, [&] { return connections_.empty(); });
}

bool ConnectionRegistry::WaitUntilGoneAway(Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  const auto all_gone_away = [&] {
    for (const auto& [key, connection] : connections_) {
      if (!connection->GoneAway()) return false;
    }
    return true;
  };
  while (!all_gone_away()) {
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) return false;
  }
  return true;
}

}  // namespace ferry::server
