#include "storage/sql_order_store.h"

// SqlOrderStore's blacklist: one row per listed user or address, read whole by each provider's
// copy (service/buyer_blacklist.h).
namespace ferry::seckill {

using storage::AsText;
using storage::SqlConnection;
using storage::SqlDialect;
using storage::SqlRow;

Status SqlOrderStore::ChangeBlacklist(const BlacklistChange& change) {
  for (const auto* list :
       {&change.add_users, &change.remove_users, &change.add_addresses, &change.remove_addresses}) {
    for (const std::string& entry : *list) {
      if (entry.empty() || entry.size() > 255) {
        return Status(StatusCode::INVALID_ARGUMENT,
                      "blacklist entries are 1 to 255 bytes, got " + std::to_string(entry.size()));
      }
    }
  }
  return InTransaction([&](SqlConnection& db) {
    const std::string insert =
        std::string(db.dialect() == SqlDialect::kMariaDb ? "INSERT IGNORE" : "INSERT OR IGNORE") +
        " INTO seckill_blacklist (kind, entry) VALUES (?, ?)";
    const std::string remove = "DELETE FROM seckill_blacklist WHERE kind = ? AND entry = ?";
    const struct {
      const std::vector<std::string>& entries;
      const char* kind;
      const std::string& statement;
    } steps[] = {{change.add_users, "u", insert},
                 {change.add_addresses, "a", insert},
                 {change.remove_users, "u", remove},
                 {change.remove_addresses, "a", remove}};
    for (const auto& step : steps) {
      for (const std::string& entry : step.entries) {
        if (Status s = db.Execute(step.statement, {std::string(step.kind), entry}); !s.ok()) {
          return s;
        }
      }
    }
    return Status::Ok();
  });
}

Status SqlOrderStore::ReadBlacklist(BlacklistEntries* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query("SELECT kind, entry FROM seckill_blacklist", {}, &rows);
    if (!s.ok()) return s;
    *out = BlacklistEntries{};
    for (const SqlRow& row : rows) {
      (AsText(row[0]) == "u" ? out->users : out->addresses).push_back(AsText(row[1]));
    }
    return Status::Ok();
  });
}

}  // namespace ferry::seckill
