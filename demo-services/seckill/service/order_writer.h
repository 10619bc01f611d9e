#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "service/seckill_core.h"

namespace ferry::seckill {

struct OrderWriterOptions {
  std::string consumer;  // this process's name in the consumer group; unique per process
  int batch = 128;
  // Events another consumer has held unacknowledged this long are taken over; it has died.
  int64_t claim_idle_ms = 5000;
  // How often the list of open activities (whose queues are read) is refreshed.
  int64_t refresh_ms = 1000;
  // An event still unwritten on its max_deliveries-th delivery (or unreadable) is given up:
  // dead-lettered and its reservation compensated (GiveUpEvent). Failures with UNAVAILABLE or
  // ABORTED (the database unreachable, or contention outlasting the store's retries: no
  // event's own fault) never give an event up.
  int64_t max_deliveries = 5;
  int64_t max_dead_letters = 100000;  // per activity; the oldest letters go first
  // After acknowledging, the acknowledged front of the queue is removed (TrimAcknowledged).
  bool trim_acknowledged = true;
};

// Drains the reservation queues into the order store (redis+mariadb backend). Per event: the
// database transaction (conditional decrement + order insert, idempotent by request id)
// commits first, and only then is the event acknowledged, so a crash in between redelivers it
// and the replay changes nothing. A reservation the database refuses because the user already
// holds an order gives its unit back to the cache (once, keyed by request id); one refused for
// lack of stock does not, since the cache must never hold more than the database.
class OrderWriter {
 public:
  OrderWriter(SeckillCore* core, OrderWriterOptions options)
      : core_(core), options_(std::move(options)) {}

  // One pass over every open activity's queue: stale events first, then new ones. Returns true
  // when it wrote anything (the caller runs it again at once).
  bool Step();

  // Writes one event; true when it can be acknowledged.
  bool Write(const ActivityRecord& activity, const ReservationEvent& event);

 private:
  bool Drain(const ActivityRecord& activity);
  Status WriteOrder(const ActivityRecord& activity, const ReservationEvent& event);
  // Gives the event up when it has had its deliveries; true when it was (or is done).
  bool GiveUpIfDue(const ActivityRecord& activity, const ReservationEvent& event,
                   const char* reason, const std::string& detail);

  SeckillCore* core_;
  const OrderWriterOptions options_;
  std::vector<ActivityRecord> open_;
  int64_t refreshed_ms_ = 0;
};

}  // namespace ferry::seckill
