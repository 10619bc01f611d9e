#include "field_rate_limits.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

#include "rate_limit_config.h"

namespace ferry::plugins {

namespace {

using google::protobuf::FieldDescriptor;

// The field's value as a bucket key; nullopt when the field cannot key a bucket.
std::optional<std::string> KeyOf(const google::protobuf::Message& request, std::string_view name,
                                 std::string* error) {
  const FieldDescriptor* field = request.GetDescriptor()->FindFieldByName(std::string(name));
  if (field == nullptr || field->is_repeated()) {
    *error = field ? "is repeated" : "does not exist in " + request.GetDescriptor()->full_name();
    return std::nullopt;
  }
  const google::protobuf::Reflection* r = request.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      return r->GetString(request, field);
    case FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(r->GetInt64(request, field));
    case FieldDescriptor::CPPTYPE_UINT64:
      return std::to_string(r->GetUInt64(request, field));
    case FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(r->GetInt32(request, field));
    case FieldDescriptor::CPPTYPE_UINT32:
      return std::to_string(r->GetUInt32(request, field));
    case FieldDescriptor::CPPTYPE_ENUM:
      return std::to_string(r->GetEnumValue(request, field));
    default:
      *error = "is not a string, integer or enum";
      return std::nullopt;
  }
}

}  // namespace

void FieldRateLimits::Configure(config::ConfigReader& config, size_t max_keys, bool has_store) {
  if (!config.Has("per_field")) return;
  config::ConfigReader methods = config.Section("per_field");
  for (const std::string& method : config.KeysOf("per_field")) {
    if (method.find('/') == std::string::npos) {
      methods.Invalid(method, "expected <full service name>/<method>");
      continue;
    }
    config::ConfigReader fields = methods.Section(method);
    for (const std::string& field : methods.KeysOf(method)) {
      if (std::optional<RateLimit> limit = ReadRateLimit(fields.Section(field), has_store)) {
        limit->name = "per_field:" + method + ":" + field;
        rules_[method].push_back(
            Rule{field, std::move(*limit), std::make_unique<BucketMap>(max_keys)});
      }
    }
  }
}

FieldRateLimits::Rules* FieldRateLimits::For(std::string_view method_key) {
  const auto rules = rules_.find(method_key);
  return rules == rules_.end() ? nullptr : &rules->second;
}

Status FieldRateLimits::TryTake(Rules& rules, std::string_view method_key, const ServerCall& call,
                                RateClock::time_point now,
                                std::vector<SharedLimiter::Check>* shared) {
  for (Rule& rule : rules) {
    std::string error;
    const std::optional<std::string> key = KeyOf(call.request, rule.field, &error);
    if (!key) {
      return Status(StatusCode::FAILED_PRECONDITION, "ratelimit: per_field." +
                                                         std::string(method_key) + "." +
                                                         rule.field + ": the field " + error);
    }
    std::string who = rule.field + " '" + *key + "' of " + std::string(method_key);
    if (rule.limit.shared) {
      shared->push_back(SharedLimiter::Check{.limit = &rule.limit,
                                             .key = *key,
                                             .who = std::move(who),
                                             .local_map = rule.buckets.get()});
    } else if (!rule.buckets->TryTake(*key, rule.limit, now)) {
      return RateLimitExhausted(who, rule.limit);
    }
  }
  return Status::Ok();
}

}  // namespace ferry::plugins
