#include "ferry/storage/sql_columns.h"

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace ferry::storage {

Status AddColumnIfMissing(SqlConnection& c, std::string_view table, std::string_view column_ddl) {
  const std::string alter = "ALTER TABLE " + std::string(table) + " ADD COLUMN ";
  if (c.dialect() == SqlDialect::kMariaDb) {
    return c.ExecuteScript(alter + "IF NOT EXISTS " + std::string(column_ddl));
  }
  std::vector<SqlRow> columns;
  if (Status s =
          c.Query("SELECT name FROM pragma_table_info('" + std::string(table) + "')", {}, &columns);
      !s.ok()) {
    return s;
  }
  if (columns.empty()) return Status::Ok();
  const std::string_view name = column_ddl.substr(0, column_ddl.find(' '));
  for (const SqlRow& row : columns) {
    if (AsText(row[0]) == name) return Status::Ok();
  }
  return c.ExecuteScript(alter + std::string(column_ddl));
}

Status WidenVarcharColumn(SqlConnection& c, std::string_view table, std::string_view column,
                          int length, std::string_view column_ddl) {
  if (c.dialect() != SqlDialect::kMariaDb) return Status::Ok();
  std::vector<SqlRow> rows;
  if (Status s = c.Query(
          "SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
          "DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?",
          {std::string(table), std::string(column)}, &rows);
      !s.ok()) {
    return s;
  }
  if (rows.empty() || std::holds_alternative<std::nullptr_t>(rows[0][0]) ||
      AsInt(rows[0][0]) >= length) {
    return Status::Ok();
  }
  return c.ExecuteScript("ALTER TABLE " + std::string(table) + " MODIFY " +
                         std::string(column_ddl));
}

}  // namespace ferry::storage
