#pragma once

#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"
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

// redis+mariadb: the Redis Stream `stream`, one XADD per event in one pipeline.
class RedisVisitLog final : public VisitLog {
 public:
  RedisVisitLog(storage::RedisConnectionPool* redis, std::string stream)
      : redis_(redis), stream_(std::move(stream)) {}
  Status Append(const std::vector<VisitEvent>& events) override;

 private:
  storage::RedisConnectionPool* redis_;
  const std::string stream_;
};

// The stream entry's fields, and back (false: malformed).
std::vector<std::string> StreamFields(const VisitEvent& event);
bool EventFromFields(const std::vector<std::pair<std::string, std::string>>& fields,
                     VisitEvent* event);

}  // namespace ferry::shortlink
