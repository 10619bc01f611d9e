#include "ferry/storage/sql_connection_pool.h"

namespace ferry::storage {

SqlConnectionPool::Lease::~Lease() {
  if (connection_) pool_->Return(std::move(connection_), broken_);
}

SqlConnectionPool::SqlConnectionPool(Factory factory, size_t max_size,
                                     std::chrono::milliseconds acquire_timeout)
    : factory_(std::move(factory)),
      max_size_(max_size == 0 ? 1 : max_size),
      acquire_timeout_(acquire_timeout) {}

Status SqlConnectionPool::Acquire(std::unique_ptr<Lease>* out) {
  std::unique_lock lock(mutex_);
  const bool ready = returned_.wait_for(lock, acquire_timeout_,
                                        [&] { return !idle_.empty() || open_ < max_size_; });
  if (!ready) return Status(StatusCode::UNAVAILABLE, "no database connection free within timeout");
  if (!idle_.empty()) {
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    *out = std::make_unique<Lease>(this, std::move(connection));
    return Status::Ok();
  }
  ++open_;
  lock.unlock();
  // Connecting can take a while; other callers keep using idle connections meanwhile.
  std::unique_ptr<SqlConnection> connection;
  Status s = factory_(&connection);
  if (!s.ok()) {
    std::lock_guard relock(mutex_);
    --open_;
    returned_.notify_one();
    return s;
  }
  *out = std::make_unique<Lease>(this, std::move(connection));
  return Status::Ok();
}

void SqlConnectionPool::Return(std::unique_ptr<SqlConnection> connection, bool broken) {
  std::lock_guard lock(mutex_);
  if (broken) {
    --open_;
  } else {
    idle_.push_back(std::move(connection));
  }
  returned_.notify_one();
}

Status SqlConnectionPool::InTransaction(const Body& body, int attempts) {
  Status s;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::unique_ptr<Lease> lease;
    if (s = Acquire(&lease); !s.ok()) return s;
    SqlConnection& db = **lease;
    if (s = lease->Check(db.Begin()); !s.ok()) {
      // A connection that broke while idle: the next attempt opens a fresh one.
      if (s.code() == StatusCode::UNAVAILABLE || s.code() == StatusCode::ABORTED) continue;
      return s;
    }
    s = lease->Check(body(db));
    if (s.ok()) s = lease->Check(db.Commit());
    if (s.ok()) return s;
    db.Rollback();
    if (s.code() != StatusCode::ABORTED && s.code() != StatusCode::ALREADY_EXISTS) return s;
  }
  return s;
}

}  // namespace ferry::storage
