#pragma once

namespace ferry {
class ExtensionRegistry;
}

namespace ferry::accesslog {

// Client and server `accesslog`: one line per call, `{name: accesslog, file: <path>}` (stderr
// without `file`).
void RegisterAccessLogFilters(ExtensionRegistry& registry);

}  // namespace ferry::accesslog
