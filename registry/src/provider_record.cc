#include "provider_record.h"

#include <charconv>
#include <cstdint>
#include <set>

#include "ferry/registry/registry_url.h"

namespace ferry::registry {
namespace {

Status Unwritable(std::string_view what) {
  return Status(StatusCode::INVALID_ARGUMENT,
                "provider " + std::string(what) + " cannot be published in a registry");
}

Status Malformed(std::string_view address, std::string_view why) {
  return Status(StatusCode::DATA_LOSS,
                "malformed record of provider '" + std::string(address) + "': " + std::string(why));
}

bool HasLineBreak(std::string_view text) { return text.find_first_of("\r\n") != text.npos; }

template <class Int>
bool ParseInt(std::string_view text, Int* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

std::vector<std::string> SplitMethods(std::string_view list) {
  std::vector<std::string> methods;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    methods.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return methods;
}

std::string WeightRange() { return "1.." + std::to_string(kMaxProviderWeight); }

bool IsSaneWeight(int64_t weight) { return weight >= 1 && weight <= kMaxProviderWeight; }

// Applies one key=value line; false when the value does not parse. A weight that parses is
// range-checked by the caller, so that its message can say what is wrong with it.
bool ApplyField(std::string_view key, std::string_view value, ProviderInfo* provider,
                int64_t* weight) {
  if (key == "weight") return ParseInt(value, weight);
  if (key == "start_time_ms") return ParseInt(value, &provider->start_time_ms);
  if (key == "version") {
    provider->version = value;
  } else if (key == "group") {
    provider->group = value;
  } else if (key == "zone") {
    provider->zone = value;
  } else if (key == "methods") {
    provider->methods = SplitMethods(value);
    for (const auto& method : provider->methods) {
      if (method.empty()) return false;
    }
  }
  return true;
}

}  // namespace

Status EncodeProviderRecord(const ProviderInfo& provider, std::string* out) {
  if (!IsHostPort(provider.address)) return Unwritable("address '" + provider.address + "'");
  if (!IsSaneWeight(provider.weight)) {
    return Unwritable("weight " + std::to_string(provider.weight) + " (expected " + WeightRange() +
                      ")");
  }
  if (HasLineBreak(provider.version)) return Unwritable("version with a line break");
  if (HasLineBreak(provider.group)) return Unwritable("group with a line break");
  if (HasLineBreak(provider.zone)) return Unwritable("zone with a line break");
  std::string methods;
  for (const auto& method : provider.methods) {
    if (method.empty() || HasLineBreak(method) || method.find(',') != std::string::npos) {
      return Unwritable("method name '" + method + "'");
    }
    if (!methods.empty()) methods += ',';
    methods += method;
  }
  std::string record(kProviderRecordHeader);
  record += "\nweight=" + std::to_string(provider.weight);
  record += "\nversion=" + provider.version;
  record += "\ngroup=" + provider.group;
  record += "\nzone=" + provider.zone;
  record += "\nstart_time_ms=" + std::to_string(provider.start_time_ms);
  record += "\nmethods=" + methods;
  record += '\n';
  *out = std::move(record);
  return Status::Ok();
}

Status DecodeProviderRecord(std::string_view address, std::string_view data, ProviderInfo* out) {
  if (!IsHostPort(address)) return Malformed(address, "the address is not host:port");
  ProviderInfo provider;
  provider.address = address;
  std::set<std::string_view, std::less<>> seen;
  int64_t weight = provider.weight;
  bool header_seen = false;
  while (!data.empty()) {
    const size_t newline = data.find('\n');
    const std::string_view line = data.substr(0, newline);
    data.remove_prefix(newline == std::string_view::npos ? data.size() : newline + 1);
    if (!header_seen) {
      if (line != kProviderRecordHeader) {
        return Malformed(address, "first line is not '" + std::string(kProviderRecordHeader) + "'");
      }
      header_seen = true;
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      return Malformed(address, "line '" + std::string(line) + "' is not key=value");
    }
    const std::string_view key = line.substr(0, equals);
    if (!seen.insert(key).second) return Malformed(address, "key '" + std::string(key) + "' twice");
    if (!ApplyField(key, line.substr(equals + 1), &provider, &weight)) {
      return Malformed(address, "bad value in '" + std::string(line) + "'");
    }
  }
  if (!header_seen) return Malformed(address, "empty");
  // A weight of 0 would hide the provider from every balancer without saying so, and a huge
  // one would take all the traffic (or a ring's worth of memory): both are mistakes.
  if (!IsSaneWeight(weight)) {
    return Malformed(address, "weight " + std::to_string(weight) + " is outside " + WeightRange());
  }
  provider.weight = static_cast<uint32_t>(weight);
  *out = std::move(provider);
  return Status::Ok();
}

}  // namespace ferry::registry
