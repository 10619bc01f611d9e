#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace ferry::storage {

// A bound parameter or a column value: NULL, an integer or a string of bytes. Both adapters
// pass the bytes through unchanged (NUL and non-UTF-8 bytes included), so a string may carry
// text or binary data; a binary one belongs in a BLOB / VARBINARY column.
using SqlValue = std::variant<std::nullptr_t, int64_t, std::string>;
using SqlRow = std::vector<SqlValue>;

// Column readers for either adapter: MariaDB's text protocol returns every value as a string,
// SQLite returns integer columns as integers.
inline int64_t AsInt(const SqlValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* s = std::get_if<std::string>(&v)) return std::stoll(*s);
  return 0;
}
inline std::string AsText(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return {};
}

}  // namespace ferry::storage
