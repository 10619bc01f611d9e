#include <time.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "auth_keyring.h"
#include "auth_token_fields.h"
#include "builtin_filters.h"
#include "credential_methods.h"
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
// seconds. CLOCK_REALTIME where a tick matters: a token's issue time and a server's start, which
// a token issued after it must never precede.
int64_t UnixMillisNow(clockid_t clock = CLOCK_REALTIME_COARSE) {
  timespec now{};
  clock_gettime(clock, &now);
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
                              .attachments = &call.options.attachments,
                              .framing = call.framing};
    // The precise clock: a server refuses tokens from before it started, and one that started
    // a tick ago must not take this call for one.
    call.options.auth_token = MakeAuthToken(*signing_key_->hmac, signing_key_->id, request, caller_,
                                            UnixMillisNow(CLOCK_REALTIME), NewAuthNonce());
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
  AuthMethod(const MethodSpec& spec, const CredentialMethods& methods)
      : service(spec.service), method(spec.method), need(methods.For(service + "/" + method)) {}
  const std::string service;
  const std::string method;
  const CredentialMethods::Need need;
};

// The counter of calls refused for `reason`, process-wide.
metrics::Counter* RefusalsFor(const std::string& reason) {
  static metrics::CounterFamily* const family =
      metrics::Metrics()
          .AddCounter("ferry_auth_replay_refusals_total",
                      "Calls the auth filter refused because their token was seen before "
                      "(replayed), was issued before the server started (before_start) or "
                      "could not be recorded (replay_cache_full)",
                      {"reason"})
          .value();
  return family->WithLabels({reason}).value();
}

// Answers UNAUTHENTICATED to any call whose token was not made with one of the server's keys
// for this very request within the allowed clock skew, that was accepted once already, or that
// was issued before this server started; calls of an exempt method pass unchecked, and those of
// an optional one without a token, with no verified caller.
class AuthServerFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    // Tokens from before now may have been accepted by this server's previous run, whose replay
    // cache is gone; none is accepted, rather than a replay once per restart.
    started_ms_ = UnixMillisNow(CLOCK_REALTIME);
    keyring_.Configure(config, /*with_callers=*/true);
    config.Millis("max_skew_ms", 0, kMaxSkewLimitMs, &max_skew_);
    int64_t entries = kDefaultReplayCacheEntries;
    config.Integer("replay_cache_entries", 1, kMaxReplayCacheEntries, &entries);
    config.Bool("accept_replayable_tokens", &accept_replayable_);
    std::string v3 = "refuse";
    config.String("v3_tokens", &v3);
    if (v3 != "accept" && v3 != "refuse") {
      config.Invalid("v3_tokens", "expected accept or refuse, got '" + v3 + "'");
    }
    accept_v3_ = v3 == "accept";
    methods_.Configure(config);
    replay_.emplace(static_cast<size_t>(entries), max_skew_);
    replayed_ = RefusalsFor("replayed");
    before_start_ = RefusalsFor("before_start");
    cache_full_ = RefusalsFor("replay_cache_full");
  }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    return std::make_shared<AuthMethod>(method, methods_);
  }

  // Before the body is decoded: the token signs the bytes that came.
  Status OnAdmit(const ServerAdmission& admission) override {
    const auto& method = *static_cast<const AuthMethod*>(admission.method_state);
    // Unchecked means unread too: a token sent anyway names no caller, since nothing verified it.
    if (method.need == CredentialMethods::Need::kExempt) return Status::Ok();
    const std::string& token = admission.context.auth_token();
    if (token.empty() && method.need == CredentialMethods::Need::kOptional) return Status::Ok();
    const AuthRequest request{.service = method.service,
                              .method = method.method,
                              .body = admission.body,
                              .attachments = &admission.context.attachments(),
                              .framing = admission.framing};
    const int64_t now_ms = UnixMillisNow();
    if (IsLegacyAuthToken(token)) return AdmitLegacy(token, request, now_ms);
    AuthTokenFields fields;
    if (Status parsed = ParseAuthToken(token, request, &fields); !parsed.ok()) return parsed;
    if (fields.version == 3 && !accept_v3_) {
      return AuthRefusal(request,
                         "v3 token refused (it binds neither the call's timeout nor how its body "
                         "is encoded, its one-way flag or its response limit): upgrade the client, "
                         "or set v3_tokens: accept while migrating");
    }
    // The cheap checks first: a stale or unknown token costs no MAC.
    if (Status timely = CheckAuthTokenTime(fields, request, now_ms, max_skew_); !timely.ok()) {
      return timely;
    }
    if (fields.unix_ms < started_ms_) {
      before_start_->Increment();
      return AuthRefusal(request, "token issued before this server started (issued at unix ms " +
                                      std::to_string(fields.unix_ms) + ", started at " +
                                      std::to_string(started_ms_) +
                                      "; it may have been accepted before a restart: sign the "
                                      "call again)");
    }
    if (Status within = CheckAuthTokenBudget(fields, request); !within.ok()) return within;
    // Which keys the server holds is not the caller's business: a guess is answered as any miss.
    const AuthKeyring::Key* key = keyring_.Find(fields.key_id);
    if (key == nullptr) {
      return AuthRefusal(request, "unknown key id '" + std::string(fields.key_id) + "'");
    }
    const std::optional<Sha256Digest> mac = AuthTokenMac(*key->hmac, fields, request);
    if (Status signed_ok = CheckAuthTokenSignature(mac, fields, request); !signed_ok.ok()) {
      return signed_ok;
    }
    if (!key->MaySign(fields.caller)) {
      return AuthRefusal(request, "key '" + key->id + "' may not sign caller '" +
                                      std::string(fields.caller) + "'");
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
  int64_t started_ms_ = 0;
  std::chrono::milliseconds max_skew_{kDefaultMaxSkewMs};
  bool accept_replayable_ = false;
  bool accept_v3_ = false;
  CredentialMethods methods_;
  std::optional<ReplayCache> replay_;
  metrics::Counter* replayed_ = nullptr;
  metrics::Counter* before_start_ = nullptr;
  metrics::Counter* cache_full_ = nullptr;
};

}  // namespace

void RegisterAuthFilters(ExtensionRegistry& registry) {
  registry.Register<ClientFilter>("auth", [] { return std::make_shared<AuthClientFilter>(); });
  registry.Register<ServerFilter>("auth", [] { return std::make_shared<AuthServerFilter>(); });
}

}  // namespace ferry::plugins
