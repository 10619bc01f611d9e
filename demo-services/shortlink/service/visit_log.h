#pragma once

#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/stats_store.h"
#include "storage/visit_event.h"

namespace ferry::shortlink {

// Where the recorder appends visit events for the statistics consumer to count.
class VisitLog {
 public:
  virtual ~VisitLog() = default;
  virtual Status Append(const std::vector<VisitEvent>& events) = 0;
};

// embedded: the outbox table, durable across restarts.
class OutboxVisitLog final : public VisitLog {
 public:
  explicit OutboxVisitLog(StatsStore* stats) : stats_(stats) {}
  Status Append(const std::vector<VisitEvent>& events) override {
    return stats_->AppendOutbox(events);
  }

 private:
  StatsStore* stats_;
};

// redis+mariadb: the Redis Stream `stream`, a batch appended by one script. The stream is
// bounded without trimming (which would drop visits not yet counted): a batch that finds
// `max_entries` or more waiting is refused whole (RESOURCE_EXHAUSTED), and the recorder keeps
// its visits queued and tries again; its queue full, new visits are dropped and counted.
class RedisVisitLog final : public VisitLog {
 public:
  RedisVisitLog(storage::RedisConnectionPool* redis, std::string stream, int64_t max_entries);
  Status Append(const std::vector<VisitEvent>& events) override;

 private:
  storage::RedisConnectionPool* redis_;
  storage::RedisScriptSet scripts_;
  const std::string stream_;
  const int64_t max_entries_;
};

// The stream entry's fields, and back (false: malformed).
std::vector<std::string> StreamFields(const VisitEvent& event);
bool EventFromFields(const std::vector<std::pair<std::string, std::string>>& fields,
                     VisitEvent* event);

}  // namespace ferry::shortlink
