#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ferry/storage/sql_connection.h"

namespace ferry::storage {

// A bounded set of connections shared by many threads. A connection that reported UNAVAILABLE
// through its lease's Check() is closed instead of returned, and a new one is opened on demand,
// so a database restart heals without restarting the process: the call that met the broken
// connection fails, the next one gets a fresh connection.
class SqlConnectionPool {
 public:
  using Factory = std::function<Status(std::unique_ptr<SqlConnection>*)>;

  // Returns a connection to the pool when destroyed, unless it was marked broken. The pool
  // must outlive its leases.
  class Lease {
   public:
    Lease(SqlConnectionPool* pool, std::unique_ptr<SqlConnection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&&) = default;
    ~Lease();
    SqlConnection* operator->() const { return connection_.get(); }
    SqlConnection& operator*() const { return *connection_; }
    // Passes `status` through, remembering whether it says the connection is unusable.
    const Status& Check(const Status& status) {
      if (status.code() == StatusCode::UNAVAILABLE) broken_ = true;
      return status;
    }

   private:
    SqlConnectionPool* pool_;
    std::unique_ptr<SqlConnection> connection_;
    bool broken_ = false;
  };

  SqlConnectionPool(Factory factory, size_t max_size,
                    std::chrono::milliseconds acquire_timeout = std::chrono::seconds(5));

  // A connection within the acquire timeout: an idle one, or a new one while fewer than
  // max_size exist. UNAVAILABLE when none can be had.
  Status Acquire(std::unique_ptr<Lease>* out);

  using Body = std::function<Status(SqlConnection&)>;
  // Runs `body` between Begin and Commit on a connection of the pool, rolling back on error,
  // and runs the whole transaction again (up to `attempts` times) when it ended ABORTED (a
  // deadlock or lock timeout: the database rolled it back) or ALREADY_EXISTS (a concurrent
  // writer won a unique key, which the next attempt sees), or when Begin met a connection
  // that broke while idle. Any other status is returned as it is.
  Status InTransaction(const Body& body, int attempts = 8);

 private:
  void Return(std::unique_ptr<SqlConnection> connection, bool broken);

  const Factory factory_;
  const size_t max_size_;
  const std::chrono::milliseconds acquire_timeout_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<SqlConnection>> idle_;
  size_t open_ = 0;  // idle + leased
};

}  // namespace ferry::storage
