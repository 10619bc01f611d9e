#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace google::protobuf {
class Message;
}

namespace ferry::cluster {

// The consistent-hashing key of a request taken from one of its fields (YAML
// `loadbalance.consistent_hash.field`), hashed with ferry::HashKey so that every client maps a
// value to the same provider. String and bytes fields hash their bytes; integer and enum fields
// their decimal text, so the key 42 and the key "42" agree. nullopt when the request's type has
// no such singular field of those types: its calls are not tied to a provider.
class RequestHashKey {
 public:
  explicit RequestHashKey(std::string field) : field_(std::move(field)) {}

  bool configured() const { return !field_.empty(); }
  std::optional<uint64_t> Of(const google::protobuf::Message& request) const;

 private:
  std::string field_;
};

}  // namespace ferry::cluster
