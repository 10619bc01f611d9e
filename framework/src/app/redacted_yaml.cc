#include "app/redacted_yaml.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "ferry/framework/logging.h"

namespace ferry::app {
namespace {

constexpr std::string_view kRedacted = "<redacted>";

bool IsLower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }
bool IsUpper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// The words of a key, lower case (IsSecretKey says how it is split).
std::vector<std::string> KeyWords(std::string_view key) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (!IsAlnum(c)) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    const bool starts_word = i > 0 && IsUpper(c) &&
                             (IsLower(key[i - 1]) || IsDigit(key[i - 1]) ||
                              (IsUpper(key[i - 1]) && i + 1 < key.size() && IsLower(key[i + 1])));
    if (starts_word && !words.back().empty()) words.emplace_back();
    words.back().push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// How a word may be read: as written, without trailing digits ("key2"), and singular.
std::vector<std::string_view> Readings(std::string_view word) {
  std::vector<std::string_view> out = {word};
  std::string_view letters = word;
  while (!letters.empty() && IsDigit(letters.back())) letters.remove_suffix(1);
  if (!letters.empty() && letters.size() != word.size()) out.push_back(letters);
  for (const std::string_view form : {word, letters}) {
    if (form.size() >= 3 && form.ends_with('s')) out.push_back(form.substr(0, form.size() - 1));
    if (form.size() >= 4 && form.ends_with("es")) out.push_back(form.substr(0, form.size() - 2));
  }
  return out;
}

template <size_t N>
bool OneOf(std::string_view word, const std::array<std::string_view, N>& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

bool NamesSecret(std::string_view word) {
  static constexpr std::array<std::string_view, 28> kSecretWords = {
      "password", "passwd", "pwd",        "pass",   "passphrase",    "secret", "token",
      "key",      "apikey", "credential", "cred",   "authorization", "bearer", "jwt",
      "cookie",   "salt",   "signature",  "sig",    "hash",          "digest", "hmac",
      "sha",      "sha1",   "sha224",     "sha256", "sha384",        "sha512", "md5"};
  static constexpr std::array<std::string_view, 6> kSecretStems = {
      "password", "passwd", "passphrase", "secret", "credential", "apikey"};
  static constexpr std::array<std::string_view, 9> kWordsEndingInKey = {
      "monkey", "donkey", "turkey", "hockey", "jockey", "whiskey", "lackey", "hotkey", "turnkey"};
  for (const std::string_view form : Readings(word)) {
    if (OneOf(form, kSecretWords)) return true;
    for (const std::string_view stem : kSecretStems) {
      if (form.find(stem) != std::string_view::npos) return true;
    }
    if (form.ends_with("token") || form.ends_with("pwd")) return true;
    if (form.ends_with("key") && !OneOf(form, kWordsEndingInKey)) return true;
  }
  return false;
}

// A last word that says the key holds something about a secret: its id, where it is, how long
// it lasts, how it is made.
bool DescribesSecret(std::string_view word) {
  static constexpr std::array<std::string_view, 36> kDescriptions = {
      "id",   "kid",      "name",    "file",    "path",     "dir",       "env",    "url",
      "uri",  "endpoint", "header",  "param",   "field",    "prefix",    "ttl",    "ms",
      "s",    "sec",      "seconds", "timeout", "interval", "lifetime",  "expiry", "length",
      "len",  "size",     "bytes",   "bits",    "count",    "algorithm", "alg",    "type",
      "kind", "format",   "enabled", "version"};
  for (const std::string_view form : Readings(word)) {
    if (OneOf(form, kDescriptions)) return true;
  }
  return false;
}

// The end of a `name=value` pair's value that starts at `at`: a quoted one's closing quote, else
// the next space, ';', '&' or ','.
size_t ValueEnd(std::string_view text, size_t at) {
  if (at < text.size() && (text[at] == '\'' || text[at] == '"')) {
    const size_t close = text.find(text[at], at + 1);
    return close == std::string_view::npos ? text.size() : close + 1;
  }
  const size_t end = text.find_first_of(" \t;&,", at);
  return end == std::string_view::npos ? text.size() : end;
}

bool IsPairNameChar(char c) { return IsAlnum(c) || c == '_' || c == '-' || c == '.'; }

// `text` with the value of every `name=value` pair whose name names a secret replaced: a libpq
// or ODBC connection string, a URL's query.
std::string RedactedPairs(std::string_view text) {
  std::string out;
  size_t copied = 0;
  for (size_t eq = text.find('='); eq != std::string_view::npos; eq = text.find('=', eq + 1)) {
    size_t name = eq;
    while (name > copied && IsPairNameChar(text[name - 1])) --name;
    if (name == eq) continue;
    if (name > 0 && std::string_view(" \t;&?,").find(text[name - 1]) == std::string_view::npos) {
      continue;
    }
    if (!IsSecretKey(text.substr(name, eq - name))) continue;
    const size_t end = ValueEnd(text, eq + 1);
    if (end == eq + 1) continue;
    out.append(text.substr(copied, eq + 1 - copied)).append(kRedacted);
    copied = end;
    eq = end - 1;
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
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
      return YAML::Node(RedactedPairs(RedactedUrl(node.Scalar())));
    default:
      return YAML::Node(node.Type());
  }
}

}  // namespace

bool IsSecretKey(std::string_view key) {
  const std::vector<std::string> words = KeyWords(key);
  if (words.empty()) return false;
  bool names_secret = false;
  for (size_t i = 0; i < words.size() && !names_secret; ++i) {
    if (words[i] == "hash" && i > 0 && words[i - 1] == "consistent") continue;
    names_secret = NamesSecret(words[i]);
  }
  if (!names_secret) return false;
  const std::string& last = words.back();
  if (words.size() >= 2 && last == "id" && words[words.size() - 2] == "secret") return true;
  if (words.size() >= 2 &&
      (words.front() == "max" || words.front() == "min" || words.front() == "num")) {
    return false;
  }
  return words.size() < 2 || !DescribesSecret(last);
}

std::string RedactedYaml(const YAML::Node& document) {
  if (!document.IsDefined() || document.IsNull()) return "";
  YAML::Emitter out;
  out << Redacted(document);
  return std::string(out.c_str()) + "\n";
}

}  // namespace ferry::app
