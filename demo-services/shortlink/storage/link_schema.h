#pragma once

#include <string_view>

#include "ferry/storage/sql_connection.h"

namespace ferry::shortlink {

// The tables of the short-link service, created if missing. Codes compare case-sensitively
// (Base62) on both databases.
std::string_view LinkSchemaSql(storage::SqlDialect dialect);

// Columns (and their indexes) later versions added, for tables an earlier one made.
Status AddLinkColumns(storage::SqlConnection& c);

}  // namespace ferry::shortlink
