#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"

namespace ferry::storage {

// Which server a Redis connection reached: its run id, new on every start, and its replication
// id, new when a replica is promoted in place. Data restored from an older copy, or a replica
// that had not received the last writes, always comes with a server identity not seen before.
struct RedisServerIdentity {
  std::string run_id;
  std::string replication_id;

  std::string ToString() const { return run_id + "/" + replication_id; }
  bool operator==(const RedisServerIdentity&) const = default;
};

// Reads the identity from `INFO server replication` (through a connection check's pipeline, or
// any other).
Status ReadRedisServerIdentity(const RedisConnectionPool::DirectPipeline& run,
                               RedisServerIdentity* out);

// Tells a Redis server's data apart from an earlier state of the same data. Each generation key
// (a hash: the identity it was made for and a random generation number) is checked on every
// connection the pool opens, before anything else is sent, and again by Check(): when the key's
// identity is not the server's, the data may have gone back in time (a restart from an older
// append-only file or dump, a failover to a lagging replica, a flush), so the key gets a new
// generation, made atomically on the server so that every process checking the same server
// adopts the same one. A service stamps what it loads into Redis with the generation of its
// slot's key (its scripts read the key next to the data, in one hash slot) and treats anything
// stamped with another generation as not loaded: it is rebuilt or reconciled from the database
// before it is served. Keys are per hash slot the service's scripts use (e.g. one per partition),
// so that a script never reads a key of another slot.
//
// A generation change is not a loss in itself (a clean restart loses nothing); it makes the
// service check, and costs a reload of what is used next.
class RedisGeneration {
 public:
  // `keys`: the generation keys, each a hash the service's scripts read (`HGET <key> gen`).
  explicit RedisGeneration(std::vector<std::string> keys);

  // Adds a key checked from now on, for a service whose slots come and go (one per sale, say);
  // false when it was there already. The caller runs Check() before its first script reads the
  // key, so that the key is made for this server first.
  bool AddKey(const std::string& key);
  void RemoveKey(const std::string& key);

  // Makes `pool` check every connection it opens (RedisConnectionPool::SetConnectionCheck),
  // before its first call.
  void Watch(RedisConnectionPool* pool);
  // The same check through an open connection of `pool`: for a server promoted in place (its
  // connections stay open) and after a script found a generation key missing (a flush).
  Status Check(RedisConnectionPool& pool);

  // Called after a check (not the process's first) met a server identity other than the last
  // one, or gave a key a new generation (its keys were lost), with the identity and the
  // generation of the first key. On the checking thread, before the connection is used:
  // it must not call the pool.
  using ChangeListener =
      std::function<void(const RedisServerIdentity& identity, int64_t generation)>;
  void OnChange(ChangeListener listener) { listener_ = std::move(listener); }

  // Checks (after the first) that found another server identity or gave a key a new generation.
  uint64_t changes() const { return changes_.load(); }
  std::vector<std::string> keys() const;
  // The server the last check met (empty before the first).
  RedisServerIdentity identity() const;
  // The first key's generation as of the last check (0 before the first): for a service that
  // names its keys by generation rather than stamping values with it.
  int64_t generation() const { return generation_.load(); }

 private:
  Status CheckOn(const RedisConnectionPool::DirectPipeline& run);

  ChangeListener listener_;
  mutable std::mutex mu_;
  std::vector<std::string> keys_;  // guarded by mu_
  RedisServerIdentity last_;       // guarded by mu_
  std::atomic<uint64_t> changes_{0};
  std::atomic<int64_t> generation_{0};
};

}  // namespace ferry::storage
