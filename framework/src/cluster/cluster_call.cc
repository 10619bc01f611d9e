#include "cluster/cluster_call.h"

#include <google/protobuf/message.h>

#include <utility>

#include "client/trace_id.h"
#include "cluster/attempt_verdict.h"

namespace ferry::cluster {
namespace {

// A retry with less of the deadline left could not get an answer back anyway.
constexpr std::chrono::milliseconds kMinRetryTime{1};

void FillMeta(const MethodSpec& method, const CallOptions& options, wire::RpcMeta* meta) {
  meta->Clear();
  meta->set_service(method.service.data(), method.service.size());
  meta->set_method(method.method.data(), method.method.size());
  // One trace id for the logical call, whichever providers its attempts reach.
  if (options.trace_id.empty()) {
    client::FillRandomTraceId(meta->mutable_trace_id());
  } else {
    meta->set_trace_id(options.trace_id);
  }
  meta->set_call_id(options.request_id);
  if (!options.auth_token.empty()) meta->set_auth_token(options.auth_token);
  for (const auto& [key, value] : options.attachments) (*meta->mutable_attachments())[key] = value;
}

}  // namespace

void ClusterCall::Start(Cluster& cluster, const MethodSpec& method,
                        const google::protobuf::Message& request,
                        google::protobuf::Message* response, const CallOptions& options,
                        CallDone done) {
  if (cluster.closed()) {
    done(Status(StatusCode::CANCELLED, "channel to " + cluster.service() + " was shut down"));
    return;
  }
  const std::optional<uint64_t> hash_key = cluster.HashKeyOf(options, request);
  std::vector<std::string> nothing_tried;
  std::optional<ProviderPick> pick = cluster.providers().Pick(hash_key, nothing_tried);
  if (!pick) {
    done(Status(StatusCode::UNAVAILABLE, cluster.providers().DescribeNoPick(0)));
    return;
  }
  const FaultTolerancePolicy& policy = cluster.PolicyFor(method.method);
  if (policy.MayRetry()) policy.budget->Deposit();
  const std::chrono::milliseconds timeout = options.timeout > std::chrono::milliseconds::zero()
                                                ? options.timeout
                                                : cluster.default_timeout();
  auto* call =
      new ClusterCall(cluster, method, policy, response, timeout, hash_key, std::move(done));
  // Reused per thread, as DirectChannel's: kept (copied) only if the call may need it later.
  thread_local wire::RpcMeta meta;
  FillMeta(method, options, &meta);
  call->request_ = &request;
  call->meta_ = &meta;
  Attempt* completed = nullptr;
  {
    std::lock_guard lock(call->mu_);
    call->SendLocked(std::move(*pick), &completed);
  }
  if (completed != nullptr) call->Process(completed);
  call->Unref();
}

ClusterCall::ClusterCall(Cluster& cluster, const MethodSpec& method,
                         const FaultTolerancePolicy& policy, google::protobuf::Message* response,
                         std::chrono::milliseconds timeout, std::optional<uint64_t> hash_key,
                         CallDone done)
    : cluster_(cluster),
      method_(method),
      policy_(policy),
      response_(response),
      timeout_(timeout),
      deadline_(timeout > std::chrono::milliseconds::zero() ? Clock::now() + timeout
                                                            : Clock::time_point::max()),
      hash_key_(hash_key),
      done_(std::move(done)) {}

void ClusterCall::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void ClusterCall::SendLocked(ProviderPick pick, Attempt** completed) {
  Attempt* attempt = NewAttemptLocked();
  attempt->pick = std::move(pick);
  ++sent_;
  ++in_flight_;
  Ref();  // released once the attempt's outcome is processed
  client::ClientConnection& connection = attempt->pick.provider->connection();
  google::protobuf::Message* response = response_;
  const bool hedged = policy_.Hedges(method_.idempotent);
  if (hedged) {
    attempt->scratch.reset(response_->New());
    response = attempt->scratch.get();
  }
  attempt->started = Clock::now();
  // The server is told what is left of the call's one deadline, not a fresh timeout.
  meta_->set_timeout_us(
      deadline_ == Clock::time_point::max()
          ? 0
          : std::chrono::duration_cast<std::chrono::microseconds>(deadline_ - attempt->started)
                .count());
  attempt->link = connection.link();
  attempt->request_id = connection.Call(
      *meta_, *request_, response, deadline_, timeout_,
      [attempt](const Status& status) { attempt->call.OnAttemptDone(attempt, status); });
  const bool already_done = attempt->events.load(std::memory_order_acquire) == 1;
  attempt->maybe_carried_over = already_done && attempt->request_id != 0;
  if (!already_done) {
    // Still pending: its outcome may be processed, and another attempt sent, after the caller's
    // request and this thread's metadata are gone.
    if (kept_ == nullptr && policy_.MayRetry()) {
      kept_ = std::make_unique<KeptRequest>();
      kept_->request.reset(request_->New());
      kept_->request->CopyFrom(*request_);
      kept_->meta = *meta_;
      request_ = kept_->request.get();
      meta_ = &kept_->meta;
    }
    if (hedged && sent_ == 1) ArmBackupTimerLocked();
  }
  if (attempt->events.fetch_sub(1, std::memory_order_acq_rel) == 1) *completed = attempt;
}

ClusterCall::Attempt* ClusterCall::NewAttemptLocked() {
  if (sent_ == 0) return &first_;
  more_.push_back(std::make_unique<Attempt>(*this));
  return more_.back().get();
}

void ClusterCall::ArmBackupTimerLocked() {
  if (deadline_ != Clock::time_point::max() && deadline_ - Clock::now() <= policy_.backup_delay) {
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
    std::lock_guard lock(mu_);
    // One backup per call, and only while the first attempt is still the only one out.
    if (!finished_ && sent_ == 1 && in_flight_ == 1) TryRetryLocked(&completed);
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
  const bool unsent = !attempt->maybe_carried_over &&
                      !attempt->pick.provider->connection().ConnectedSince(attempt->link);
  const AttemptVerdict verdict = JudgeAttempt(attempt->status, method_.idempotent, unsent);
  cluster_.providers().Report(attempt->pick, verdict, Clock::now() - attempt->started);
  // Let go of once unlocked: a provider the registry dropped closes with its last attempt.
  ProviderPick done_with;

  Attempt* completed = nullptr;
  bool finished_now = false;
  {
    std::lock_guard lock(mu_);
    attempt->over = true;
    // Remembered only now, and only for a failure that may be retried: the common call, which
    // succeeds at once, copies no address.
    if (!attempt->status.ok() && policy_.MayRetry() && sent_ < policy_.max_attempts) {
      tried_.push_back(attempt->pick.provider->address());
    }
    done_with = std::move(attempt->pick);
    --in_flight_;
    if (!finished_) {
      if (attempt->status.ok()) {
        FinishLocked(Status::Ok(), attempt);
        finished_now = true;
      } else if (!(verdict.retryable && TryRetryLocked(&completed)) && in_flight_ == 0) {
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
  std::optional<ProviderPick> pick = cluster_.providers().Pick(hash_key_, excluded);
  if (!pick) return false;
  if (!policy_.budget->TrySpend(now)) {
    cluster_.providers().Report(*pick, AttemptVerdict{.health = ProviderHealth::kUnknown},
                                std::chrono::nanoseconds::zero());
    return false;
  }
  SendLocked(std::move(*pick), completed);
  return true;
}

void ClusterCall::FinishLocked(Status status, Attempt* winner) {
  finished_ = true;
  result_ = std::move(status);
  winner_ = winner;
  if (backup_timer_) backup_timer_->cancel();
  if (in_flight_ == 0) return;
  auto note_loser = [this](Attempt& attempt) {
    if (!attempt.over && attempt.request_id != 0) {
      losers_.emplace_back(attempt.pick.provider, attempt.request_id);
    }
  };
  note_loser(first_);
  for (auto& attempt : more_) note_loser(*attempt);
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
  done(result_);
}

}  // namespace ferry::cluster
