#include "config/section_readers.h"

#include <string>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/load_balancer.h"
#include "ferry/framework/logging.h"
#include "ferry/framework/plugin.h"
#include "ferry/framework/registry.h"

namespace ferry::config {
namespace {

constexpr int64_t kMaxMillis = 24 * 3600 * 1000;

template <class Interface>
std::string KnownNames() {
  std::string out;
  for (const std::string& name : ExtensionRegistry::Instance().Names<Interface>()) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "none registered" : out;
}

template <class Interface>
bool IsRegistered(const std::string& name) {
  for (const std::string& known : ExtensionRegistry::Instance().Names<Interface>()) {
    if (known == name) return true;
  }
  return false;
}

void ReadFaultTolerance(ConfigReader section, FaultToleranceOptions* out) {
  // Absent, it keeps what it inherits: empty (by method) or the service-wide mode.
  section.String("mode", &out->mode);
  if (section.Has("mode") && out->mode != "failfast" && out->mode != "failover" &&
      out->mode != "backup") {
    section.Invalid("mode",
                    "unknown mode '" + out->mode + "' (expected failfast, failover or backup)");
  }
  section.Integer("max_attempts", 1, 10, &out->max_attempts);
  ConfigReader budget = section.Section("retry_budget");
  budget.Double("ratio", 0.0, 1.0, &out->retry_budget_ratio);
  budget.Integer("min_per_second", 0, 1000000, &out->retry_budget_min_per_second);
  budget.RejectUnknownKeys();
  section.Millis("backup_delay_ms", 0, kMaxMillis, &out->backup_delay);
  section.RejectUnknownKeys();
}

}  // namespace

void ReadPlugins(ConfigReader& top, std::vector<std::string>* out) {
  top.StringList("plugins", out);
  for (size_t i = 0; i < out->size(); ++i) {
    if (Status loaded = LoadPlugin((*out)[i]); !loaded.ok()) {
      top.errors()->Add(top.PathOf("plugins") + "[" + std::to_string(i) + "]", loaded.message(),
                        top.Raw("plugins").Mark());
      return;
    }
  }
}

void CheckRegistryUrl(ConfigReader& section, std::string_view key, const std::string& url) {
  const size_t colon = url.find("://");
  const std::string scheme = colon == std::string::npos ? "" : url.substr(0, colon);
  if (scheme.empty() || !IsRegistered<Registry>(scheme)) {
    section.Invalid(
        key, "unknown registry '" + RedactedUrl(url) +
                 "' (expected <scheme>://..., with scheme one of: " + KnownNames<Registry>() + ")");
  }
}

void ReadRegistry(ConfigReader section, RegistryOptions* out) {
  section.String("url", &out->url);
  if (!out->url.empty()) CheckRegistryUrl(section, "url", out->url);
  section.String("namespace", &out->namespace_name);
  section.Millis("session_timeout_ms", 1000, kMaxMillis, &out->session_timeout);
  section.Millis("connect_timeout_ms", 1, kMaxMillis, &out->connect_timeout);
  section.Bool("empty_protection", &out->empty_protection);
  std::string startup;
  section.String("startup", &startup);
  if (startup == "wait") {
    out->startup = RegistryOptions::Startup::kWait;
  } else if (startup == "failfast") {
    out->startup = RegistryOptions::Startup::kFailFast;
  } else if (section.Has("startup")) {
    section.Invalid("startup", "unknown startup '" + startup + "' (expected wait or failfast)");
  }
  section.RejectUnknownKeys();
}

void ReadProvider(ConfigReader section, ProviderOptions* out) {
  section.Integer("weight", 1, kMaxProviderWeight, &out->weight);
  section.String("version", &out->version);
  section.String("group", &out->group);
  section.String("zone", &out->zone);
  section.String("advertise", &out->advertise);
  section.RejectUnknownKeys();
}

void ReadFilters(ConfigReader& parent, std::string_view kind, std::vector<FilterSpec>* out) {
  const YAML::Node list = parent.Raw("filters");
  if (!list.IsDefined() || list.IsNull()) return;
  const std::string path = parent.PathOf("filters");
  if (!list.IsSequence()) {
    parent.Invalid("filters", "expected a list of {name: ..., <filter keys>} mappings");
    return;
  }
  std::vector<FilterSpec> specs;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) {
      parent.errors()->Add(item_path, "expected a mapping with a 'name' key", item.Mark());
      return;
    }
    const std::string name = item["name"].Scalar();
    const bool known =
        kind == "client" ? IsRegistered<ClientFilter>(name) : IsRegistered<ServerFilter>(name);
    if (!known) {
      parent.errors()->Add(
          item_path + ".name",
          "unknown " + std::string(kind) + " filter '" + name + "' (known: " +
              (kind == "client" ? KnownNames<ClientFilter>() : KnownNames<ServerFilter>()) + ")",
          item.Mark());
      return;
    }
    specs.push_back(FilterSpec{name, item, parent.errors()->source(), item_path});
  }
  *out = std::move(specs);
}

void ReadClusterKeys(ConfigReader& client, ClusterOptions* out) {
  client.String("service", &out->service);

  ConfigReader lb = client.Section("loadbalance");
  lb.String("name", &out->loadbalance.name);
  // Only a name the file gives is checked: a process that never balances need not link any.
  if (lb.Raw("name").IsDefined() && !IsRegistered<LoadBalancer>(out->loadbalance.name)) {
    lb.Invalid("name", "unknown load balancer '" + out->loadbalance.name +
                           "' (known: " + KnownNames<LoadBalancer>() + ")");
  }
  lb.Millis("warmup_ms", 0, kMaxMillis, &out->loadbalance.warmup);
  ConfigReader ring = lb.Section("consistent_hash");
  ring.Integer("virtual_nodes", 1, 10000, &out->loadbalance.virtual_nodes);
  ring.String("field", &out->loadbalance.hash_field);
  ring.RejectUnknownKeys();
  lb.RejectUnknownKeys();

  ReadFaultTolerance(client.Section("fault_tolerance"), &out->fault_tolerance);
  const YAML::Node methods = client.Raw("methods");
  if (methods.IsDefined() && !methods.IsNull()) {
    if (!methods.IsMap()) {
      client.Invalid("methods", "expected a mapping of method name to its settings");
    } else {
      ConfigReader by_method(methods, client.PathOf("methods"), client.errors());
      for (const auto& entry : methods) {
        const std::string method = entry.first.Scalar();
        ConfigReader settings = by_method.Section(method);
        FaultToleranceOptions options = out->fault_tolerance;
        ReadFaultTolerance(settings.Section("fault_tolerance"), &options);
        settings.RejectUnknownKeys();
        out->method_fault_tolerance[method] = options;
      }
    }
  }

  ConfigReader outlier = client.Section("outlier");
  outlier.Integer("consecutive_failures", 0, 1000, &out->outlier.consecutive_failures);
  outlier.Millis("base_ejection_ms", 1, kMaxMillis, &out->outlier.base_ejection);
  outlier.Millis("max_ejection_ms", 1, kMaxMillis, &out->outlier.max_ejection);
  outlier.Double("max_ejected_ratio", 0.0, 1.0, &out->outlier.max_ejected_ratio);
  outlier.RejectUnknownKeys();
}

}  // namespace ferry::config
