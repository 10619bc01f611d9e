#pragma once

#include <string_view>

#include "ferry/storage/sql_connection.h"

namespace ferry::like {

// The like tables in the dialect's DDL (statements separated by ';').
std::string_view LikeSchema(storage::SqlDialect dialect);

// "INSERT ... or add to the row's count" in the dialect: parameters content_id, bucket, delta.
std::string_view AddToCountSql(storage::SqlDialect dialect);

}  // namespace ferry::like
