#pragma once

#include <string_view>

#include "ferry/storage/sql_connection.h"

namespace ferry::shortlink {

// The tables of the short-link service, created if missing. Codes compare case-sensitively
// (Base62) on both databases.
std::string_view LinkSchemaSql(storage::SqlDialect dialect);

// The cleanup's scan for expired links (parameters: now_ms, limit), which the expiry index
// `(purged, expires_at_ms)` serves; its plan is checked by the tests.
inline constexpr std::string_view kExpiredLinksSql =
    "SELECT code FROM shortlink_links WHERE purged = 0 AND expires_at_ms IS NOT NULL AND "
    "expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?";

}  // namespace ferry::shortlink
