#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "service/visit_log.h"
#include "service/visit_sink.h"

namespace ferry::shortlink {

struct RecorderOptions {
  std::string secret;           // of visitor hashes (LinkStore::SharedSecret)
  size_t max_queued = 100'000;  // visits waiting for the log; more are dropped and counted
  size_t batch = 500;
};

// The redirect path's VisitSink: Record only queues (never waits); a thread of its own turns
// visits into events (visitor hash, referrer host, bot flag) and appends them to the log in
// batches, retrying a batch the log refused (Redis away) until it takes it. A retried batch
// may be appended twice; its event ids make the consumer count it once.
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

  VisitLog* const log_;
  const RecorderOptions options_;
  const std::string id_prefix_;  // random per recorder: event ids never repeat across restarts
  uint64_t next_seq_ = 0;        // writer thread only
  std::atomic<uint64_t> recorded_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> appended_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Visit> queue_;  // guarded by mu_
  size_t in_flight_ = 0;     // guarded by mu_: taken by the writer, not appended yet
  bool stopping_ = false;    // guarded by mu_
  std::thread thread_;       // last: starts once the rest is made
};

}  // namespace ferry::shortlink
