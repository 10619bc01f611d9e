#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/storage/sql_connection_pool.h"

namespace ferry::storage {

// A named lease in the database (table ferry_lease), so that of several processes sharing a
// database one at a time runs a job (a periodic reconciler, a repair of one item): whoever
// holds it renews it before it expires; a holder that died loses it after `ttl`. It carries a
// small state the job saves as it goes (a cursor), handed to the next holder. Expiry is judged
// by the wall clocks of the processes, so `ttl` must be well above their skew.
class SqlLease {
 public:
  // The table, for a service's schema script (CREATE TABLE IF NOT EXISTS).
  static std::string_view Schema(SqlDialect dialect);

  using Clock = std::function<int64_t()>;  // milliseconds since the Unix epoch
  static int64_t WallMs();

  // `pool` must outlive the lease and hold the table.
  SqlLease(SqlConnectionPool* pool, std::string name, std::string owner,
           std::chrono::milliseconds ttl, Clock clock = WallMs);

  // Takes the lease if it is free or expired, renews it if this owner holds it: *held tells
  // whether this owner holds it for `ttl` from now; *state (if given) gets its saved state.
  Status Acquire(bool* held, std::string* state = nullptr);
  // Saves `state` with the lease; FAILED_PRECONDITION when this owner no longer holds it.
  Status Save(const std::string& state);
  // Gives the lease up (if held), so that another process need not wait for it to expire.
  Status Release();

  const std::string& name() const { return name_; }
  const std::string& owner() const { return owner_; }

 private:
  SqlConnectionPool* const pool_;
  const std::string name_;
  const std::string owner_;
  const std::chrono::milliseconds ttl_;
  const Clock clock_;
};

}  // namespace ferry::storage
