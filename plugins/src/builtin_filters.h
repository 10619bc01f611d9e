#pragma once

namespace ferry {
class ExtensionRegistry;
}

namespace ferry::plugins {

// Client and server `auth`.
void RegisterAuthFilters(ExtensionRegistry& registry);
// Server `ratelimit`.
void RegisterRateLimitFilter(ExtensionRegistry& registry);
// Rate limit store `local`.
void RegisterLocalRateLimitStore(ExtensionRegistry& registry);
// User token revocations `memory`.
void RegisterMemoryRevocations(ExtensionRegistry& registry);
// Server `user_token`.
void RegisterUserTokenFilter(ExtensionRegistry& registry);
// Server `authz`.
void RegisterAuthzFilter(ExtensionRegistry& registry);

}  // namespace ferry::plugins
