#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <unordered_map>
#include <vector>

#include "thread_annotations.h"

namespace ferry::server {

class ServerConnection;

// What a server must still wait for before it may go: connections, open ones and closed ones
// whose calls are still running, and the calls themselves. The mutex is taken on accept, close
// and shutdown only; a call costs two atomic operations.
//
// Calls are counted apart from their connections' in-flight lists because a call completing on
// a thread the server does not own (an asynchronous handler's) still touches its connection
// after leaving the list: it may hold the connection's last reference, whose destruction needs
// the server's IO contexts. The server is gone only once every call reported CallEnded().
class ConnectionRegistry {
 public:
  using Clock = std::chrono::steady_clock;

  void Add(std::shared_ptr<ServerConnection> connection);
  // Idempotent; wakes waiters.
  void Remove(ServerConnection* connection);
  // A connection's last call in flight finished, or its client acknowledged GOAWAY; wakes
  // waiters.
  void NotifyCallsFinished();

  // A call joined a connection's in-flight list.
  void CallStarted() { live_calls_.fetch_add(1, std::memory_order_relaxed); }
  // The last thing a call does: after it, nothing of the server may be touched by its thread.
  void CallEnded();

  std::vector<std::shared_ptr<ServerConnection>> Snapshot() const;
  bool NoCallsInFlight() const;

  // Each returns whether the condition held before `deadline`.
  bool WaitUntilNoCallsInFlight(Clock::time_point deadline);
  // The same without a deadline, for the server's destructor.
  void WaitUntilNoCallsInFlight();
  bool WaitUntilEmpty(Clock::time_point deadline);
  // Until every connection acknowledged GOAWAY or closed: true when that was seen before
  // `deadline`, false when the deadline came first (whatever the connections did meanwhile).
  bool WaitUntilGoneAway(Clock::time_point deadline);

 private:
  bool NoCallsInFlightLocked() const FERRY_REQUIRES(mu_);
  bool AllGoneAwayLocked() const FERRY_REQUIRES(mu_);
  void NotifyLocked() FERRY_REQUIRES(mu_);

  mutable Mutex mu_;
  std::condition_variable changed_;
  std::unordered_map<ServerConnection*, std::shared_ptr<ServerConnection>> connections_
      FERRY_GUARDED_BY(mu_);
  std::atomic<size_t> live_calls_{0};
  // Set by the first wait for the calls: from then on the last call to end wakes the waiters.
  std::atomic<bool> draining_{false};
};

}  // namespace ferry::server
