#include "storage/domain_store.h"

namespace ferry::shortlink {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnectionPool;
using storage::SqlRow;

Status DomainStore::Add(int64_t tenant_id, const std::string& domain, int64_t now_ms,
                        DomainRecord* out) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  Status inserted = c->Check((*c)->Execute(
      "INSERT INTO shortlink_domains (domain, tenant_id, created_at_ms) VALUES (?, ?, ?)",
      {domain, tenant_id, now_ms}, nullptr));
  if (!inserted.ok() && inserted.code() != StatusCode::ALREADY_EXISTS) return inserted;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(
          (*c)->Query("SELECT tenant_id, created_at_ms FROM shortlink_domains WHERE domain = ?",
                      {domain}, &rows));
      !s.ok()) {
    return s;
  }
  if (rows.empty() || AsInt(rows[0][0]) != tenant_id) {
    return Status(StatusCode::ALREADY_EXISTS, "domain " + domain + " belongs to another tenant");
  }
  *out = DomainRecord{.domain = domain, .tenant_id = tenant_id, .created_at_ms = AsInt(rows[0][1])};
  return Status::Ok();
}

Status DomainStore::Remove(int64_t tenant_id, const std::string& domain) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = c->Check((*c)->Query("SELECT code FROM shortlink_links WHERE domain = ? AND "
                                      "deleted_at_ms IS NULL LIMIT 1",
                                      {domain}, &rows));
      !s.ok()) {
    return s;
  }
  if (!rows.empty()) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  "domain " + domain + " still has links; delete them first");
  }
  int64_t affected = 0;
  if (Status s =
          c->Check((*c)->Execute("DELETE FROM shortlink_domains WHERE domain = ? AND tenant_id = ?",
                                 {domain, tenant_id}, &affected));
      !s.ok()) {
    return s;
  }
  if (affected == 0)
    return Status(StatusCode::NOT_FOUND, "no domain " + domain + " of this tenant");
  return Status::Ok();
}

Status DomainStore::List(int64_t tenant_id, std::vector<DomainRecord>* out) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  Status s = tenant_id == 0 ? (*c)->Query(
                                  "SELECT domain, tenant_id, created_at_ms FROM shortlink_domains "
                                  "ORDER BY domain",
                                  {}, &rows)
                            : (*c)->Query(
                                  "SELECT domain, tenant_id, created_at_ms FROM shortlink_domains "
                                  "WHERE tenant_id = ? ORDER BY domain",
                                  {tenant_id}, &rows);
  if (!c->Check(s).ok()) return s;
  for (const SqlRow& row : rows) {
    out->push_back(DomainRecord{
        .domain = AsText(row[0]), .tenant_id = AsInt(row[1]), .created_at_ms = AsInt(row[2])});
  }
  return Status::Ok();
}

Status DomainStore::OwnerOf(const std::string& domain, int64_t* tenant_id) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(
          (*c)->Query("SELECT tenant_id FROM shortlink_domains WHERE domain = ?", {domain}, &rows));
      !s.ok()) {
    return s;
  }
  *tenant_id = rows.empty() ? 0 : AsInt(rows[0][0]);
  return Status::Ok();
}

}  // namespace ferry::shortlink
