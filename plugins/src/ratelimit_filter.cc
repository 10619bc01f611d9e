#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bucket_map.h"
#include "builtin_filters.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "field_rate_limits.h"
#include "filter_config.h"
#include "method_buckets.h"
#include "rate_limit_config.h"

namespace ferry::plugins {
namespace {

constexpr int64_t kDefaultMaxCallers = 100000;
constexpr int64_t kMaxCallers = int64_t{1} << 30;
constexpr std::string_view kCallerAttachment = "caller";

// "10.0.0.7" of "10.0.0.7:5123", "[::1]" of "[::1]:5123".
std::string_view HostOf(std::string_view peer) {
  const size_t colon = peer.rfind(':');
  return colon == std::string_view::npos ? peer : peer.substr(0, colon);
}

// Token buckets per method, per caller and per request field; a call must find a token in
// every bucket that applies to it.
class RateLimitFilter final : public ServerFilter {
 public:
  Status Configure(const std::string& yaml) override {
    FilterConfig config(yaml);
    if (config.Has("per_method")) per_method_ = ReadRateLimit(config.Section("per_method"));
    if (config.Has("per_caller")) per_caller_ = ReadRateLimit(config.Section("per_caller"));
    FilterConfig methods = config.Section("methods");
    for (const std::string& name : config.KeysOf("methods")) {
      if (name.find('/') == std::string::npos) {
        methods.Invalid(name, "expected <full service name>/<method>");
      } else if (std::optional<RateLimit> limit = ReadRateLimit(methods.Section(name))) {
        method_overrides_.emplace(name, std::move(*limit));
      }
    }
    methods.Finish();
    int64_t max_callers = kDefaultMaxCallers;
    config.Integer("max_callers", 1, kMaxCallers, &max_callers);
    per_field_.Configure(config, static_cast<size_t>(max_callers));
    if (!per_method_ && !per_caller_ && method_overrides_.empty() && per_field_.empty()) {
      config.Invalid("per_method",
                     "set at least one of per_method, per_caller, methods or per_field");
    }
    if (Status status = config.Finish(); !status.ok()) return status;
    callers_.emplace(static_cast<size_t>(max_callers));
    methods_.emplace([this](std::string_view method_key) -> const RateLimit* {
      const auto overridden = method_overrides_.find(method_key);
      return overridden != method_overrides_.end() ? &overridden->second : LimitOrNull(per_method_);
    });
    return Status::Ok();
  }

  Status OnCall(ServerCall& call) override {
    // Limits how fast calls arrive, by the time the server read them: no clock read per call.
    const RateClock::time_point received = call.context.received_at();
    const RateClock::time_point now =
        received != RateClock::time_point{} ? received : RateClock::now();
    if (per_caller_) {
      const Attachments& attachments = call.context.attachments();
      const auto named = attachments.find(std::string(kCallerAttachment));
      const std::string_view caller = named != attachments.end() ? std::string_view(named->second)
                                                                 : HostOf(call.context.peer());
      if (!callers_->TryTake(caller, *per_caller_, now)) {
        return Exhausted("caller '" + std::string(caller) + "'", *per_caller_);
      }
    }
    const MethodBuckets::Taken taken = methods_->TryTake(
        call.context.service(), call.context.method(), call.context.method_id(), now);
    if (!taken.ok) return Exhausted("method " + std::string(taken.method_key), *taken.limit);
    if (!per_field_.empty()) return per_field_.TryTake(taken.method_key, call, now);
    return Status::Ok();
  }

  void OnDone(const ServerCall&, const Status&, std::chrono::nanoseconds) override {}
  bool ObservesDone() const override { return false; }

 private:
  static const RateLimit* LimitOrNull(const std::optional<RateLimit>& limit) {
    return limit ? &*limit : nullptr;
  }

  static Status Exhausted(const std::string& who, const RateLimit& limit) {
    return Status(StatusCode::RESOURCE_EXHAUSTED,
                  "ratelimit: rate limit of " + who + " exceeded (" + limit.description + ")");
  }

  std::optional<RateLimit> per_method_;
  std::optional<RateLimit> per_caller_;
  std::map<std::string, RateLimit, std::less<>> method_overrides_;
  std::optional<MethodBuckets> methods_;
  std::optional<BucketMap> callers_;
  FieldRateLimits per_field_;
};

}  // namespace

void RegisterRateLimitFilter(ExtensionRegistry& registry) {
  registry.Register<ServerFilter>("ratelimit", [] { return std::make_shared<RateLimitFilter>(); });
}

}  // namespace ferry::plugins
