#pragma once

#include <string_view>

#include "ferry/storage/sql_connection.h"

namespace ferry::shortlink {

// The statistics tables (README, "Statistics"), created if missing: counted event ids, daily
// counters, daily visitor sets, daily referrers, the embedded backend's outbox and the shared
// secret of visitor hashes.
std::string_view StatsSchemaSql(storage::SqlDialect dialect);

}  // namespace ferry::shortlink
