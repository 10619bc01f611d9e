#pragma once

#include <hiredis.h>

#include <cstdint>
#include <string_view>

#include "storage/reservation_cache.h"

// What the Redis reservation cache's two halves (the sale's keys, the order queue) read out of
// replies. Private to storage/.
namespace ferry::seckill::redis_cache {

bool ParseInt64(std::string_view text, int64_t* value);
// A stream entry [id, [field, value, ...]] written by the reserve script or Requeue. False when
// it is not even that (no id); otherwise *event has its id and, when it is not a readable
// event, `malformed` says why (with the user and request id when it names them).
bool ParseEvent(const redisReply* entry, ReservationEvent* event);
// Appends every entry, readable or not (`malformed` set).
void AppendEvents(const redisReply* entries, std::vector<ReservationEvent>* out);
// "A:<order_no>:<reserved_ms>:<user>" (the user may contain ':').
bool ParseAcceptedAnswer(std::string_view value, ReservationEvent* event);
// A recorded answer: "A:<order_no>:...", "S" or "J".
bool ParseRecordedAnswer(std::string_view value, ReserveResult* result);
// A stream entry id "<ms>-<seq>" as a comparable pair; {0, 0} when it does not parse.
std::pair<uint64_t, uint64_t> StreamIdOf(std::string_view id);

}  // namespace ferry::seckill::redis_cache
