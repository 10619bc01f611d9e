#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/sql_connection_pool.h"
#include "storage/visit_event.h"

namespace ferry::shortlink {

struct DayCount {
  std::string day;
  int64_t pv = 0;
  int64_t uv = 0;
  int64_t bots = 0;
};

struct LinkStats {
  std::vector<DayCount> days;                              // by day, oldest first
  std::vector<std::pair<std::string, int64_t>> referrers;  // by PV, highest first
  // PV per device class and per browser family (VisitEvent::device, ::browser; bot visits
  // included, as device "bot"), over the days read: all of them, by PV, highest first.
  std::vector<std::pair<std::string, int64_t>> devices;
  std::vector<std::pair<std::string, int64_t>> browsers;
};

// The statistics tables on the link database (SQLite or MariaDB). Apply counts each event id
// once, whatever the number of deliveries: the id's row and the counters it moves commit in one
// transaction.
class StatsStore {
 public:
  explicit StatsStore(std::unique_ptr<storage::SqlConnectionPool> pool) : pool_(std::move(pool)) {}

  Status Initialize();

  // Counts the events not counted before; *counted is how many were new. `outbox_through`, when
  // positive, deletes the outbox rows up to that id in the same transaction.
  Status Apply(const std::vector<VisitEvent>& events, int64_t now_ms, int* counted,
               int64_t outbox_through = 0);

  // The embedded backend's durable queue of visits.
  Status AppendOutbox(const std::vector<VisitEvent>& events);
  // The oldest `limit` outbox rows; *last_id is the id of the last one.
  Status ReadOutbox(int limit, std::vector<VisitEvent>* events, int64_t* last_id);

  // The 302s counted for each of `codes` (PV and bot visits, every day); codes without any are
  // left out.
  Status TotalVisits(const std::vector<std::string>& codes, std::map<std::string, int64_t>* out);
  // Deletes every counter of `code` (DeleteLink); events of a deleted link still on their way
  // are dropped when counted.
  Status Erase(const std::string& code);
  // Forgets up to `limit` event ids counted before `before_ms`: the window in which a
  // redelivered or replayed event is known to be counted already. *forgotten: how many.
  Status ForgetEventsBefore(int64_t before_ms, int limit, int* forgotten);

  // Days in [from_day, to_day] ("YYYY-MM-DD").
  Status Read(const std::string& code, const std::string& from_day, const std::string& to_day,
              int referrer_limit, LinkStats* out);

 private:
  Status Fresh(storage::SqlConnection& db, const std::vector<VisitEvent>& events, int64_t now_ms,
               std::vector<const VisitEvent*>* fresh);
  Status CountBatch(storage::SqlConnection& db, const std::vector<VisitEvent>& events,
                    int64_t now_ms, int* counted);
  static Status DeletedCodes(storage::SqlConnection& db, const std::vector<VisitEvent>& events,
                             std::set<std::string>* deleted);

  std::unique_ptr<storage::SqlConnectionPool> pool_;
};

}  // namespace ferry::shortlink
