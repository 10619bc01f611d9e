#pragma once

#include <string>
#include <string_view>

#include "ferry/storage/sql_connection.h"

namespace ferry::like {

// The like tables in the dialect's DDL (statements separated by ';').
std::string_view LikeSchema(storage::SqlDialect dialect);

// "INSERT ... or add to the row's count" in the dialect, for `rows` count rows: parameters
// content_id, bucket, delta of each.
std::string AddToCountsSql(storage::SqlDialect dialect, size_t rows);

}  // namespace ferry::like
