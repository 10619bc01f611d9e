#pragma once

#include <cstdint>
#include <string>

namespace ferry::seckill {

// The Redis keys of one activity+sku. They all carry the hash tag `{<activity>:<sku>}`, so they
// live in one Cluster slot and one script may touch all of them; scripts receive every key in
// KEYS and never build one themselves.
//
//   seckill:{A:S}:stock     string   units left (an integer); never expires
//   seckill:{A:S}:loaded    string   the cache generation the keys hold: "<epoch>@<gen>",
//                                    "loading:<epoch>" or "stale:<epoch>" (redis_scripts.h)
//   seckill:{A:S}:generation hash    {id: the Redis server, gen}: storage::RedisGeneration's key,
//                                    given a new gen when the server's data may have gone back
//   seckill:{A:S}:buyers    set      users holding (or having held) a reservation
//   seckill:{A:S}:requests  hash     RequestField(user, request id) -> answer:
//                                    "A:<order_no>:<reserved_ms>:<user>", "S" (sold out) or
//                                    "J" (already joined)
//   seckill:{A:S}:accepted  string   count of "A:" answers; the last reservation's sequence number
//   seckill:{A:S}:released  set      release keys already given back to stock
//   seckill:{A:S}:buyers_next, :released_next  sets  staged by a reload, renamed into place
//   seckill:{A:S}:orders    stream   pending-order events, read through group "order-writers"
//   seckill:{A:S}:dead_letters  stream  order events given up on: reason, detail, event_id and
//                                    payload (the event's fields as a JSON array)
//   seckill:{A:S}:redrive_lease string  the provider re-driving the activity's reservations;
//                                    expires unless renewed
//   seckill:{A:S}:admitted  zset     user -> when their admission lapses (ms); the admission
//                                    line's (redis_admission_line.h), like the three below
//   seckill:{A:S}:waiting   zset     user -> ticket: the line, in arrival order
//   seckill:{A:S}:waiting_seen zset  user -> when they last asked (ms)
//   seckill:{A:S}:tickets   string   the last ticket handed out
struct RedisActivityKeys {
  static RedisActivityKeys For(int64_t activity_id, int64_t sku_id);

  std::string stock;
  std::string loaded;
  std::string buyers;
  std::string requests;
  std::string accepted;
  std::string released;
  std::string generation;
  std::string buyers_next;
  std::string released_next;
  std::string orders;
  std::string dead_letters;
  std::string redrive_lease;
  std::string admitted;
  std::string waiting;
  std::string waiting_seen;
  std::string tickets;
};

// The consumer group every order writer reads the orders stream through.
inline constexpr const char* kOrderWritersGroup = "order-writers";

}  // namespace ferry::seckill
