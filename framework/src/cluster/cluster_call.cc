#include "cluster/cluster_call.h"

#include <google/protobuf/message.h>

#include <algorithm>
#include <utility>

#include "client/request_meta.h"
#include "cluster/attempt_verdict.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::cluster {
namespace {

// A retry with less of the deadline left could not get an answer back anyway.
constexpr std::chrono::milliseconds kMinRetryTime{1};

}  // namespace

void ClusterCall::Start(Cluster& cluster, const FaultTolerancePolicy& policy, bool idempotent,
                        ProviderPick pick, std::optional<uint64_t> hash_key,
                        const MethodSpec& method, const google::protobuf::Message& request,
                        const codec::EncodedBody* body, google::protobuf::Message* response,
                        const CallOptions& options, Clock::time_point started, CallDone done,
                        stats::CallMeter meter) {
  // Reused per thread, as DirectChannel's: building it allocates nothing once warm. The
  // timeout is each attempt's own.
  thread_local wire::RpcMeta meta;
  client::FillRequestMeta(method, options, {.max_response_bytes = cluster.max_response_bytes()},
                          &meta);
  codec::EncodedRequest encoded;
  if (Status status = body != nullptr ? encoded.Encode(meta, *body)
                                      : encoded.Encode(meta, request, cluster.body_options());
      !status.ok()) {
    cluster.providers().Report(pick, AttemptVerdict{.health = ProviderHealth::kUnknown}, {});
    meter.Finish(status.code());
    done(status);
    return;
  }
  policy.budget->Deposit();
  auto* call =
      new ClusterCall(cluster, idempotent, policy, response, cluster.TimeoutOf(options), started,
                      hash_key, std::move(encoded), std::move(done), std::move(meter));
  Attempt* completed = nullptr;
  {
    MutexLock lock(call->mu_);
    call->SendLocked(std::move(pick), started, &completed);
  }
  if (completed != nullptr) call->Process(completed);
  if (options.cancellation != nullptr) call->CancelOn(*options.cancellation);
  call->Unref();
}

void ClusterCall::CancelOn(Cancellation& cancellation) {
  // The call holds its hold until Deliver(); the cancellation, only weakly, so that a handle kept
  // after the call ended finds nothing. While a cancel runs, the hold keeps the call alive.
  struct Hold {
    explicit Hold(ClusterCall* c) : call(c) { call->Ref(); }
    ~Hold() { call->Unref(); }
    ClusterCall* call;
  };
  std::shared_ptr<Hold> hold;
  {
    MutexLock lock(mu_);
    if (finished_) return;
    hold = std::make_shared<Hold>(this);
    cancellation_hold_ = hold;
  }
  cancellation.Bind([](void* held, uint64_t) { static_cast<Hold*>(held)->call->CancelByCaller(); },
                    hold, 0);
}

// Not finished here: an attempt's response may be being parsed into the caller's message at
// this very moment, on its connection's IO thread, which a caller answered now could free under
// it. So each attempt still out is cancelled on its connection, and the last attempt's own
// completion, the cancelled ones' right here and one that lost the race on its IO thread once
// its response is read, finishes the call with CANCELLED. (Parsing every attempt into a
// message of its own and swapping it in would cost every call an allocation.)
void ClusterCall::CancelByCaller() {
  std::vector<std::pair<std::shared_ptr<Provider>, uint64_t>> out;
  {
    MutexLock lock(mu_);
    if (finished_ || cancelled_) return;
    cancelled_ = true;
    if (backup_timer_) backup_timer_->cancel();
    auto note_out = [&out](const Attempt& attempt) {
      if (!attempt.over && attempt.request_id != 0) {
        out.emplace_back(attempt.pick.provider, attempt.request_id);
      }
    };
    note_out(first_);
    for (const auto& attempt : more_) note_out(*attempt);
  }
  // Whether each Cancel() took its attempt does not matter here: one that did completed it
  // inside, and one that did not lost to a completion under way on another thread. An attempt
  // not cancelled at all completed already, or was refused at once (request id 0), and is being
  // processed, or is about to be by the thread that sent it. (Some attempt is out until the call
  // is finished, so one of them finishes it.)
  for (auto& [provider, request_id] : out) provider->connection().Cancel(request_id);
}

