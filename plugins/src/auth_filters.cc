#include <time.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "auth_keyring.h"
#include "auth_token_v3.h"
#include "builtin_filters.h"
#include "exempt_methods.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/metrics.h"
#include "legacy_auth_token.h"
#include "replay_cache.h"

namespace ferry::plugins {
namespace {

// A day: anything longer makes the token's timestamp meaningless, and is surely a typo.
constexpr int64_t kMaxSkewLimitMs = 24 * 3600 * 1000;
constexpr int64_t kDefaultMaxSkewMs = 5000;
constexpr int64_t kDefaultReplayCacheEntries = 1'000'000;
constexpr int64_t kMaxReplayCacheEntries = int64_t{1} << 32;

// The kernel's clock as of its last tick (at most a few ms old), read without the cost of a
// precise clock on every call: tokens carry milliseconds and are checked against a skew of
// seconds.
int64_t UnixMillisNow() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
}

// Signs every call with the signing key: its method, body, attachments and caller, the time and
// a fresh nonce, so that the token is good for this one request only.
class AuthClientFilter final : public ClientFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    keyring_.Configure(config);
    std::string signing;
    config.String("signing_key", &signing);
    config.String("caller", &caller_);
    if (!IsAuthTokenWord(caller_, 0, kMaxCallerChars)) {
      config.Invalid("caller",
                     "must be at most 64 characters of A-Z a-z 0-9 . _ @ -, got '" + caller_ + "'");
    }
    if (keyring_.keys().empty()) return;  // reported
    if (signing.empty()) {
      if (keyring_.keys().size() > 1) {
        config.Invalid("signing_key", "must name the key to sign with, one of " + keyring_.Ids());
        return;
      }
      signing = keyring_.keys().front().id;
    }
    signing_key_ = keyring_.Find(signing);
    if (signing_key_ == nullptr) {
      config.Invalid("signing_key",
                     "'" + signing + "' is not among the keys (" + keyring_.Ids() + ")");
    }
  }

  Status OnCall(ClientCall& call) override {
    const AuthRequest request{.service = call.method.service,
                              .method = call.method.method,
                              .body = call.body,
                              .attachments = &call.options.attachments};
    call.options.auth_token = MakeAuthToken(*signing_key_->hmac, signing_key_->id, request, caller_,
                                            UnixMillisNow(), NewAuthNonce());
    return Status::Ok();
  }
  bool ObservesDone() const override { return false; }

 private:
  AuthKeyring keyring_;
  const AuthKeyring::Key* signing_key_ = nullptr;
  std::string caller_;
};

// What the server filter keeps for one method: the names tokens sign, and whether its calls need
// a token at all.
struct AuthMethod {
  AuthMethod(const MethodSpec& spec, const ExemptMethods& exempt_methods)
      : service(spec.service),
        method(spec.method),
        exempt(exempt_methods.Contains(service + "/" + method)) {}
  const std::string service;
  const std::string method;
  const bool exempt;
};

// The counter of calls refused for `reason`, process-wide.
metrics::Counter* RefusalsFor(const std::string& reason) {
  static metrics::CounterFamily* const family =
      metrics::Metrics()
          .AddCounter("ferry_auth_replay_refusals_total",
                      "Calls the auth filter refused because their token was seen before "
                      "(replayed) or could not be recorded (replay_cache_full)",
                      {"reason"})
          .value();
  return family->WithLabels({reason}).value();
}

