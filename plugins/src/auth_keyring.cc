#include "auth_keyring.h"

#include "auth_token_v3.h"

namespace ferry::plugins {

constexpr std::string_view kDefaultKeyId = "default";

void AuthKeyring::Configure(config::ConfigReader& config) {
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
    item.String("id", &id);
    item.Secret("secret", &secret);
    item.RejectUnknownKeys();
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
    Add(item, "secret", std::move(id), std::move(secret));
  }
}

void AuthKeyring::Add(config::ConfigReader& config, std::string_view secret_key, std::string id,
                      std::string secret) {
  auto hmac = std::make_unique<HmacSha256Key>(secret);
  if (!hmac->ok()) {
    config.Invalid(secret_key, "OpenSSL cannot key HMAC-SHA256 with it");
    return;
  }
  keys_.push_back(Key{std::move(id), std::move(secret), std::move(hmac)});
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
