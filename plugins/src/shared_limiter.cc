#include "shared_limiter.h"

#include "ferry/codec/extension_registry.h"

namespace ferry::plugins {
namespace {

// Process-wide, registered once whatever the number of filters.
metrics::Counter* UnavailableCounter(const std::string& policy) {
  static metrics::CounterFamily* const family =
      metrics::Metrics()
          .AddCounter("ferry_ratelimit_store_unavailable_total",
                      "Takes of a shared rate limit whose store could not answer, by what the "
                      "filter did instead (on_unavailable: local, allow, refuse)",
                      {"on_unavailable"})
          .value();
  return family->WithLabels({policy}).value();
}

}  // namespace

Status RateLimitExhausted(const std::string& who, const RateLimit& limit) {
  return Status(StatusCode::RESOURCE_EXHAUSTED,
                "ratelimit: rate limit of " + who + " exceeded (" + limit.description + ")");
}

void SharedLimiter::Configure(config::ConfigReader& config) {
  if (!config.Has("store")) return;
  config::ConfigReader section = config.Section("store");
  section.String("kind", &kind_);
  const ExtensionRegistry& registry = ExtensionRegistry::Instance();
  std::string known;
  for (const std::string& name : registry.Names<RateLimitStore>()) {
    known += (known.empty() ? "" : ", ") + name;
  }
  if (kind_.empty()) {
    section.Invalid("kind", "must name the store (known: " + known + ")");
    return;
  }
  store_ = registry.Create<RateLimitStore>(kind_);
  if (store_ == nullptr) {
    section.Invalid("kind", "unknown rate limit store '" + kind_ + "' (known: " + known +
                                "; redis comes with ferry::redis_filters)");
    return;
  }
  std::string policy = "local";
  section.String("on_unavailable", &policy);
  if (policy == "local") {
    on_unavailable_ = OnUnavailable::kLocal;
  } else if (policy == "allow") {
    on_unavailable_ = OnUnavailable::kAllow;
  } else if (policy == "refuse") {
    on_unavailable_ = OnUnavailable::kRefuse;
  } else {
    section.Invalid("on_unavailable", "expected local, allow or refuse, got '" + policy + "'");
  }
  store_->Configure(section);
  section.RejectUnknownKeys();
  unavailable_ = UnavailableCounter(policy);
}

Status SharedLimiter::Take(const std::vector<Check>& checks, RateClock::time_point now) {
  if (checks.empty()) return Status::Ok();
  std::vector<SharedTake> takes;
  takes.reserve(checks.size());
  for (const Check& check : checks) {
    takes.push_back(SharedTake{.limit = check.limit->name,
                               .key = check.key,
                               .rate = check.limit->rate,
                               .burst = check.limit->burst});
  }
  std::vector<TakeVerdict> verdicts(checks.size(), TakeVerdict::kUnavailable);
  store_->TryTake(takes, verdicts);
  for (size_t i = 0; i < checks.size(); ++i) {
    const Check& check = checks[i];
    switch (verdicts[i]) {
      case TakeVerdict::kTaken:
        break;
      case TakeVerdict::kRefused:
        return RateLimitExhausted(check.who, *check.limit);
      case TakeVerdict::kUnavailable:
        unavailable_->Increment();
        if (on_unavailable_ == OnUnavailable::kRefuse) {
          return Status(StatusCode::UNAVAILABLE, "ratelimit: the " + kind_ +
                                                     " store cannot tell the limit of " +
                                                     check.who + " (on_unavailable: refuse)");
        }
        if (on_unavailable_ == OnUnavailable::kLocal && !TakeLocally(check, now)) {
          return RateLimitExhausted(check.who, *check.limit);
        }
        break;
    }
  }
  return Status::Ok();
}

bool SharedLimiter::TakeLocally(const Check& check, RateClock::time_point now) const {
  if (check.local_bucket != nullptr) return check.local_bucket->TryTake(now);
  return check.local_map == nullptr || check.local_map->TryTake(check.key, *check.limit, now);
}

}  // namespace ferry::plugins
