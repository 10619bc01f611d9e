#pragma once

#include <chrono>
#include <random>

namespace ferry::client {

// Delays between connection attempts: `initial`, doubling after each failure up to `max`, each
// jittered by +-20% so that many clients that lost the same server do not return in lockstep.
class ReconnectBackoff {
 public:
  ReconnectBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max);

  // The wait before the next attempt; advances to the next step.
  std::chrono::milliseconds Next();
  // Once the peer was heard from (a frame received, not merely a connect): the next failure
  // waits `initial` again.
  void Reset();

 private:
  std::chrono::milliseconds initial_;
  std::chrono::milliseconds max_;
  std::chrono::milliseconds step_;
  std::minstd_rand random_;
};

}  // namespace ferry::client
