#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::plugins {

// Reads the YAML mapping a filter's Configure() receives, e.g. "{name: auth, secret: s3cr3t}".
// Keeps the first error, with the key's path ("per_caller.rate: expected a number > 0"), and
// remembers which keys were read so that Finish() can name a key nobody reads, typically a typo.
class FilterConfig {
 public:
  // The key `name` is the filter's own and always accepted.
  explicit FilterConfig(const std::string& yaml);

  // A nested mapping, sharing this config's error; absent reads as empty.
  FilterConfig Section(std::string_view key);
  bool Has(std::string_view key) const;
  // The keys of a nested mapping whose keys are data, e.g. method names; marks `key` as read.
  std::vector<std::string> KeysOf(std::string_view key);

  // Each leaves `*out` untouched when the key is absent or invalid.
  void String(std::string_view key, std::string* out);
  void Integer(std::string_view key, int64_t min, int64_t max, int64_t* out);
  // Strictly greater than `above`.
  void Double(std::string_view key, double above, double* out);

  // Reports `message` against `key`, for checks a filter makes itself.
  void Invalid(std::string_view key, std::string_view message);

  // Call on every mapping once its keys are read: reports a key nobody read, then returns the
  // first error of the whole config (INVALID_ARGUMENT), shared by all its sections.
  Status Finish();

 private:
  FilterConfig(YAML::Node mapping, std::string path, std::shared_ptr<Status> error);
  YAML::Node Find(std::string_view key);  // marks `key` as read

  YAML::Node mapping_;
  std::string path_;  // "" at top level, "per_caller." below
  std::shared_ptr<Status> error_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace ferry::plugins
