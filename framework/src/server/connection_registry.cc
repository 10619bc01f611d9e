#include "server/connection_registry.h"

#include "server/server_connection.h"

namespace ferry::server {

void ConnectionRegistry::Add(std::shared_ptr<ServerConnection> connection) {
  MutexLock lock(mu_);
  ServerConnection* key = connection.get();
  connections_.emplace(key, std::move(connection));
}

void ConnectionRegistry::Remove(ServerConnection* connection) {
  std::shared_ptr<ServerConnection> removed;  // released outside the lock
  {
    MutexLock lock(mu_);
    const auto it = connections_.find(connection);
    if (it == connections_.end()) return;
    removed = std::move(it->second);
    connections_.erase(it);
    NotifyLocked();
  }
}

void ConnectionRegistry::NotifyCallsFinished() {
  MutexLock lock(mu_);
  NotifyLocked();
}

void ConnectionRegistry::CallEnded() {
  // Sequentially consistent with draining_: either the waiter sees no call left, or this
  // thread sees the waiter and wakes it.
  if (live_calls_.fetch_sub(1) != 1 || !draining_.load()) return;
  MutexLock lock(mu_);
  NotifyLocked();
}

void ConnectionRegistry::NotifyLocked() {
  // Under the lock, so that a waiter cannot miss it between its check and its wait, nor return
  // and destroy the registry while this thread is still inside notify_all().
  changed_.notify_all();
}

std::vector<std::shared_ptr<ServerConnection>> ConnectionRegistry::Snapshot() const {
  MutexLock lock(mu_);
  std::vector<std::shared_ptr<ServerConnection>> out;
  out.reserve(connections_.size());
  for (const auto& [key, connection] : connections_) out.push_back(connection);
  return out;
}

bool ConnectionRegistry::NoCallsInFlightLocked() const { return live_calls_.load() == 0; }

bool ConnectionRegistry::NoCallsInFlight() const {
  MutexLock lock(mu_);
  return NoCallsInFlightLocked();
}

// The waits loop by hand rather than pass a predicate: the analysis cannot see that a
// predicate lambda runs with the lock held.
bool ConnectionRegistry::WaitUntilNoCallsInFlight(Clock::time_point deadline) {
  draining_.store(true);
  MutexLock lock(mu_);
  while (!NoCallsInFlightLocked()) {
    if (changed_.wait_until(lock.native(), deadline) == std::cv_status::timeout) {
      return NoCallsInFlightLocked();
    }
  }
  return true;
}

void ConnectionRegistry::WaitUntilNoCallsInFlight() {
  draining_.store(true);
  MutexLock lock(mu_);
  while (!NoCallsInFlightLocked()) changed_.wait(lock.native());
}

bool ConnectionRegistry::WaitUntilEmpty(Clock::time_point deadline) {
  MutexLock lock(mu_);
  while (!connections_.empty()) {
    if (changed_.wait_until(lock.native(), deadline) == std::cv_status::timeout) {
      return connections_.empty();
    }
  }
  return true;
}

bool ConnectionRegistry::AllGoneAwayLocked() const {
  for (const auto& [key, connection] : connections_) {
    if (!connection->GoneAway()) return false;
  }
  return true;
}

bool ConnectionRegistry::WaitUntilGoneAway(Clock::time_point deadline) {
  MutexLock lock(mu_);
  while (!AllGoneAwayLocked()) {
    if (changed_.wait_until(lock.native(), deadline) == std::cv_status::timeout) return false;
  }
  return true;
}

}  // namespace ferry::server
