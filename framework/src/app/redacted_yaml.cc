#include "app/redacted_yaml.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "ferry/framework/logging.h"

namespace ferry::app {
namespace {

constexpr std::string_view kRedacted = "<redacted>";

// The words of a key: snake_case, kebab-case, dotted and camelCase alike ("adminTokenSha256",
// "admin_token_sha256" and "Admin-Token.SHA256" are admin, token, sha256), lower case.
std::vector<std::string> KeyWords(std::string_view key) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < key.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (!std::isalnum(c)) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    const bool upper_after_lower =
        std::isupper(c) && i > 0 && std::islower(static_cast<unsigned char>(key[i - 1]));
    if (upper_after_lower && !words.back().empty()) words.emplace_back();
    words.back().push_back(static_cast<char>(std::tolower(c)));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// A value that looks like a key, token or digest whatever its key is called: 20 or more
// characters of a token alphabet (no spaces, dots, colons or slashes, so no names, addresses,
// paths or URLs), letters and digits mixed, and no run of nine lower-case letters (words).
bool LooksLikeSecret(std::string_view value) {
  if (value.size() < 20) return false;
  bool digit = false;
  bool letter = false;
  size_t run = 0;
  for (const char ch : value) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '+' && c != '=') return false;
    digit |= std::isdigit(c) != 0;
    letter |= std::isalpha(c) != 0;
    run = std::islower(c) ? run + 1 : 0;
    if (run >= 9) return false;
  }
  return digit && letter;
}

YAML::Node Redacted(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& entry : node) {
        const std::string key = entry.first.Scalar();
        if (IsSecretKey(key) && !entry.second.IsNull()) {
          out[key] = std::string(kRedacted);
        } else {
          out[key] = Redacted(entry.second);
        }
      }
      return out;
    }
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& item : node) out.push_back(Redacted(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      if (LooksLikeSecret(node.Scalar())) return YAML::Node(std::string(kRedacted));
      return YAML::Node(RedactedUrl(node.Scalar()));
    default:
      return YAML::Node(node.Type());
  }
}

}  // namespace

bool IsSecretKey(std::string_view key) {
  // What a key holds is its last word: `admin_token_sha256` holds a digest, `apiKey` a key,
  // `token_ttl_ms` a duration, `hash_key_field` a field's name.
  static constexpr std::array<std::string_view, 18> kWords = {
      "password", "passwd", "passphrase", "secret", "token",     "credential",
      "key",      "apikey", "sha1",       "sha256", "sha512",    "md5",
      "hash",     "digest", "hmac",       "salt",   "signature", "cookie"};
  std::vector<std::string> words = KeyWords(key);
  if (words.empty()) return false;
  std::string last = std::move(words.back());
  if (last.size() > 3 && last.back() == 's') last.pop_back();  // "secrets", "keys"
  return std::find(kWords.begin(), kWords.end(), last) != kWords.end();
}

std::string RedactedYaml(const YAML::Node& document) {
  if (!document.IsDefined() || document.IsNull()) return "";
  YAML::Emitter out;
  out << Redacted(document);
  return std::string(out.c_str()) + "\n";
}

}  // namespace ferry::app
