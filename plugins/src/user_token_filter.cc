#include <time.h>

#include <memory>
#include <optional>
#include <string>

#include "auth_keyring.h"
#include "builtin_filters.h"
#include "exempt_methods.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/user_token.h"
#include "user_token_codec.h"

namespace ferry::plugins {
namespace {

constexpr int64_t kDefaultMaxSkewS = 60;
constexpr int64_t kMaxSkewLimitS = 24 * 3600;

int64_t UnixSecondsNow() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return int64_t{now.tv_sec};
}

// What the filter keeps for one method.
struct UserTokenMethod {
  std::string name;  // "<service>/<method>", for messages
  bool exempt = false;
};

// Verifies the user token a call carries in its `user-token` attachment and hands its user on
// as ServerContext::verified_user(); a call of a method that needs a user and comes without a
// valid token is refused UNAUTHENTICATED before its body is decoded.
class UserTokenServerFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    keyring_.Configure(config);
    exempt_.Configure(config);
    config.Integer("max_skew_s", 0, kMaxSkewLimitS, &max_skew_s_);
  }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    auto state = std::make_shared<UserTokenMethod>();
    state->name = std::string(method.service) + "/" + std::string(method.method);
    state->exempt = exempt_.Contains(state->name);
    return state;
  }

  Status OnAdmit(const ServerAdmission& admission) override {
    const auto& method = *static_cast<const UserTokenMethod*>(admission.method_state);
    if (method.exempt) return Status::Ok();
    const Attachments& attachments = admission.context.attachments();
    const auto sent = attachments.find(std::string(kUserTokenAttachment));
    if (sent == attachments.end() || sent->second.empty()) {
      return Refusal(method,
                     "missing user token (attachment 'user-token'; over HTTP the header "
                     "X-Ferry-Attachment-User-Token)");
    }
    UserTokenFields token;
    if (!ParseUserToken(sent->second, &token)) {
      return Refusal(method,
                     "malformed user token (expected u1:<key id>:<user>:<issued unix s>:<expires "
                     "unix s>:<43 base64url digits of hmac-sha256>)");
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
    const AuthKeyring::Key* key = keyring_.Find(token.key_id);
    if (key == nullptr) {
      return Refusal(method, "unknown user token key id '" + std::string(token.key_id) +
                                 "' (this server holds " + keyring_.Ids() + ")");
    }
    const std::optional<Sha256Digest> mac = UserTokenMac(*key->hmac, token);
    if (!mac) return Status(StatusCode::INTERNAL, "user_token: OpenSSL cannot compute HMAC-SHA256");
    if (!UserTokenMacMatches(*mac, token)) {
      return Refusal(method,
                     "invalid user token signature (wrong secret, or the token was altered)");
    }
    admission.context.set_verified_user(token.user);
    return Status::Ok();
  }
  Status OnCall(ServerCall&) override { return Status::Ok(); }
  bool ObservesDone() const override { return false; }

 private:
  static Status Refusal(const UserTokenMethod& method, const std::string& why) {
    return Status(StatusCode::UNAUTHENTICATED, "user_token: " + why + " for " + method.name);
  }

  AuthKeyring keyring_;
  ExemptMethods exempt_;
  int64_t max_skew_s_ = kDefaultMaxSkewS;
};

}  // namespace

void RegisterUserTokenFilter(ExtensionRegistry& registry) {
  registry.Register<ServerFilter>("user_token",
                                  [] { return std::make_shared<UserTokenServerFilter>(); });
}

}  // namespace ferry::plugins
