#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace ferry::storage {

// One connection's prepared statements by their SQL text: a statement run again is reset and
// rebound instead of parsed and planned again (the parse costs more than running a small
// INSERT). Past `capacity` the least recently used is finalized, so statements whose text
// varies (multi-row INSERTs of different sizes) cannot grow it without bound. One thread at a
// time, as its connection.
class SqliteStatementCache {
 public:
  explicit SqliteStatementCache(size_t capacity) : capacity_(capacity) {}
  ~SqliteStatementCache() {
    for (auto& [sql, stmt] : used_) sqlite3_finalize(stmt);
  }
  SqliteStatementCache(const SqliteStatementCache&) = delete;
  SqliteStatementCache& operator=(const SqliteStatementCache&) = delete;

  // The statement for `sql`, ready to bind: the cached one reset, or one prepared now (the
  // result code of sqlite3_prepare_v2 when that fails).
  int Prepare(sqlite3* db, std::string_view sql, sqlite3_stmt** out) {
    if (auto it = index_.find(sql); it != index_.end()) {
      used_.splice(used_.begin(), used_, it->second);
      *out = it->second->second;
      return SQLITE_OK;
    }
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) return rc;
    if (used_.size() >= capacity_) {
      index_.erase(used_.back().first);
      sqlite3_finalize(used_.back().second);
      used_.pop_back();
    }
    used_.emplace_front(std::string(sql), stmt);
    index_.emplace(used_.front().first, used_.begin());
    *out = stmt;
    return SQLITE_OK;
  }

 private:
  using Entries = std::list<std::pair<std::string, sqlite3_stmt*>>;  // most recent first
  const size_t capacity_;
  Entries used_;
  std::unordered_map<std::string_view, Entries::iterator> index_;  // views of used_'s strings
};

}  // namespace ferry::storage
