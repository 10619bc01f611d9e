#include "auth_keyring.h"

#include "auth_token_fields.h"
#include "glob.h"

namespace ferry::plugins {

constexpr std::string_view kDefaultKeyId = "default";

void AuthKeyring::Configure(config::ConfigReader& config, bool with_callers) {
  if (config.Has("secret") && config.Has("keys")) {
    config.Invalid("keys", "set either keys or secret (one key, id 'default'), not both");
    return;
  }
  if (config.Has("secret")) {
    std::string secret;
    config.Secret("secret", &secret);
    if (secret.empty()) {
      config.Invalid("secret", "must be set to a non-empty shared secret");
      return;
    }
    Add(config, "secret", std::string(kDefaultKeyId), std::move(secret));
    return;
  }
  const YAML::Node list = config.Raw("keys");
  if (!list.IsDefined() || list.IsNull()) {
    config.Invalid("secret",
                   "must be set to a non-empty shared secret (or keys: [{id: <key id>, secret: "
                   "<shared secret>}, ...] to several)");
    return;
  }
  if (!list.IsSequence() || list.size() == 0) {
    config.Invalid("keys", "expected a non-empty list of {id: <key id>, secret: <shared secret>}");
    return;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    config::ConfigReader item(list[i], config.PathOf("keys") + "[" + std::to_string(i) + "]",
                              config.errors());
    if (!list[i].IsMap()) {
      item.Invalid("id", "expected a mapping {id: <key id>, secret: <shared secret>}");
      return;
    }
    std::string id;
    std::string secret;
    std::vector<std::string> callers;
    item.String("id", &id);
    item.Secret("secret", &secret);
    if (with_callers) item.StringList("callers", &callers);
    item.RejectUnknownKeys();
    if (with_callers && item.Has("callers") && callers.empty()) {
      item.Invalid("callers", "must list at least one caller the key may sign (or be left out)");
      return;
    }
    for (const std::string& caller : callers) {
      if (!IsIdentityPattern(caller, kMaxCallerChars)) {
        item.Invalid("callers",
                     "expected patterns of 1-64 characters of A-Z a-z 0-9 . _ @ - and "
                     "* (any run of them), got '" +
                         caller + "'");
        return;
      }
    }
    if (!IsAuthTokenWord(id, 1, kMaxKeyIdChars)) {
      item.Invalid("id", "must be 1-64 characters of A-Z a-z 0-9 . _ @ -, got '" + id + "'");
      return;
    }
    if (secret.empty()) {
      item.Invalid("secret", "key '" + id + "' must have a non-empty shared secret");
      return;
    }
    if (Find(id) != nullptr) {
      item.Invalid("id", "key id '" + id + "' is listed twice");
      return;
    }
    Add(item, "secret", std::move(id), std::move(secret), std::move(callers));
  }
}

bool AuthKeyring::Key::MaySign(std::string_view caller) const {
  if (callers.empty()) return true;
  for (const std::string& pattern : callers) {
    if (GlobMatches(pattern, caller)) return true;
  }
  return false;
}

bool IsIdentityPattern(std::string_view pattern, size_t max_chars) {
  if (pattern.empty() || pattern.size() > max_chars) return false;
  std::string without_stars;
  for (char c : pattern) {
    if (c != '*') without_stars.push_back(c);
  }
  return IsAuthTokenWord(without_stars, 0, max_chars);
}

void AuthKeyring::Add(config::ConfigReader& config, std::string_view secret_key, std::string id,
                      std::string secret, std::vector<std::string> callers) {
  auto hmac = std::make_unique<HmacSha256Key>(secret);
  if (!hmac->ok()) {
    config.Invalid(secret_key, "OpenSSL cannot key HMAC-SHA256 with it");
    return;
  }
  keys_.push_back(Key{std::move(id), std::move(secret), std::move(hmac), std::move(callers)});
}

const AuthKeyring::Key* AuthKeyring::Find(std::string_view id) const {
  for (const Key& key : keys_) {
    if (key.id == id) return &key;
  }
  return nullptr;
}

std::string AuthKeyring::Ids() const {
  std::string ids;
  for (const Key& key : keys_) ids += (ids.empty() ? "'" : ", '") + key.id + "'";
  return ids;
}

}  // namespace ferry::plugins
