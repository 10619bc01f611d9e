#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "service/visit_log.h"
#include "service/visit_sink.h"

namespace ferry::shortlink {

struct RecorderOptions {
  std::string secret;           // of visitor hashes (LinkStore::SharedSecret)
  size_t max_queued = 100'000;  // visits waiting for the log; more are dropped and counted
  size_t batch = 500;
};

// The redirect path's VisitSink: Record only queues, on one of several shards so redirects on
// different threads seldom share a lock, and wakes the writer only when it sleeps (it also
// looks every kIdleWait on its own, so a wake lost to a race costs that much delay, never a
// visit). The writer thread turns visits into events (visitor hash, referrer host, bot flag)
// and appends them to the log in batches, retrying a batch the log refused (Redis away) until
// it takes it. A retried batch may be appended twice; its event ids make the consumer count it
// once.
class VisitRecorder final : public VisitSink {
 public:
  VisitRecorder(VisitLog* log, RecorderOptions options);
  ~VisitRecorder() override { Stop(); }

  void Record(Visit visit) override;
  // Appends what is queued (best effort, one attempt) and ends the thread.
  void Stop();

  // Visits handed to Record, dropped or not.
  uint64_t recorded() const { return recorded_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint64_t appended() const { return appended_.load(std::memory_order_relaxed); }

 private:
  void Loop();
  VisitEvent ToEvent(const Visit& visit);

  struct Shard {
    std::mutex mu;
    std::vector<Visit> visits;  // guarded by mu
  };
  static constexpr size_t kShards = 8;
  static constexpr std::chrono::milliseconds kIdleWait{50};

  // Moves every shard's visits to `out`.
  void TakeQueued(std::vector<Visit>* out);
  // Sleeps until a Record wakes it, Stop, or kIdleWait.
  void WaitForVisits();
  // Appends `visits` in batches; `last_try`: one attempt each.
  void Write(std::vector<Visit>& visits, bool last_try);

  VisitLog* const log_;
  const RecorderOptions options_;
  const std::string id_prefix_;  // random per recorder: event ids never repeat across restarts
  uint64_t next_seq_ = 0;        // writer thread only
  std::atomic<uint64_t> recorded_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> appended_{0};
  std::array<Shard, kShards> shards_;
  std::atomic<size_t> pending_{0};  // queued on a shard or taken by the writer, not written yet
  std::atomic<bool> writer_idle_{false};
  std::atomic<bool> stopping_{false};
  std::mutex wake_mu_;  // of wake_ only
  std::condition_variable wake_;
  std::thread thread_;  // last: starts once the rest is made
};

}  // namespace ferry::shortlink
