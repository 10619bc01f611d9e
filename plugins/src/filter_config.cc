#include "filter_config.h"

#include <cmath>
#include <sstream>
#include <utility>

namespace ferry::plugins {
namespace {

std::string Describe(const YAML::Node& node) {
  return node.IsScalar() ? "'" + node.Scalar() + "'" : "a list or mapping";
}

}  // namespace

FilterConfig::FilterConfig(const std::string& yaml)
    : FilterConfig(YAML::Node(), "", std::make_shared<Status>()) {
  try {
    mapping_ = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    *error_ = Status(StatusCode::INVALID_ARGUMENT, std::string("unreadable YAML: ") + e.what());
    return;
  }
  if (!mapping_.IsMap()) {
    *error_ = Status(StatusCode::INVALID_ARGUMENT, "expected a mapping, got " + Describe(mapping_));
    mapping_ = YAML::Node();
  }
  read_.insert("name");
}

FilterConfig::FilterConfig(YAML::Node mapping, std::string path, std::shared_ptr<Status> error)
    : mapping_(std::move(mapping)), path_(std::move(path)), error_(std::move(error)) {}

FilterConfig FilterConfig::Section(std::string_view key) {
  YAML::Node node = Find(key);
  if (node && !node.IsNull() && !node.IsMap()) {
    Invalid(key, "expected a mapping, got " + Describe(node));
    node = YAML::Node();
  }
  return FilterConfig(node && node.IsMap() ? node : YAML::Node(), path_ + std::string(key) + ".",
                      error_);
}

bool FilterConfig::Has(std::string_view key) const {
  const YAML::Node& mapping = mapping_;  // const: looking a key up must not insert it
  return mapping.IsMap() && mapping[std::string(key)].IsDefined();
}

std::vector<std::string> FilterConfig::KeysOf(std::string_view key) {
  std::vector<std::string> keys;
  YAML::Node node = Find(key);
  if (!node || node.IsNull()) return keys;
  if (!node.IsMap()) {
    Invalid(key, "expected a mapping, got " + Describe(node));
    return keys;
  }
  for (const auto& entry : node) keys.push_back(entry.first.Scalar());
  return keys;
}

void FilterConfig::String(std::string_view key, std::string* out) {
  const YAML::Node node = Find(key);
  if (!node) return;
  if (!node.IsScalar()) return Invalid(key, "expected a string, got " + Describe(node));
  *out = node.Scalar();
}

void FilterConfig::Integer(std::string_view key, int64_t min, int64_t max, int64_t* out) {
  const YAML::Node node = Find(key);
  if (!node) return;
  int64_t value = 0;
  if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, value) || value < min ||
      value > max) {
    return Invalid(key, "expected an integer in [" + std::to_string(min) + ", " +
                            std::to_string(max) + "], got " + Describe(node));
  }
  *out = value;
}

void FilterConfig::Double(std::string_view key, double above, double* out) {
  const YAML::Node node = Find(key);
  if (!node) return;
  double value = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, value) || !std::isfinite(value) ||
      value <= above) {
    std::ostringstream message;
    message << "expected a number > " << above << ", got " << Describe(node);
    return Invalid(key, message.str());
  }
  *out = value;
}

void FilterConfig::Invalid(std::string_view key, std::string_view message) {
  if (!error_->ok()) return;
  *error_ =
      Status(StatusCode::INVALID_ARGUMENT, path_ + std::string(key) + ": " + std::string(message));
}

Status FilterConfig::Finish() {
  if (mapping_.IsMap()) {
    for (const auto& entry : mapping_) {
      const std::string& key = entry.first.Scalar();
      if (!read_.contains(key)) Invalid(key, "unknown key");
    }
  }
  return *error_;
}

YAML::Node FilterConfig::Find(std::string_view key) {
  read_.emplace(key);
  const YAML::Node& mapping = mapping_;  // const: looking a key up must not insert it
  if (!mapping.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return mapping[std::string(key)];
}

}  // namespace ferry::plugins
