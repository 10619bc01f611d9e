#include "ferry/codec/extension_registry.h"

#include <string>
#include <utility>

#include "builtin_extensions.h"

namespace ferry {

ExtensionRegistry& ExtensionRegistry::Instance() {
  static ExtensionRegistry* registry = [] {
    auto* r = new ExtensionRegistry();  // never destroyed: plugins may outlive static teardown
    codec::RegisterCodecExtensions(*r);
    return r;
  }();
  return *registry;
}

namespace {

std::string AlreadyRegistered(const std::pair<std::string, std::string>& key) {
  return "extension '" + key.second + "' of kind '" + key.first + "' is already registered";
}

std::string WireIdTaken(const std::string& kind, const std::string& name, int wire_id,
                        const std::string& owner) {
  return kind + " '" + name + "' has wire id " + std::to_string(wire_id) + ", already that of '" +
         owner + "'";
}

}  // namespace

void ExtensionRegistry::RegisterErased(std::string kind, std::string name, int wire_id,
                                       ErasedFactory factory) {
  std::lock_guard lock(mu_);
  auto key = std::make_pair(std::move(kind), std::move(name));
  if (factories_.contains(key)) Refuse(AlreadyRegistered(key));
  if (wire_id != kNoWireId) {
    // Disjoint ranges: a plugin can never take an id a later Ferry gives a built-in.
    const bool plugin = origin_ == Origin::kPlugin;
    if ((wire_id >= kFirstPluginWireId) != plugin) {
      Refuse(key.first + " '" + key.second + "' has wire id " + std::to_string(wire_id) +
             (plugin ? ", but a plugin's must be 128-255 (0-127 are Ferry's built-ins')"
                     : ", but a built-in's must be 0-127 (128-255 are for plugins)"));
    }
    auto id_key = std::make_pair(key.first, wire_id);
    if (const auto it = wire_ids_.find(id_key); it != wire_ids_.end()) {
      Refuse(WireIdTaken(key.first, key.second, wire_id, it->second));
    }
    wire_ids_.emplace(std::move(id_key), key.second);
  }
  factories_.emplace(std::move(key), std::move(factory));
}

void ExtensionRegistry::Refuse(std::string message) {
  if (first_refusal_.empty()) first_refusal_ = message;
  throw std::invalid_argument(message);
}

void ExtensionRegistry::Adopt(ExtensionRegistry& staged) {
  if (&staged == this) return;
  std::scoped_lock lock(mu_, staged.mu_);
  for (const auto& [key, factory] : staged.factories_) {
    if (factories_.contains(key)) throw std::invalid_argument(AlreadyRegistered(key));
  }
  for (const auto& [key, name] : staged.wire_ids_) {
    if (const auto it = wire_ids_.find(key); it != wire_ids_.end()) {
      throw std::invalid_argument(WireIdTaken(key.first, name, key.second, it->second));
    }
  }
  factories_.merge(staged.factories_);
  wire_ids_.merge(staged.wire_ids_);
}

std::string ExtensionRegistry::first_refusal() const {
  std::lock_guard lock(mu_);
  return first_refusal_;
}

std::shared_ptr<void> ExtensionRegistry::CreateErased(std::string_view kind,
                                                      std::string_view name) const {
  ErasedFactory factory;
  {
    std::lock_guard lock(mu_);
    auto it = factories_.find(std::make_pair(std::string(kind), std::string(name)));
    if (it == factories_.end()) return nullptr;
    factory = it->second;
  }
  return factory();
}

std::vector<std::string> ExtensionRegistry::NamesErased(std::string_view kind) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> names;
  for (const auto& [key, factory] : factories_) {
    if (key.first == kind) names.push_back(key.second);
  }
  return names;
}

}  // namespace ferry
