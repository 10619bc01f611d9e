#pragma once

#include <string>
#include <string_view>

#include "ferry/storage/sql_connection.h"

namespace ferry::like {

// The like tables in the dialect's DDL (statements separated by ';'), ferry_lease included;
// it also brings tables an earlier version made up to date (SQLite's missing columns aside,
// which LikeDatabase::Initialize adds).
std::string LikeSchema(storage::SqlDialect dialect);

// "INSERT ... or add to the row's count" in the dialect, for `rows` count rows: parameters
// content_id, bucket, delta of each.
std::string AddToCountsSql(storage::SqlDialect dialect, size_t rows);

}  // namespace ferry::like
