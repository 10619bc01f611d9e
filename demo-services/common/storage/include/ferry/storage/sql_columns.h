#pragma once

#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/storage/sql_connection.h"

namespace ferry::storage {

// Adds `column_ddl` ("name TYPE ...") to `table` when a table made by an earlier version of a
// schema lacks it: MariaDB's ADD COLUMN IF NOT EXISTS; on SQLite, which has no such clause,
// after reading pragma_table_info. A table that does not exist yet is left alone (its CREATE
// TABLE has every column).
Status AddColumnIfMissing(SqlConnection& c, std::string_view table, std::string_view column_ddl);

}  // namespace ferry::storage
