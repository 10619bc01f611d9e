#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ferry/storage/redis_connection_pool.h"
#include "service/stats_consumer.h"

namespace ferry::shortlink {

struct StreamConsumerOptions {
  std::string stream = "shortlink:visits";
  std::string group = "shortlink-stats";
  std::string consumer;  // unique per process
  int batch = 500;
  int64_t claim_idle_ms = 30'000;  // a pending entry idle this long belonged to a dead consumer
  // Delivered more often than this (its consumers kept dying), or refused by the database on
  // its own on the max_deliveries-th delivery: moved to `<stream>:dead`, not counted.
  int64_t max_deliveries = 5;
};

// redis+mariadb: one member of a consumer group on the visit stream. Each step first takes over
// (XAUTOCLAIM) entries another consumer read and left unacknowledged for claim_idle_ms (it
// died, or its database commit failed), dead-lettering those delivered too often, then reads
// new entries (XREADGROUP). Entries are acknowledged and deleted only after the database
// committed their counts; event ids recorded in that commit make a redelivery count once.
// A batch the database refuses is split until the events it refuses are alone: the others are
// counted, the refused ones wait for their next delivery. A batch that failed because the
// database was unavailable gets its delivery counts back (XCLAIM RETRYCOUNT): an outage never
// brings an event closer to the dead letters. A group missing (Redis restarted empty) is made
// again.
class RedisStatsConsumer final : public StatsConsumer {
 public:
  RedisStatsConsumer(storage::RedisConnectionPool* redis, StatsStore* stats,
                     StreamConsumerOptions options, std::function<int64_t()> now_ms)
      : redis_(redis), stats_(stats), options_(std::move(options)), now_ms_(std::move(now_ms)) {}

  Status Step(bool* more) override;

 private:
  struct Entry {
    std::string id;
    std::vector<std::pair<std::string, std::string>> fields;
    int64_t deliveries = 1;  // this one included
  };
  Status EnsureGroup();
  Status Claim(std::vector<Entry>* entries);
  Status ReadNew(std::vector<Entry>* entries, bool* no_group);
  Status DropOverDelivered(std::vector<Entry>* entries);
  Status CountAndAck(const std::vector<Entry>& entries);
  Status CountIsolating(const std::vector<VisitEvent>& events, size_t begin, size_t end,
                        int* counted, std::vector<std::pair<size_t, Status>>* refused);
  Status ForgetDeliveries(const std::vector<Entry>& entries);
  std::vector<std::string> DeadLetter(const Entry& entry, const std::string& reason);

  storage::RedisConnectionPool* redis_;
  StatsStore* stats_;
  const StreamConsumerOptions options_;
  const std::function<int64_t()> now_ms_;
  bool group_ready_ = false;
};

}  // namespace ferry::shortlink
