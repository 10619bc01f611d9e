#include <time.h>

#include <chrono>
#include <memory>
#include <string>

#include "builtin_filters.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/auth_token.h"
#include "token_memo.h"

namespace ferry::plugins {
namespace {

// How long a client reuses the token it made for a method; far below any sensible skew.
constexpr int64_t kClientTokenReuseMs = 1000;

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

// What both auth filters keep for one method: its names, which tokens sign, and the owner id of
// its entries in the per-thread memo.
struct AuthMethod {
  explicit AuthMethod(const MethodSpec& method) : service(method.service), method(method.method) {}
  const uint64_t memo_owner = TokenMemo::NextOwnerId();
  const std::string service;
  const std::string method;
};

// Reads the `secret` key every auth filter needs.
void ReadSecret(config::ConfigReader& config, std::string* secret) {
  config.String("secret", secret);
  if (secret->empty()) config.Invalid("secret", "must be set to a non-empty shared secret");
}

// Signs every call with the shared secret.
class AuthClientFilter final : public ClientFilter {
 public:
  void Configure(config::ConfigReader& config) override { ReadSecret(config, &secret_); }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    return std::make_shared<AuthMethod>(method);
  }

  Status OnCall(ClientCall& call) override {
    const auto& method = *static_cast<const AuthMethod*>(call.state.method_state);
    TokenMemo::Entry& made = TokenMemo::ThisThread().Slot(method.memo_owner, 0);
    const int64_t now_ms = UnixMillisNow();
    if (made.owner != method.memo_owner || now_ms > made.valid_until_ms) {
      made.owner = method.memo_owner;
      made.token = MakeAuthToken(secret_, method.service, method.method, now_ms);
      made.valid_until_ms = now_ms + kClientTokenReuseMs;
    }
    call.options.auth_token = made.token;
    return Status::Ok();
  }
  bool ObservesDone() const override { return false; }

 private:
  std::string secret_;
};

// Answers UNAUTHENTICATED to any call whose token was not made with the shared secret for this
// method within the allowed clock skew.
class AuthServerFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    ReadSecret(config, &secret_);
    config.Millis("max_skew_ms", 0, kMaxSkewLimitMs, &max_skew_);
  }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    return std::make_shared<AuthMethod>(method);
  }

  // From the meta alone, before the body is decoded.
  Status OnAdmit(const ServerAdmission& request) override {
    const auto& method = *static_cast<const AuthMethod*>(request.method_state);
    const std::string& token = request.context.auth_token();
    TokenMemo::Entry& verified =
        TokenMemo::ThisThread().Slot(method.memo_owner, TokenMemo::HashOf(token));
    const int64_t now_ms = UnixMillisNow();
    if (verified.owner == method.memo_owner && now_ms <= verified.valid_until_ms &&
        TokenMemo::SameToken(verified, token)) {
      return Status::Ok();
    }
    Status status =
        VerifyAuthToken(secret_, token, method.service, method.method, now_ms, max_skew_);
    if (status.ok()) {
      // Valid until the token's date leaves the skew window.
      verified.owner = method.memo_owner;
      verified.token = token;
      verified.valid_until_ms = AuthTokenMillis(token) + max_skew_.count();
    }
    return status;
  }
  Status OnCall(ServerCall&) override { return Status::Ok(); }
  bool ObservesDone() const override { return false; }

 private:
  std::string secret_;
  std::chrono::milliseconds max_skew_{30000};
};

}  // namespace

void RegisterAuthFilters(ExtensionRegistry& registry) {
  registry.Register<ClientFilter>("auth", [] { return std::make_shared<AuthClientFilter>(); });
  registry.Register<ServerFilter>("auth", [] { return std::make_shared<AuthServerFilter>(); });
}

}  // namespace ferry::plugins