// Answers UNAUTHENTICATED to any call whose token was not made with one of the server's keys
// for this very request within the allowed clock skew, or that was accepted once already; calls
// of an exempt method pass unchecked, with no verified caller.
class AuthServerFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    keyring_.Configure(config);
    config.Millis("max_skew_ms", 0, kMaxSkewLimitMs, &max_skew_);
    int64_t entries = kDefaultReplayCacheEntries;
    config.Integer("replay_cache_entries", 1, kMaxReplayCacheEntries, &entries);
    config.Bool("accept_replayable_tokens", &accept_replayable_);
    exempt_.Configure(config);
    replay_.emplace(static_cast<size_t>(entries), max_skew_);
    replayed_ = RefusalsFor("replayed");
    cache_full_ = RefusalsFor("replay_cache_full");
  }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    return std::make_shared<AuthMethod>(method, exempt_);
  }

  // Before the body is decoded: the token signs the bytes that came.
  Status OnAdmit(const ServerAdmission& admission) override {
    const auto& method = *static_cast<const AuthMethod*>(admission.method_state);
    // Unchecked means unread too: a token sent anyway names no caller, since nothing verified it.
    if (method.exempt) return Status::Ok();
    const AuthRequest request{.service = method.service,
                              .method = method.method,
                              .body = admission.body,
                              .attachments = &admission.context.attachments()};
    const std::string& token = admission.context.auth_token();
    const int64_t now_ms = UnixMillisNow();
    if (IsLegacyAuthToken(token)) return AdmitLegacy(token, request, now_ms);
    AuthTokenFields fields;
    if (Status parsed = ParseAuthToken(token, request, &fields); !parsed.ok()) return parsed;
    // The cheap checks first: a stale or unknown token costs no MAC.
    if (Status timely = CheckAuthTokenTime(fields, request, now_ms, max_skew_); !timely.ok()) {
      return timely;
    }
    const AuthKeyring::Key* key = keyring_.Find(fields.key_id);
    if (key == nullptr) {
      return AuthRefusal(request, "unknown key id '" + std::string(fields.key_id) +
                                      "' (this server holds " + keyring_.Ids() + ")");
    }
    const std::optional<Sha256Digest> mac = AuthTokenMac(*key->hmac, fields, request);
    if (Status signed_ok = CheckAuthTokenSignature(mac, fields, request); !signed_ok.ok()) {
      return signed_ok;
    }
    // Only a verified token is recorded, so that no garbage fills the cache; by its MAC, which
    // nobody without the key can make collide on purpose.
    uint64_t fingerprint = 0;
    std::memcpy(&fingerprint, mac->data(), sizeof fingerprint);
    switch (replay_->Record(fingerprint, fields.unix_ms, now_ms)) {
      case ReplayCache::Outcome::kFresh:
        break;
      case ReplayCache::Outcome::kReplayed:
        replayed_->Increment();
        return AuthRefusal(request, "replayed token (accepted once already within the " +
                                        std::to_string(max_skew_.count()) +
                                        " ms skew window; every call needs a token of its own)");
      case ReplayCache::Outcome::kFull:
        cache_full_->Increment();
        return Status(StatusCode::RESOURCE_EXHAUSTED,
                      "auth: replay cache full (" + std::to_string(replay_->max_entries()) +
                          " tokens within the skew window); refusing calls rather than risk "
                          "accepting a replay; raise replay_cache_entries for " +
                          method.service + "/" + method.method);
    }
    if (!fields.caller.empty()) admission.context.set_verified_caller(fields.caller);
    return Status::Ok();
  }
  Status OnCall(ServerCall&) override { return Status::Ok(); }
  bool ObservesDone() const override { return false; }

 private:
  // v1 and v2 tokens bind neither body nor nonce: whoever sees one may replay it.
  Status AdmitLegacy(std::string_view token, const AuthRequest& request, int64_t now_ms) const {
    if (!accept_replayable_) {
      return AuthRefusal(request, "replayable " + std::string(token.substr(0, 2)) +
                                      " token refused (it binds neither the request nor a "
                                      "nonce): upgrade the client, or set "
                                      "accept_replayable_tokens while migrating (unsafe)");
    }
    Status status;
    for (const AuthKeyring::Key& key : keyring_.keys()) {
      status = VerifyLegacyAuthToken(key.secret, token, request.service, request.method, now_ms,
                                     max_skew_);
      if (status.ok()) return status;
    }
    return status;
  }

  AuthKeyring keyring_;
  std::chrono::milliseconds max_skew_{kDefaultMaxSkewMs};
  bool accept_replayable_ = false;
  ExemptMethods exempt_;
  std::optional<ReplayCache> replay_;
  metrics::Counter* replayed_ = nullptr;
  metrics::Counter* cache_full_ = nullptr;
};

}  // namespace

void RegisterAuthFilters(ExtensionRegistry& registry) {
  registry.Register<ClientFilter>("auth", [] { return std::make_shared<AuthClientFilter>(); });
  registry.Register<ServerFilter>("auth", [] { return std::make_shared<AuthServerFilter>(); });
}

}  // namespace ferry::plugins
