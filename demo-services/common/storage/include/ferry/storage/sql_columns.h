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

// Widens a VARCHAR `column` of `table` that an earlier version of a schema made narrower than
// `length` characters: on MariaDB, after reading information_schema.COLUMNS, `ALTER TABLE table
// MODIFY column_ddl` ("name VARCHAR(length) ..." with the column's full definition, since MODIFY
// replaces it). A no-op on SQLite (TEXT has no width), for a column already as wide or wider, and
// for a table or column that does not exist yet (its CREATE TABLE has the width).
Status WidenVarcharColumn(SqlConnection& c, std::string_view table, std::string_view column,
                          int length, std::string_view column_ddl);

}  // namespace ferry::storage
