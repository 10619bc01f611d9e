#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "atomic_token_bucket.h"
#include "bucket_map.h"
#include "builtin_filters.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "field_rate_limits.h"
#include "rate_limit_config.h"
#include "shared_limiter.h"

namespace ferry::plugins {
namespace {

constexpr int64_t kDefaultMaxCallers = 100000;
constexpr int64_t kMaxCallers = int64_t{1} << 30;

// "10.0.0.7" of "10.0.0.7:5123", "[::1]" of "[::1]:5123".
std::string_view HostOf(std::string_view peer) {
  const size_t colon = peer.rfind(':');
  return colon == std::string_view::npos ? peer : peer.substr(0, colon);
}

// A bucket per client address for one method alone, e.g. a public read that a global per_peer
// would limit together with everything else the address calls.
struct MethodPeerBuckets {
  MethodPeerBuckets(const RateLimit& l, size_t max_peers) : limit(l), buckets(max_peers) {}
  const RateLimit limit;  // before the buckets, which point to it
  BucketMap buckets;
};

// What the filter keeps for one method: its own bucket, shared lock-free by every thread that
// serves it, its buckets per client address, and its per-field rules.
struct MethodLimits {
  MethodLimits(std::string k, const RateLimit* l, const RateLimit* peer_limit, size_t max_peers,
               FieldRateLimits::Rules* rules)
      : key(std::move(k)), limit(l), field_rules(rules) {
    if (limit != nullptr) bucket.emplace(*limit, RateClock::now());
    if (peer_limit != nullptr) per_peer.emplace(*peer_limit, max_peers);
  }
  const std::string key;  // "<service>/<method>"
  const RateLimit* const limit;
  std::optional<AtomicTokenBucket> bucket;
  std::optional<MethodPeerBuckets> per_peer;
  FieldRateLimits::Rules* const field_rules;  // null: none
};

// Token buckets per method, per caller, per user, per peer host, per peer host of one method and
// per request field; a call must find a token in every bucket that applies to it.
class RateLimitFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    // The store first: whether it exists is every limit's default for `shared`.
    shared_.Configure(config);
    const bool has_store = shared_.configured();
    ReadLimit(config, "per_method", has_store, &per_method_);
    ReadLimit(config, "per_caller", has_store, &per_caller_);
    ReadLimit(config, "per_user", has_store, &per_user_);
    ReadLimit(config, "per_peer", has_store, &per_peer_);
    config::ConfigReader methods = config.Section("methods");
    for (const std::string& name : config.KeysOf("methods")) {
      if (name.find('/') == std::string::npos) {
        methods.Invalid(name, "expected <full service name>/<method>");
      } else if (std::optional<MethodRateLimit> limit =
                     ReadMethodRateLimit(methods.Section(name), has_store)) {
        if (limit->shared) limit->shared->name = "methods:" + name;
        if (limit->per_peer) limit->per_peer->name = "methods:" + name + ":per_peer";
        method_overrides_.emplace(name, std::move(*limit));
      }
    }
    int64_t max_callers = kDefaultMaxCallers;
    config.Integer("max_callers", 1, kMaxCallers, &max_callers);
    max_callers_ = static_cast<size_t>(max_callers);
    per_field_.Configure(config, max_callers_, has_store);
    if (!per_method_ && !per_caller_ && !per_user_ && !per_peer_ && method_overrides_.empty() &&
        per_field_.empty()) {
      config.Invalid("per_method",
                     "set at least one of per_method, per_caller, per_user, per_peer, methods or "
                     "per_field");
    }
    callers_.emplace(max_callers_);
    users_.emplace(max_callers_);
    peers_.emplace(max_callers_);
  }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    std::string key = std::string(method.service) + "/" + std::string(method.method);
    const auto found = method_overrides_.find(key);
    const MethodRateLimit* entry = found != method_overrides_.end() ? &found->second : nullptr;
    // An entry of per_peer alone keeps per_method's bucket: adding a limit per address must not
    // loosen the method's.
    const RateLimit* limit = entry != nullptr && entry->shared ? &*entry->shared
                             : per_method_                     ? &*per_method_
                                                               : nullptr;
    const RateLimit* peer_limit = entry != nullptr && entry->per_peer ? &*entry->per_peer : nullptr;
    FieldRateLimits::Rules* rules = per_field_.For(key);
    return std::make_shared<MethodLimits>(std::move(key), limit, peer_limit, max_callers_, rules);
  }

  // The caller's and the method's buckets need no body: they are taken before it is decoded.
  // Shared ones wait for their store, so they are taken in OnCall, on a worker thread: an IO
  // thread must not wait for a round trip.
  Status OnAdmit(const ServerAdmission& request) override {
    auto& method = *static_cast<MethodLimits*>(request.method_state);
    return TakeLocalOrCollect(method, request.context, RateClock::now(), nullptr);
  }

  // Per-field buckets read the request message; shared limits (OnAdmit) are taken here too.
  Status OnCall(ServerCall& call) override {
    auto& method = *static_cast<MethodLimits*>(call.state.method_state);
    if (!shared_.configured() && method.field_rules == nullptr) return Status::Ok();
    const RateClock::time_point now = RateClock::now();
    std::vector<SharedLimiter::Check> shared;
    if (shared_.configured()) {
      if (Status status = TakeLocalOrCollect(method, call.context, now, &shared); !status.ok()) {
        return status;
      }
    }
    if (method.field_rules != nullptr) {
      Status status = FieldRateLimits::TryTake(*method.field_rules, method.key, call, now, &shared);
      if (!status.ok()) return status;
    }
    return shared_.Take(shared, now);
  }
  bool ObservesDone() const override { return false; }

 private:
  static void ReadLimit(config::ConfigReader& config, std::string_view key, bool has_store,
                        std::optional<RateLimit>* out) {
    if (!config.Has(key)) return;
    *out = ReadRateLimit(config.Section(key), has_store);
    if (*out) (*out)->name = std::string(key);
  }

  // One limit of a call: with `shared` null (OnAdmit), the unshared limits are taken and the
  // shared skipped; otherwise (OnCall) the shared are added to `shared` and the others skipped.
  // A limit is in exactly one of the two passes. `who()` names the bucket, made only when needed.
  template <class Who>
  static Status TakeOrCollect(const RateLimit& limit, std::string_view key, const Who& who,
                              BucketMap* map, AtomicTokenBucket* bucket, RateClock::time_point now,
                              std::vector<SharedLimiter::Check>* shared) {
    if (limit.shared != (shared != nullptr)) return Status::Ok();
    if (shared != nullptr) {
      shared->push_back(SharedLimiter::Check{.limit = &limit,
                                             .key = std::string(key),
                                             .who = who(),
                                             .local_map = map,
                                             .local_bucket = bucket});
      return Status::Ok();
    }
    const bool taken = bucket != nullptr ? bucket->TryTake(now) : map->TryTake(key, limit, now);
    return taken ? Status::Ok() : RateLimitExhausted(who(), limit);
  }

  Status TakeLocalOrCollect(MethodLimits& method, const ServerContext& context,
                            RateClock::time_point now, std::vector<SharedLimiter::Check>* shared) {
    if (per_caller_) {
      // Who a filter before this one verified (auth), else the client certificate's name
      // (mTLS), never what the caller merely claims: one that could name itself could take
      // another's bucket, or a fresh one per call.
      const std::string_view caller = !context.verified_caller().empty() ? context.verified_caller()
                                      : !context.peer_identity().empty() ? context.peer_identity()
                                                                         : HostOf(context.peer());
      Status status = TakeOrCollect(
          *per_caller_, caller, [&] { return "caller '" + std::string(caller) + "'"; }, &*callers_,
          nullptr, now, shared);
      if (!status.ok()) return status;
    }
    // The user a filter before this one verified (user_token); a call without one (a method
    // that needs no user) has no user bucket.
    if (per_user_ && !context.verified_user().empty()) {
      const std::string& user = context.verified_user();
      Status status = TakeOrCollect(
          *per_user_, user, [&] { return "user '" + user + "'"; }, &*users_, nullptr, now, shared);
      if (!status.ok()) return status;
    }
    // The client's address whoever it says or proves it is: one host rotating identities (or
    // users) still shares one bucket. Behind a trusted proxy, the client it forwards for: its
    // clients do not share the proxy's bucket.
    if (per_peer_) {
      const std::string& host = context.client_address();
      Status status = TakeOrCollect(
          *per_peer_, host, [&] { return "peer " + host; }, &*peers_, nullptr, now, shared);
      if (!status.ok()) return status;
    }
    // Before the method's shared bucket: an address over its own limit takes nothing from the
    // others' share.
    if (method.per_peer) {
      const std::string& host = context.client_address();
      Status status = TakeOrCollect(
          method.per_peer->limit, host,
          [&] { return "peer " + host + " for method " + method.key; }, &method.per_peer->buckets,
          nullptr, now, shared);
      if (!status.ok()) return status;
    }
    if (method.bucket) {
      return TakeOrCollect(
          *method.limit, method.key, [&] { return "method " + method.key; }, nullptr,
          &*method.bucket, now, shared);
    }
    return Status::Ok();
  }

  std::optional<RateLimit> per_method_;
  std::optional<RateLimit> per_caller_;
  std::optional<RateLimit> per_user_;
  std::optional<RateLimit> per_peer_;
  std::map<std::string, MethodRateLimit, std::less<>> method_overrides_;
  size_t max_callers_ = kDefaultMaxCallers;
  std::optional<BucketMap> callers_;
  std::optional<BucketMap> users_;
  std::optional<BucketMap> peers_;
  FieldRateLimits per_field_;
  SharedLimiter shared_;
};

}  // namespace

void RegisterRateLimitFilter(ExtensionRegistry& registry) {
  registry.Register<ServerFilter>("ratelimit", [] { return std::make_shared<RateLimitFilter>(); });
}

}  // namespace ferry::plugins
