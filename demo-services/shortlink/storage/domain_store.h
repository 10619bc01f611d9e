#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/sql_connection_pool.h"

namespace ferry::shortlink {

struct DomainRecord {
  std::string domain;  // punycode, lower case
  int64_t tenant_id = 0;
  int64_t created_at_ms = 0;
};

// The tenants' custom domains (`shortlink_domains`, on the link database): a domain belongs to
// one tenant.
class DomainStore {
 public:
  explicit DomainStore(storage::SqlConnectionPool* pool) : pool_(pool) {}

  // The tenant's domain, added now or before; ALREADY_EXISTS when another tenant has it.
  Status Add(int64_t tenant_id, const std::string& domain, int64_t now_ms, DomainRecord* out);
  // NOT_FOUND unless the tenant has it; FAILED_PRECONDITION while a link not deleted is on it.
  Status Remove(int64_t tenant_id, const std::string& domain);
  // The tenant's domains by name, or (tenant 0) every tenant's.
  Status List(int64_t tenant_id, std::vector<DomainRecord>* out);
  // The tenant owning `domain`, or 0.
  Status OwnerOf(const std::string& domain, int64_t* tenant_id);

 private:
  storage::SqlConnectionPool* const pool_;
};

}  // namespace ferry::shortlink
