#include "ferry/codec/extension_registry.h"

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

void ExtensionRegistry::RegisterErased(std::string kind, std::string name, ErasedFactory factory) {
  std::lock_guard lock(mu_);
  auto key = std::make_pair(std::move(kind), std::move(name));
  if (factories_.contains(key)) {
    throw std::invalid_argument("extension '" + key.second + "' of kind '" + key.first +
                                "' is already registered");
  }
  factories_.emplace(std::move(key), std::move(factory));
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