ClusterCall::ClusterCall(Cluster& cluster, bool idempotent, const FaultTolerancePolicy& policy,
                         google::protobuf::Message* response, std::chrono::milliseconds timeout,
                         Clock::time_point now, std::optional<uint64_t> hash_key,
                         codec::EncodedRequest request, CallDone done, stats::CallMeter meter)
    : cluster_(cluster),
      idempotent_(idempotent),
      policy_(policy),
      response_(response),
      timeout_(timeout),
      deadline_(timeout > std::chrono::milliseconds::zero() ? now + timeout
                                                            : Clock::time_point::max()),
      hash_key_(hash_key),
      done_(std::move(done)),
      meter_(std::move(meter)),
      request_(std::move(request)) {}

void ClusterCall::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void ClusterCall::SendLocked(ProviderPick pick, Clock::time_point now, Attempt** completed) {
  Attempt* attempt = NewAttemptLocked();
  attempt->pick = std::move(pick);
  ++sent_;
  ++in_flight_;
  Ref();  // released once the attempt's outcome is processed
  client::ClientConnection& connection = attempt->pick.provider->connection();
  google::protobuf::Message* response = response_;
  const bool hedged = policy_.Hedges(idempotent_);
  if (hedged) {
    attempt->scratch.reset(response_->New());
    response = attempt->scratch.get();
  }
  attempt->started = now;
  // The server is told what is left of the call's one deadline, not a fresh timeout; at least
  // a microsecond, since 0 would mean none.
  const uint64_t timeout_us =
      deadline_ == Clock::time_point::max()
          ? 0
          : static_cast<uint64_t>(std::max<int64_t>(
                1, std::chrono::duration_cast<std::chrono::microseconds>(deadline_ - now).count()));
  attempt->link = connection.link();
  attempt->request_id = connection.Call(
      request_, timeout_us, response, deadline_, timeout_,
      [attempt](const Status& status) { attempt->call.OnAttemptDone(attempt, status); });
  const bool already_done = attempt->events.load(std::memory_order_acquire) == 1;
  attempt->maybe_carried_over = already_done && attempt->request_id != 0;
  if (!already_done && hedged && sent_ == 1) ArmBackupTimerLocked(now);
  if (attempt->events.fetch_sub(1, std::memory_order_acq_rel) == 1) *completed = attempt;
}

ClusterCall::Attempt* ClusterCall::NewAttemptLocked() {
  if (sent_ == 0) return &first_;
  more_.push_back(std::make_unique<Attempt>(*this));
  return more_.back().get();
}

void ClusterCall::ArmBackupTimerLocked(Clock::time_point now) {
  if (deadline_ != Clock::time_point::max() && deadline_ - now <= policy_.backup_delay) {
    return;  // the call would be over before the backup went out
  }
  backup_timer_.emplace(cluster_.NextIoContext(), policy_.backup_delay);
  Ref();
  backup_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (!ec) OnBackupDue();
    Unref();
  });
}

void ClusterCall::OnBackupDue() {
  Attempt* completed = nullptr;
  {
    MutexLock lock(mu_);
    // One backup per call, and only while the first attempt is still the only one out.
    if (!finished_ && !cancelled_ && sent_ == 1 && in_flight_ == 1 && TryRetryLocked(&completed)) {
      cluster_.metrics().backup_requests->Increment();
    }
  }
  if (completed != nullptr) Process(completed);
}

void ClusterCall::OnAttemptDone(Attempt* attempt, const Status& status) {
  attempt->status = status;
  if (attempt->events.fetch_sub(1, std::memory_order_acq_rel) == 1) Process(attempt);
}

void ClusterCall::Process(Attempt* attempt) {
  while (attempt != nullptr) attempt = ProcessOne(attempt);
}

