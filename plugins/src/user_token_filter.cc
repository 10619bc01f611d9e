#include <time.h>

#include <memory>
#include <optional>
#include <string>

#include "auth_keyring.h"
#include "builtin_filters.h"
#include "credential_methods.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/token_revocations.h"
#include "ferry/plugins/user_token.h"
#include "user_token_codec.h"

namespace ferry::plugins {
namespace {

constexpr int64_t kDefaultMaxSkewS = 60;
constexpr int64_t kMaxSkewLimitS = 24 * 3600;
constexpr int64_t kDefaultMaxTtlS = 24 * 3600;
constexpr int64_t kMaxTtlLimitS = int64_t{10} * 366 * 24 * 3600;

int64_t UnixSecondsNow() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return int64_t{now.tv_sec};
}

// What the filter keeps for one method.
struct UserTokenMethod {
  std::string name;  // "<service>/<method>", for messages
  CredentialMethods::Need need = CredentialMethods::Need::kRequired;
};

// Verifies the user token a call carries in its `user-token` attachment and hands its user on
// as ServerContext::verified_user(), with the roles it signs as verified_roles(); a call of a
// method that needs a user and comes without a valid token is refused UNAUTHENTICATED before its
// body is decoded, and so is one that comes with a bad token to a method where it is optional.
class UserTokenServerFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    keyring_.Configure(config);
    methods_.Configure(config);
    config.Integer("max_skew_s", 0, kMaxSkewLimitS, &max_skew_s_);
    config.Integer("max_ttl_s", 1, kMaxTtlLimitS, &max_ttl_s_);
    config.String("audience", &audience_);
    // A u1 token names no service, so a server that has one cannot tell the token was meant for
    // it: refused there unless said otherwise, accepted where no audience is checked anyway.
    std::string v1 = audience_.empty() ? "accept" : "refuse";
    config.String("v1_tokens", &v1);
    if (v1 != "accept" && v1 != "refuse") {
      config.Invalid("v1_tokens", "expected accept or refuse, got '" + v1 + "'");
    }
    accept_v1_ = v1 == "accept";
    if (config.Has("revocations")) ReadRevocations(config.Section("revocations"));
  }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    auto state = std::make_shared<UserTokenMethod>();
    state->name = std::string(method.service) + "/" + std::string(method.method);
    state->need = methods_.For(state->name);
    return state;
  }

  Status OnAdmit(const ServerAdmission& admission) override {
    const auto& method = *static_cast<const UserTokenMethod*>(admission.method_state);
    if (method.need == CredentialMethods::Need::kExempt) return Status::Ok();
    const Attachments& attachments = admission.context.attachments();
    const auto sent = attachments.find(std::string(kUserTokenAttachment));
    if (sent == attachments.end() || sent->second.empty()) {
      if (method.need == CredentialMethods::Need::kOptional) return Status::Ok();
      return Refusal(method,
                     "missing user token (attachment 'user-token'; over HTTP the header "
                     "X-Ferry-Attachment-User-Token)");
    }
    UserTokenFields token;
    if (!ParseUserToken(sent->second, &token)) {
      return Refusal(method,
                     "malformed user token (expected u2:<key id>:<user>:<audience>:<token id>:"
                     "<issued unix s>:<expires unix s>:<43 base64url digits of hmac-sha256>, or "
                     "u3: with <roles> after the token id)");
    }
    if (token.version == 1 && !accept_v1_) {
      return Refusal(method,
                     "user token of the old form u1, which names no audience (this server "
                     "is '" +
                         audience_ + "' and has v1_tokens: refuse)");
    }
    // The cheap checks first: an expired token or an unknown key costs no MAC.
    const int64_t now = UnixSecondsNow();
    if (now >= token.expires_unix_s) {
      return Refusal(method, "expired user token (expired at unix s " +
                                 std::to_string(token.expires_unix_s) + ", server time " +
                                 std::to_string(now) + ": " +
                                 std::to_string(now - token.expires_unix_s) + " s ago)");
    }
    if (token.issued_unix_s > now + max_skew_s_) {
      return Refusal(method, "user token from the future (issued at unix s " +
                                 std::to_string(token.issued_unix_s) + ", server time " +
                                 std::to_string(now) + ": " +
                                 std::to_string(token.issued_unix_s - now) + " s ahead, max skew " +
                                 std::to_string(max_skew_s_) + " s)");
    }
    if (token.expires_unix_s - token.issued_unix_s > max_ttl_s_) {
      return Refusal(method, "user token lives too long (issued at unix s " +
                                 std::to_string(token.issued_unix_s) + ", expires " +
                                 std::to_string(token.expires_unix_s - token.issued_unix_s) +
                                 " s later, max_ttl_s " + std::to_string(max_ttl_s_) + ")");
    }
    if (token.version >= 2 && !audience_.empty() && token.audience != audience_) {
      return Refusal(method, "user token for another service (audience '" +
                                 std::string(token.audience) + "', this server is '" + audience_ +
                                 "')");
    }
    const AuthKeyring::Key* key = keyring_.Find(token.key_id);
    // Which keys the server holds is not the caller's business: a guess is answered as any miss.
    if (key == nullptr) {
      return Refusal(method, "unknown user token key id '" + std::string(token.key_id) + "'");
    }
    const std::optional<Sha256Digest> mac = UserTokenMac(*key->hmac, token);
    if (!mac) return Status(StatusCode::INTERNAL, "user_token: OpenSSL cannot compute HMAC-SHA256");
    if (!UserTokenMacMatches(*mac, token)) {
      return Refusal(method,
                     "invalid user token signature (wrong secret, or the token was altered)");
    }
    // After the signature: what a forged token says is not looked up.
    if (revocations_ != nullptr &&
        revocations_->Revoked(token.token_id, token.user, token.issued_unix_s)) {
      return Refusal(method, "revoked user token (" +
                                 (token.token_id.empty()
                                      ? std::string("of user '") + std::string(token.user) + "'"
                                      : "id '" + std::string(token.token_id) + "'") +
                                 ")");
    }
    admission.context.set_verified_user(token.user);
    for (std::string_view roles = token.roles; !roles.empty();) {
      const size_t comma = roles.find(',');
      admission.context.add_verified_role(roles.substr(0, comma));
      roles.remove_prefix(comma == std::string_view::npos ? roles.size() : comma + 1);
    }
    return Status::Ok();
  }
  Status OnCall(ServerCall&) override { return Status::Ok(); }
  bool ObservesDone() const override { return false; }

 private:
  void ReadRevocations(config::ConfigReader section) {
    std::string kind;
    section.String("kind", &kind);
    const ExtensionRegistry& registry = ExtensionRegistry::Instance();
    revocations_ = registry.Create<TokenRevocations>(kind);
    if (revocations_ == nullptr) {
      std::string known;
      for (const std::string& name : registry.Names<TokenRevocations>()) {
        known += (known.empty() ? "" : ", ") + name;
      }
      section.Invalid("kind", "unknown revocation list '" + kind + "' (known: " + known +
                                  "; redis comes with ferry::redis_filters)");
      return;
    }
    revocations_->Configure(section);
    section.RejectUnknownKeys();
  }

  static Status Refusal(const UserTokenMethod& method, const std::string& why) {
    return Status(StatusCode::UNAUTHENTICATED, "user_token: " + why + " for " + method.name);
  }

  AuthKeyring keyring_;
  CredentialMethods methods_;
  int64_t max_skew_s_ = kDefaultMaxSkewS;
  int64_t max_ttl_s_ = kDefaultMaxTtlS;
  std::string audience_;
  bool accept_v1_ = true;
  std::shared_ptr<TokenRevocations> revocations_;
};

}  // namespace

void RegisterUserTokenFilter(ExtensionRegistry& registry) {
  registry.Register<ServerFilter>("user_token",
                                  [] { return std::make_shared<UserTokenServerFilter>(); });
}

}  // namespace ferry::plugins
