#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace ferry::app {

// `document` as YAML for people to read, with secrets replaced by "<redacted>": the values of
// keys that name one (password, secret, token, credential, key, ...: any key ending in or made
// of such a word) and the user information of URLs ("redis://user:pw@host" keeps its host).
std::string RedactedYaml(const YAML::Node& document);

// Whether a mapping key names a secret.
bool IsSecretKey(std::string_view key);

}  // namespace ferry::app
