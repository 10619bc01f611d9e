#pragma once

#include <google/protobuf/message.h>
#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/provider_set.h"
#include "ferry/codec/encoded_request.h"
#include "ferry/framework/channel.h"

namespace ferry::cluster {

// One logical call of a cluster channel whose policy may send it more than once (failover,
// backup requests): its attempts on one or more providers, their shared deadline, the backup
// request timer, and the single completion of the caller's `done` (docs/fault-tolerance.md).
// Calls sent once go through SendSingleAttempt instead.
//
// Every decision (retry, backup, finish) is taken under the call's own mutex, by whichever
// thread has news: the caller while starting, an IO thread with an attempt's result, or the
// backup timer. Attempts are sent under it too; a send that fails at once only records its
// status, and the sender processes it after releasing the mutex.
class ClusterCall {
 public:
  // `pick` is the first attempt's provider; `policy` may resend the call (MayRetry()), and
  // `idempotent` (of this call: MethodSpec::IsIdempotent) says whether a request that may have
  // run may run again or be duplicated. The call's one deadline runs from `started`. `body`,
  // when not null, is `request` as the client filters saw it encoded: every attempt sends those
  // bytes.
  static void Start(Cluster& cluster, const FaultTolerancePolicy& policy, bool idempotent,
                    ProviderPick pick, std::optional<uint64_t> hash_key, const MethodSpec& method,
                    const google::protobuf::Message& request, const codec::EncodedBody* body,
                    google::protobuf::Message* response, const CallOptions& options,
                    std::chrono::steady_clock::time_point started, CallDone done,
                    stats::CallMeter meter);

 private:
  using Clock = std::chrono::steady_clock;

  struct Attempt {
    explicit Attempt(ClusterCall& c) : call(c) {}
    ClusterCall& call;
    ProviderPick pick;
    // This attempt's own response when attempts may overlap (backup requests): the loser must
    // not write into the caller's.
    std::unique_ptr<google::protobuf::Message> scratch;
    Clock::time_point started;
    uint64_t link = 0;
    // Queued and already completed when Call() returned: the link ended while the request was
    // being queued, and the connection may have left it for the next link.
    bool maybe_carried_over = false;
    // On the connection, for cancelling a loser; 0 when the connection refused the request
    // before queueing it, which was then certainly not sent.
    uint64_t request_id = 0;
    bool over = false;  // outcome processed; under the call's mutex
    // Two events, in either order: the connection's Call() returned, and the attempt's done
    // ran. Whoever comes second processes the outcome, so the outcome is judged knowing
    // whether the request could have left (maybe_carried_over).
    std::atomic<int> events{2};
    Status status;
  };

  ClusterCall(Cluster& cluster, bool idempotent, const FaultTolerancePolicy& policy,
              google::protobuf::Message* response, std::chrono::milliseconds timeout,
              Clock::time_point now, std::optional<uint64_t> hash_key,
              codec::EncodedRequest request, CallDone done, stats::CallMeter meter);

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref();

  // Makes `cancellation` finish the call with CANCELLED and cancel its attempts.
  void CancelOn(Cancellation& cancellation);
  // Cancels the attempts still out; the last attempt's completion finishes the call.
  void CancelByCaller();

  // The outcome of `attempt`, then of any attempt that completed while being sent meanwhile.
  void Process(Attempt* attempt);
  Attempt* ProcessOne(Attempt* attempt);
  void OnAttemptDone(Attempt* attempt, const Status& status);
  void OnBackupDue();

  // Each returns an attempt that completed while being sent (to process once mu_ is released),
  // or nullptr.
  bool TryRetryLocked(Attempt** completed) FERRY_REQUIRES(mu_);
  void SendLocked(ProviderPick pick, Clock::time_point now, Attempt** completed)
      FERRY_REQUIRES(mu_);
  Attempt* NewAttemptLocked() FERRY_REQUIRES(mu_);
  void ArmBackupTimerLocked(Clock::time_point now) FERRY_REQUIRES(mu_);
  // The call is over.
  void FinishLocked(Status status, Attempt* winner) FERRY_REQUIRES(mu_);
  // An attempt still out when the call finished, to be cancelled.
  void NoteLoserLocked(Attempt& attempt) FERRY_REQUIRES(mu_);
  // After FinishLocked, unlocked: cancels the losers' requests and runs `done_`. The losers'
  // completions, ignored, may run inside. Outside the analysis: only the thread that finished
  // the call gets here, and what it reads no longer changes once the call is finished.
  void Deliver() FERRY_NO_THREAD_SAFETY_ANALYSIS;

  Cluster& cluster_;
  // Of the call, not of its method: the request's idempotency key may decide it.
  const bool idempotent_;
  const FaultTolerancePolicy& policy_;
  google::protobuf::Message* const response_;
  const std::chrono::milliseconds timeout_;
  const Clock::time_point deadline_;  // max() when unbounded
  const std::optional<uint64_t> hash_key_;
  CallDone done_;
  stats::CallMeter meter_;
  std::atomic<int> refs_{1};

  // Encoded once: the caller's request may be gone by the time a retry or backup goes out.
  const codec::EncodedRequest request_;

  Mutex mu_;
  Attempt first_{*this};
  std::vector<std::unique_ptr<Attempt>> more_ FERRY_GUARDED_BY(mu_);  // retries and backups
  uint32_t sent_ FERRY_GUARDED_BY(mu_) = 0;
  uint32_t in_flight_ FERRY_GUARDED_BY(mu_) = 0;
  bool finished_ FERRY_GUARDED_BY(mu_) = false;
  // The caller gave the call up: no attempt is sent any more, and the call finishes with
  // CANCELLED once none is out.
  bool cancelled_ FERRY_GUARDED_BY(mu_) = false;
  Status result_ FERRY_GUARDED_BY(mu_);
  Attempt* winner_ FERRY_GUARDED_BY(mu_) = nullptr;
  // Attempts still out when the call finished, to cancel.
  std::vector<std::pair<std::shared_ptr<Provider>, uint64_t>> losers_ FERRY_GUARDED_BY(mu_);
  // Addresses of attempts that failed, excluded from later picks; filled only when a later pick
  // may come.
  std::vector<std::string> tried_ FERRY_GUARDED_BY(mu_);
  std::optional<boost::asio::steady_timer> backup_timer_;
  // What a caller's Cancellation reaches the call through, while it can be cancelled.
  std::shared_ptr<void> cancellation_hold_;
};

}  // namespace ferry::cluster
