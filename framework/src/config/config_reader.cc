#include "ferry/framework/config_reader.h"

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace ferry::config {
namespace {

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

std::string IntegerExpectation(int64_t min, int64_t max) {
  if (max == ConfigReader::kNoMax) return "expected an integer >= " + std::to_string(min);
  return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

void ConfigErrors::Add(std::string_view key_path, std::string_view message, const YAML::Mark& at) {
  if (!first_.ok()) return;
  std::string text = source_;
  if (at.line >= 0) text += ":" + std::to_string(at.line + 1);
  text += ": " + std::string(key_path) + ": " + std::string(message);
  first_ = Status(StatusCode::INVALID_ARGUMENT, std::move(text));
}

ConfigReader::ConfigReader(YAML::Node mapping, std::string path, ConfigErrors* errors)
    : mapping_(std::move(mapping)), path_(std::move(path)), errors_(errors) {}

std::string ConfigReader::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

YAML::Node ConfigReader::Find(std::string_view key) {
  known_.emplace(key);
  return Lookup(key);
}

YAML::Node ConfigReader::Lookup(std::string_view key) const {
  if (!mapping_.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  // A linear scan: yaml-cpp's operator[] on a non-const node would insert the key.
  for (const auto& entry : mapping_) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

ConfigReader ConfigReader::Section(std::string_view key) {
  YAML::Node node = Find(key);
  if (node.IsDefined() && !node.IsNull() && !node.IsMap()) {
    errors_->Add(PathOf(key), "expected a mapping, got " + Describe(node), node.Mark());
    node = YAML::Node(YAML::NodeType::Undefined);
  }
  return ConfigReader(node, PathOf(key), errors_);
}

void ConfigReader::Integer(std::string_view key, int64_t min, int64_t max, int64_t* out) {
  const YAML::Node node = Find(key);
  if (!node.IsDefined()) return;
  int64_t value = 0;
  bool parsed = false;
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    parsed = error == std::errc() && end == text.data() + text.size() && !text.empty();
  }
  if (!parsed || value < min || value > max) {
    errors_->Add(PathOf(key), IntegerExpectation(min, max) + ", got " + Describe(node),
                 node.Mark());
    return;
  }
  *out = value;
}

void ConfigReader::Millis(std::string_view key, int64_t min, int64_t max,
                          std::chrono::milliseconds* out) {
  int64_t ms = out->count();
  Integer(key, min, max, &ms);
  *out = std::chrono::milliseconds(ms);
}

void ConfigReader::String(std::string_view key, std::string* out) {
  const YAML::Node node = Find(key);
  if (!node.IsDefined()) return;
  if (!node.IsScalar()) {
    errors_->Add(PathOf(key), "expected a string, got " + Describe(node), node.Mark());
    return;
  }
  *out = node.Scalar();
}

void ConfigReader::Bool(std::string_view key, bool* out) {
  const YAML::Node node = Find(key);
  if (!node.IsDefined()) return;
  if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false")) {
    *out = node.Scalar() == "true";
    return;
  }
  errors_->Add(PathOf(key), "expected true or false, got " + Describe(node), node.Mark());
}

void ConfigReader::Double(std::string_view key, double min, double max, double* out) {
  const YAML::Node node = Find(key);
  if (!node.IsDefined()) return;
  double value = 0;
  bool parsed = false;
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    parsed = error == std::errc() && end == text.data() + text.size() && !text.empty();
  }
  if (!parsed || value < min || value > max) {
    errors_->Add(PathOf(key),
                 "expected a number from " + FormatNumber(min) + " to " + FormatNumber(max) +
                     ", got " + Describe(node),
                 node.Mark());
    return;
  }
  *out = value;
}

void ConfigReader::DoubleAbove(std::string_view key, double above, double* out) {
  const YAML::Node node = Find(key);
  if (!node.IsDefined()) return;
  double value = 0;
  bool parsed = false;
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    parsed = error == std::errc() && end == text.data() + text.size() && !text.empty() &&
             std::isfinite(value);
  }
  if (!parsed || value <= above) {
    errors_->Add(PathOf(key),
                 "expected a number above " + FormatNumber(above) + ", got " + Describe(node),
                 node.Mark());
    return;
  }
  *out = value;
}

bool ConfigReader::Has(std::string_view key) const { return Lookup(key).IsDefined(); }

std::vector<std::string> ConfigReader::KeysOf(std::string_view key) {
  std::vector<std::string> keys;
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return keys;
  if (!node.IsMap()) {
    errors_->Add(PathOf(key), "expected a mapping, got " + Describe(node), node.Mark());
    return keys;
  }
  for (const auto& entry : node) keys.push_back(entry.first.Scalar());
  return keys;
}

bool IsSampleSecret(std::string_view secret) { return secret.starts_with("change-me"); }

void ConfigReader::Secret(std::string_view key, std::string* out) {
  std::string secret = *out;
  String(key, &secret);
  if (IsSampleSecret(secret) && !errors_->sample_secrets_allowed()) {
    Invalid(key,
            "is a sample secret of the shipped configs ('" + secret +
                "'), which anyone can read; set a secret of your own, or allow_sample_secrets: "
                "true at the top of the file (or the App's --dev flag) for a demo");
    return;
  }
  *out = std::move(secret);
}

void ConfigReader::StringList(std::string_view key, std::vector<std::string>* out) {
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsSequence()) {
    errors_->Add(PathOf(key), "expected a list, got " + Describe(node), node.Mark());
    return;
  }
  std::vector<std::string> values;
  for (size_t i = 0; i < node.size(); ++i) {
    if (!node[i].IsScalar()) {
      errors_->Add(PathOf(key) + "[" + std::to_string(i) + "]",
                   "expected a string, got " + Describe(node[i]), node[i].Mark());
      return;
    }
    values.push_back(node[i].Scalar());
  }
  *out = std::move(values);
}

YAML::Node ConfigReader::Raw(std::string_view key) { return Find(key); }

void ConfigReader::Invalid(std::string_view key, std::string_view message) {
  known_.emplace(key);
  // The key's own line, or the mapping's when the key is absent (a key that must be set).
  YAML::Mark at = mapping_.IsDefined() ? mapping_.Mark() : YAML::Mark::null_mark();
  if (mapping_.IsMap()) {
    for (const auto& entry : mapping_) {
      if (entry.first.IsScalar() && entry.first.Scalar() == key) {
        at = entry.first.Mark();
        break;
      }
    }
  }
  errors_->Add(PathOf(key), message, at);
}

void ConfigReader::RejectUnknownKeys() {
  if (!mapping_.IsMap()) return;
  // yaml-cpp keeps both entries of a key given twice and lookups find the first: the second
  // would be ignored without a word.
  std::map<std::string, int> first_lines;
  for (const auto& entry : mapping_) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : Describe(entry.first);
    if (const auto [first, inserted] = first_lines.emplace(key, entry.first.Mark().line + 1);
        !inserted) {
      errors_->Add(PathOf(key), "given twice (first on line " + std::to_string(first->second) + ")",
                   entry.first.Mark());
      continue;
    }
    if (entry.first.IsScalar() && known_.count(key) != 0) continue;
    std::string message = "unknown key (expected one of:";
    for (const std::string& known : known_) message += " " + known;
    message += ")";
    errors_->Add(PathOf(key), message, entry.first.Mark());
  }
}

}  // namespace ferry::config
