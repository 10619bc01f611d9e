#include "builtin_filters.h"

#include "ferry/codec/extension_registry.h"

namespace ferry::plugins {
namespace {

// The filters every program linking ferry::filters gets, by name, as if from a plugin.
void RegisterBuiltinFilters(ExtensionRegistry& registry) {
  RegisterAuthFilters(registry);
  RegisterRateLimitFilter(registry);
  RegisterUserTokenFilter(registry);
  RegisterAuthzFilter(registry);
  RegisterLocalRateLimitStore(registry);
  RegisterMemoryRevocations(registry);
}

}  // namespace

FERRY_REGISTER_BUILTIN_EXTENSIONS(RegisterBuiltinFilters)

}  // namespace ferry::plugins
