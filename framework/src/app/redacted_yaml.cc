#include "app/redacted_yaml.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "ferry/framework/logging.h"

namespace ferry::app {
namespace {

constexpr std::string_view kRedacted = "<redacted>";

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
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
      return YAML::Node(RedactedUrl(node.Scalar()));
    default:
      return YAML::Node(node.Type());
  }
}

}  // namespace

bool IsSecretKey(std::string_view key) {
  static constexpr std::array<std::string_view, 8> kWords = {
      "password", "passwd", "secret", "token", "tokens", "credential", "credentials", "key"};
  const std::string lower = Lower(key);
  for (const std::string_view word : kWords) {
    if (lower == word) return true;
    // A word of a snake_case or kebab-case key: "api_key", "auth-token", "db_password".
    if (lower.size() > word.size() && lower.ends_with(word)) {
      const char before = lower[lower.size() - word.size() - 1];
      if (before == '_' || before == '-') return true;
    }
  }
  return false;
}

std::string RedactedYaml(const YAML::Node& document) {
  if (!document.IsDefined() || document.IsNull()) return "";
  YAML::Emitter out;
  out << Redacted(document);
  return std::string(out.c_str()) + "\n";
}

}  // namespace ferry::app
