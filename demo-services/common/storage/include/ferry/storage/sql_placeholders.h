#pragma once

#include <cstddef>
#include <string>

namespace ferry::storage {

// "(?, ?), (?, ?)": `rows` groups of `columns` placeholders, for a multi-row VALUES list (one
// statement, one round trip, for a whole batch) or, with one row, an IN list. Both adapters
// bind positionally; SQLite allows at most 32,766 parameters in one statement.
inline std::string SqlPlaceholders(size_t rows, size_t columns) {
  std::string row = "(";
  for (size_t c = 0; c < columns; ++c) row += c == 0 ? "?" : ", ?";
  row += ")";
  std::string out;
  out.reserve(rows * (row.size() + 2));
  for (size_t r = 0; r < rows; ++r) {
    if (r > 0) out += ", ";
    out += row;
  }
  return out;
}

}  // namespace ferry::storage
