#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ferry::server {

class ServerConnection;

// The connections a server must still wait for: open ones, and closed ones whose calls are
// still running. Touched on accept, close and shutdown only, never per call.
class ConnectionRegistry {
 public:
  using Clock = std::chrono::steady_clock;

  void Add(std::shared_ptr<ServerConnection> connection);
  // Idempotent; wakes waiters.
  void Remove(ServerConnection* connection);
  // A connection's last call in flight finished, or its client acknowledged GOAWAY; wakes
  // waiters.
  void NotifyCallsFinished();

  std::vector<std::shared_ptr<ServerConnection>> Snapshot() const;
  bool NoCallsInFlight() const;

  // Each returns whether the condition held before `deadline`.
  bool WaitUntilNoCallsInFlight(Clock::time_point deadline);
  bool WaitUntilEmpty(Clock::time_point deadline);
  // Until every connection acknowledged GOAWAY or closed.
  bool WaitUntilGoneAway(Clock::time_point deadline);

 private:
  bool NoCallsInFlightLocked() const;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::unordered_map<ServerConnection*, std::shared_ptr<ServerConnection>> connections_;
};

}  // namespace ferry::server
