#pragma once

#include <cstdint>
#include <string>

namespace ferry::shortlink {

// One redirect as the statistics store it: no address, no user agent (only its device class
// and browser family), only what the counters need. `event_id` is unique per visit (provider
// prefix + sequence), so a redelivered or replayed event is recognised and counted once.
struct VisitEvent {
  std::string event_id;
  std::string code;
  int64_t at_ms = 0;
  std::string visitor;        // see VisitorHash
  std::string referrer_host;  // empty: none or unparsable
  bool bot = false;
  // DeviceClassName and BrowserFamilyName (service/user_agent_class.h) of the visit's user
  // agent; empty in events written by a version before them, counted as "other".
  std::string device;
  std::string browser;
};

// "YYYY-MM-DD" (UTC) of a Unix time in milliseconds: the day an event counts on.
std::string UtcDay(int64_t at_ms);

}  // namespace ferry::shortlink
