#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"

// The one reader every part of a config file goes through: the framework's sections, every
// extension's own keys (filters, ...) and a provider's `service:` section, so that every error
// names its place the same way: "file:line: full.key.path: message".
namespace ferry::config {

// The first error met while reading one config file; later ones are usually consequences.
class ConfigErrors {
 public:
  explicit ConfigErrors(std::string source) : source_(std::move(source)) {}

  // "echo.yaml:3: server.io_threads: expected an integer >= 1, got 'x'"; without a line when
  // the mark has none (a node built in code).
  void Add(std::string_view key_path, std::string_view message, const YAML::Mark& at);
  const Status& first() const { return first_; }
  const std::string& source() const { return source_; }

  // Whether ConfigReader::Secret() accepts the sample secrets of the shipped configs: set from
  // the file's `allow_sample_secrets: true` or an App's `--dev`, never by default, so that a
  // copied demo config cannot reach production with a secret everyone knows.
  void set_sample_secrets_allowed(bool allowed) { sample_secrets_allowed_ = allowed; }
  bool sample_secrets_allowed() const { return sample_secrets_allowed_; }

 private:
  std::string source_;
  Status first_;
  bool sample_secrets_allowed_ = false;
};

// A secret that ships in Ferry's sample configs and docs: every one starts with "change-me".
bool IsSampleSecret(std::string_view secret);

// Reads one YAML mapping of a config file. It remembers which keys were asked for, so that
// RejectUnknownKeys() can name any key nobody reads, typically a typo.
class ConfigReader {
 public:
  static constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

  // `path` is the mapping's full key path, e.g. "server.business_pool"; empty at top level.
  ConfigReader(YAML::Node mapping, std::string path, ConfigErrors* errors);

  // A nested mapping; absent or null reads as empty, so every key keeps its default.
  ConfigReader Section(std::string_view key);

  // Each leaves `*out` untouched when the key is absent or invalid.
  void Integer(std::string_view key, int64_t min, int64_t max, int64_t* out);
  template <class T>
  void Integer(std::string_view key, int64_t min, int64_t max, T* out) {
    int64_t value = static_cast<int64_t>(*out);
    Integer(key, min, max, &value);
    *out = static_cast<T>(value);
  }
  void Millis(std::string_view key, int64_t min, int64_t max, std::chrono::milliseconds* out);
  void String(std::string_view key, std::string* out);
  // String() for a key that holds a secret: a sample secret (IsSampleSecret) is reported as a
  // mistake unless the file allows them (ConfigErrors::sample_secrets_allowed()).
  void Secret(std::string_view key, std::string* out);
  void Bool(std::string_view key, bool* out);
  void Double(std::string_view key, double min, double max, double* out);
  // Strictly greater than `above`, e.g. a rate that must be positive.
  void DoubleAbove(std::string_view key, double above, double* out);
  // A list of strings, e.g. `plugins: [a.so, b.so]`.
  void StringList(std::string_view key, std::vector<std::string>* out);
  // Whether the mapping has `key`; does not count as reading it.
  bool Has(std::string_view key) const;
  // The keys of a nested mapping whose keys are data (method names, client names); marks `key`
  // as read. Empty, after reporting, when it is not a mapping.
  std::vector<std::string> KeysOf(std::string_view key);
  // Path of `key` in this mapping, e.g. "client.filters", for nested readers and messages.
  std::string PathOf(std::string_view key) const;
  ConfigErrors* errors() const { return errors_; }
  // The raw node, for free-form sections; an undefined node when absent.
  YAML::Node Raw(std::string_view key);

  // Reports `message` against `key` of this mapping, for checks the reader cannot make itself.
  void Invalid(std::string_view key, std::string_view message);
  // Call after reading every known key.
  void RejectUnknownKeys();

 private:
  YAML::Node Find(std::string_view key);  // marks `key` as known
  YAML::Node Lookup(std::string_view key) const;

  YAML::Node mapping_;
  std::string path_;
  ConfigErrors* errors_;
  std::set<std::string, std::less<>> known_;
};

}  // namespace ferry::config
