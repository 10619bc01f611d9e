#include "storage/redis_cache_replies.h"

#include <charconv>
#include <string>

#include "ferry/storage/redis_reply.h"

namespace ferry::seckill::redis_cache {

using storage::IsTextReply;
using storage::ReplyText;

bool ParseInt64(std::string_view text, int64_t* value) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

bool ParseEvent(const redisReply* entry, ReservationEvent* event) {
  if (entry == nullptr || entry->type != REDIS_REPLY_ARRAY || entry->elements != 2 ||
      !IsTextReply(entry->element[0])) {
    return false;
  }
  ReservationEvent parsed;
  parsed.event_id = std::string(ReplyText(entry->element[0]));
  const redisReply* fields = entry->element[1];
  if (fields == nullptr || fields->type != REDIS_REPLY_ARRAY || fields->elements % 2 != 0) {
    parsed.malformed = "the entry has no field list";
    *event = std::move(parsed);
    return true;
  }
  unsigned seen = 0;
  for (size_t i = 0; i < fields->elements; i += 2) {
    if (!IsTextReply(fields->element[i]) || !IsTextReply(fields->element[i + 1])) {
      parsed.malformed = "a field is not text";
      break;
    }
    const std::string_view name = ReplyText(fields->element[i]);
    const std::string_view value = ReplyText(fields->element[i + 1]);
    bool ok = true;
    if (name == "activity") {
      ok = ParseInt64(value, &parsed.activity_id);
      seen |= 1u;
    } else if (name == "sku") {
      ok = ParseInt64(value, &parsed.sku_id);
      seen |= 2u;
    } else if (name == "user") {
      parsed.user_id = std::string(value);
      seen |= 4u;
    } else if (name == "request") {
      parsed.request_id = std::string(value);
      seen |= 8u;
    } else if (name == "order_no") {
      ok = ParseInt64(value, &parsed.order_no);
      seen |= 16u;
    } else if (name == "reserved_ms") {
      ok = ParseInt64(value, &parsed.reserved_ms);
      seen |= 32u;
    } else if (name == "epoch") {  // absent from events re-queued by the reconciler
      ok = ParseInt64(value, &parsed.cache_epoch);
    } else if (name == "seq") {
      ok = ParseInt64(value, &parsed.cache_seq);
    }
    if (!ok && parsed.malformed.empty()) {
      parsed.malformed = "field " + std::string(name) + " is not an integer";
    }
  }
  if (parsed.malformed.empty() && seen != 63u) {
    parsed.malformed = "the entry lacks fields of an order event";
  }
  *event = std::move(parsed);
  return true;
}

void AppendEvents(const redisReply* entries, std::vector<ReservationEvent>* out) {
  for (size_t i = 0; i < entries->elements; ++i) {
    ReservationEvent event;
    if (ParseEvent(entries->element[i], &event)) out->push_back(std::move(event));
  }
}

bool ParseAcceptedAnswer(std::string_view value, ReservationEvent* event) {
  if (value.substr(0, 2) != "A:") return false;
  value.remove_prefix(2);
  const size_t order_end = value.find(':');
  if (order_end == std::string_view::npos) return false;
  const size_t time_end = value.find(':', order_end + 1);
  if (time_end == std::string_view::npos) return false;
  if (!ParseInt64(value.substr(0, order_end), &event->order_no) ||
      !ParseInt64(value.substr(order_end + 1, time_end - order_end - 1), &event->reserved_ms)) {
    return false;
  }
  event->user_id = std::string(value.substr(time_end + 1));
  return true;
}

bool ParseRecordedAnswer(std::string_view value, ReserveResult* result) {
  if (value == "S" || value == "J") {
    *result = ReserveResult{
        .answer = value == "S" ? ReserveAnswer::kSoldOut : ReserveAnswer::kAlreadyJoined,
        .replayed = true,
        .order_no = 0};
    return true;
  }
  ReservationEvent event;
  if (!ParseAcceptedAnswer(value, &event)) return false;
  *result = ReserveResult{
      .answer = ReserveAnswer::kAccepted, .replayed = true, .order_no = event.order_no};
  return true;
}

std::pair<uint64_t, uint64_t> StreamIdOf(std::string_view id) {
  const size_t dash = id.find('-');
  int64_t ms = 0;
  int64_t seq = 0;
  if (dash == std::string_view::npos || !ParseInt64(id.substr(0, dash), &ms) ||
      !ParseInt64(id.substr(dash + 1), &seq) || ms < 0 || seq < 0) {
    return {0, 0};
  }
  return {static_cast<uint64_t>(ms), static_cast<uint64_t>(seq)};
}

}  // namespace ferry::seckill::redis_cache
