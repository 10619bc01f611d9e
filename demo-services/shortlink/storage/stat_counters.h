#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/sql_connection.h"

namespace ferry::shortlink {

// What one batch of new events adds to a link's day.
struct DayIncrement {
  int64_t pv = 0;
  int64_t bots = 0;
  std::vector<uint64_t> visitors;  // of the counted (non-bot) visits, repeats allowed
};
using DayKey = std::pair<std::string, std::string>;                     // (code, "YYYY-MM-DD")
using ReferrerKey = std::tuple<std::string, std::string, std::string>;  // (code, day, host)
// (code, day, device class, browser family)
using AgentKey = std::tuple<std::string, std::string, std::string, std::string>;

// Adds a batch to shortlink_stat_days in a few multi-row statements whatever its size: the
// rows are made if missing, read and locked together (their visitor sketches), and written
// back in one upsert; keys in order, so that consumers of other batches lock rows in the same
// order. Within the caller's transaction.
Status AddDayCounts(storage::SqlConnection& db, const std::map<DayKey, DayIncrement>& days);
// Adds referrer PVs to shortlink_stat_referrers in one upsert per chunk.
Status AddReferrerCounts(storage::SqlConnection& db,
                         const std::map<ReferrerKey, int64_t>& referrers);
// Adds device-and-browser PVs to shortlink_stat_agents in one upsert per chunk.
Status AddAgentCounts(storage::SqlConnection& db, const std::map<AgentKey, int64_t>& agents);

}  // namespace ferry::shortlink
