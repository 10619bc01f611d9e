#include <time.h>

#include <chrono>
#include <string>

#include "auth_token_cache.h"
#include "builtin_filters.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/auth_token.h"
#include "filter_config.h"

namespace ferry::plugins {
namespace {

// How long a client reuses the token it made for a method; far below any sensible skew.
constexpr std::chrono::milliseconds kClientTokenReuse{1000};

// A day: anything longer makes the token's timestamp meaningless, and is surely a typo.
constexpr int64_t kMaxSkewLimitMs = 24 * 3600 * 1000;

// The kernel's clock as of its last tick (at most a few ms old), read without the cost of a
// precise clock on every call: tokens carry milliseconds and are checked against a skew of
// seconds.
int64_t UnixMillisNow() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
}

// Reads the `secret` key every auth filter needs.
void ReadSecret(FilterConfig& config, std::string* secret) {
  config.String("secret", secret);
  if (secret->empty()) config.Invalid("secret", "must be set to a non-empty shared secret");
}

// Signs every call with the shared secret.
class AuthClientFilter final : public ClientFilter {
 public:
  Status Configure(const std::string& yaml) override {
    FilterConfig config(yaml);
    ReadSecret(config, &secret_);
    return config.Finish();
  }

  Status OnCall(ClientCall& call) override {
    thread_local AuthTokenCache made;
    AuthTokenCache::Entry& entry = made.ForMethod(id_, &call.method);
    if (!AuthTokenCache::Holds(entry, id_, call.method, call.started)) {
      AuthTokenCache::Fill(
          entry, id_, call.method.service, call.method.method, /*method_id=*/0,
          MakeAuthToken(secret_, call.method.service, call.method.method, UnixMillisNow()),
          /*token_id=*/0, call.started + kClientTokenReuse,
          call.method.generated ? &call.method : nullptr);
    }
    call.options.auth_token = entry.token;
    return Status::Ok();
  }

  void OnDone(const ClientCall&, const Status&, std::chrono::nanoseconds) override {}
  bool ObservesDone() const override { return false; }

 private:
  const uint64_t id_ = NextAuthFilterId();
  std::string secret_;
};

// Answers UNAUTHENTICATED to any call whose token was not made with the shared secret for this
// method within the allowed clock skew.
class AuthServerFilter final : public ServerFilter {
 public:
  Status Configure(const std::string& yaml) override {
    FilterConfig config(yaml);
    ReadSecret(config, &secret_);
    int64_t max_skew_ms = max_skew_.count();
    config.Integer("max_skew_ms", 0, kMaxSkewLimitMs, &max_skew_ms);
    max_skew_ = std::chrono::milliseconds(max_skew_ms);
    return config.Finish();
  }

  Status OnCall(ServerCall& call) override {
    thread_local AuthTokenCache verified;
    const ServerContext& context = call.context;
    const std::string& token = context.auth_token();
    const uint64_t token_id = context.auth_token_id();
    // Judged as of its arrival, as the server read the clock then: a hit reads no clock.
    const AuthTokenCache::SteadyTime received =
        context.received_at() != ServerContext::Clock::time_point{} ? context.received_at()
                                                                    : ServerContext::Clock::now();
    // A token the server knows by identity needs no comparison to be recognised.
    AuthTokenCache::Entry& entry =
        token_id != 0 ? verified.ForTokenId(id_, token_id) : verified.ForToken(id_, token);
    if (AuthTokenCache::Holds(entry, id_, context.method_id(), context.service(), context.method(),
                              received) &&
        (token_id != 0 ? entry.token_id == token_id : AuthTokenCache::HoldsToken(entry, token))) {
      return Status::Ok();
    }
    const int64_t now_ms = UnixMillisNow();
    Status status =
        VerifyAuthToken(secret_, token, context.service(), context.method(), now_ms, max_skew_);
    if (status.ok()) {
      // Valid until the token's date leaves the skew window, carried over to the steady clock.
      const std::chrono::milliseconds left(AuthTokenMillis(token) + max_skew_.count() - now_ms);
      AuthTokenCache::Fill(entry, id_, context.service(), context.method(), context.method_id(),
                           token, token_id, received + left);
    }
    return status;
  }

  void OnDone(const ServerCall&, const Status&, std::chrono::nanoseconds) override {}
  bool ObservesDone() const override { return false; }

 private:
  const uint64_t id_ = NextAuthFilterId();
  std::string secret_;
  std::chrono::milliseconds max_skew_{30000};
};

}  // namespace

void RegisterAuthFilters(ExtensionRegistry& registry) {
  registry.Register<ClientFilter>("auth", [] { return std::make_shared<AuthClientFilter>(); });
  registry.Register<ServerFilter>("auth", [] { return std::make_shared<AuthServerFilter>(); });
}

}  // namespace ferry::plugins
