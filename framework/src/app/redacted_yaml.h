#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace ferry::app {

// `document` as YAML for people to read, with secrets replaced by "<redacted>": everything under
// a key whose last word names a secret (IsSecretKey), every value shaped like a key, token or
// digest whatever its key, and the user information of URLs ("redis://user:pw@host" keeps its
// host).
std::string RedactedYaml(const YAML::Node& document);

// Whether a mapping key names a secret: its last word, in snake_case, kebab-case, dotted or
// camelCase keys, singular or plural, is password, passwd, passphrase, secret, token,
// credential, key, apikey, a digest (sha1, sha256, sha512, md5, hash, digest, hmac), salt,
// signature or cookie.
bool IsSecretKey(std::string_view key);

}  // namespace ferry::app
