#include "storage/redis_keys.h"

namespace ferry::seckill {

RedisActivityKeys RedisActivityKeys::For(int64_t activity_id, int64_t sku_id) {
  const std::string prefix =
      "seckill:{" + std::to_string(activity_id) + ":" + std::to_string(sku_id) + "}:";
  return RedisActivityKeys{
      .stock = prefix + "stock",
      .loaded = prefix + "loaded",
      .buyers = prefix + "buyers",
      .requests = prefix + "requests",
      .accepted = prefix + "accepted",
      .released = prefix + "released",
      .generation = prefix + "generation",
      .buyers_next = prefix + "buyers_next",
      .released_next = prefix + "released_next",
      .orders = prefix + "orders",
      .dead_letters = prefix + "dead_letters",
      .redrive_lease = prefix + "redrive_lease",
      .admitted = prefix + "admitted",
      .waiting = prefix + "waiting",
      .waiting_seen = prefix + "waiting_seen",
      .tickets = prefix + "tickets",
  };
}

}  // namespace ferry::seckill