ClusterCall::Attempt* ClusterCall::ProcessOne(Attempt* attempt) {
  // Refused before it was queued (request id 0: the write queue was full, say), or queued on a
  // link that never came up.
  const bool unsent = attempt->request_id == 0 ||
                      (!attempt->maybe_carried_over &&
                       !attempt->pick.provider->connection().ConnectedSince(attempt->link));
  const AttemptVerdict verdict = JudgeAttempt(attempt->status, idempotent_, unsent);
  cluster_.providers().Report(attempt->pick, verdict, attempt->started);
  // Let go of once unlocked: a provider the registry dropped closes with its last attempt.
  ProviderPick done_with;

  Attempt* completed = nullptr;
  bool finished_now = false;
  {
    MutexLock lock(mu_);
    attempt->over = true;
    // Remembered only now, and only for a failure that may be retried: the common call, which
    // succeeds at once, copies no address.
    if (!attempt->status.ok() && policy_.MayRetry() && sent_ < policy_.max_attempts) {
      tried_.push_back(attempt->pick.provider->address());
    }
    done_with = std::move(attempt->pick);
    --in_flight_;
    if (!finished_) {
      if (cancelled_) {
        // Once no attempt can write into the caller's response any more (CancelByCaller).
        if (in_flight_ == 0) {
          FinishLocked(Status(StatusCode::CANCELLED, "cancelled by the caller"), nullptr);
          finished_now = true;
        }
      } else if (attempt->status.ok()) {
        FinishLocked(Status::Ok(), attempt);
        finished_now = true;
      } else if (verdict.retryable && TryRetryLocked(&completed)) {
        cluster_.metrics().retries->Increment();
      } else if (in_flight_ == 0) {
        // With another attempt still out (a backup request), its answer may yet save the call.
        FinishLocked(attempt->status, nullptr);
        finished_now = true;
      }
    }
  }
  // Before `done_`: once it ran, the channel may be gone.
  done_with = ProviderPick{};
  if (finished_now) Deliver();
  Unref();  // the attempt's
  return completed;
}

bool ClusterCall::TryRetryLocked(Attempt** completed) {
  if (!policy_.MayRetry() || sent_ >= policy_.max_attempts || cluster_.closed()) return false;
  const Clock::time_point now = Clock::now();
  if (deadline_ != Clock::time_point::max() && deadline_ - now < kMinRetryTime) return false;
  // Failed attempts are in tried_; attempts still out (a backup's first) are excluded too.
  std::vector<std::string> excluded = tried_;
  auto exclude_if_out = [&excluded](const Attempt& a) {
    if (!a.over && a.pick.provider) excluded.push_back(a.pick.provider->address());
  };
  exclude_if_out(first_);
  for (const auto& more : more_) exclude_if_out(*more);
  ProviderPick pick = cluster_.providers().Pick(hash_key_, excluded);
  if (pick.provider == nullptr) return false;
  if (!policy_.budget->TrySpend(now)) {
    cluster_.metrics().budget_refusals->Increment();
    cluster_.providers().Report(pick, AttemptVerdict{.health = ProviderHealth::kUnknown}, now);
    return false;
  }
  SendLocked(std::move(pick), now, completed);
  return true;
}

void ClusterCall::FinishLocked(Status status, Attempt* winner) {
  finished_ = true;
  result_ = std::move(status);
  winner_ = winner;
  if (backup_timer_) backup_timer_->cancel();
  if (in_flight_ == 0) return;
  NoteLoserLocked(first_);
  for (auto& attempt : more_) NoteLoserLocked(*attempt);
}

void ClusterCall::NoteLoserLocked(Attempt& attempt) {
  if (!attempt.over && attempt.request_id != 0) {
    losers_.emplace_back(attempt.pick.provider, attempt.request_id);
  }
}

// Unlocked: only the thread that finished the call gets here, and nothing it reads changes
// once the call is finished.
void ClusterCall::Deliver() {
  if (winner_ != nullptr && winner_->scratch != nullptr) {
    response_->GetReflection()->Swap(response_, winner_->scratch.get());
  }
  // The server stops working on it; its completion (CANCELLED) is ignored, maybe right here.
  for (auto& [provider, request_id] : losers_) provider->connection().Cancel(request_id);
  losers_.clear();
  CallDone done = std::move(done_);
  const Status result = std::move(result_);
  std::shared_ptr<void> hold;
  {
    MutexLock lock(mu_);
    hold = std::move(cancellation_hold_);
  }
  // Let go of (maybe the last reference to) the hold before answering, unlocked: the call must
  // outlive this, which the attempt or cancel that delivers keeps it doing.
  hold.reset();
  meter_.Finish(result.code());
  done(result);
}

}  // namespace ferry::cluster
