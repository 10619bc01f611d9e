#pragma once

#include <memory>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/admission_line.h"

namespace ferry::seckill {

// The admission line in Redis, shared by every provider of the activity: the keys admitted,
// waiting, waiting_seen and tickets of the activity's hash tag (redis_keys.h), each Ask one
// script (O(log n) in the line's length; it also drops at most 100 waiters who stopped asking).
// The keys expire once nobody asked for admission_ttl_ms / wait_ttl_ms. Losing them (a restart,
// a restore) only lets buyers in afresh: admissions given are tokens, and stock never depends
// on the line.
class RedisAdmissionLine final : public AdmissionLine {
 public:
  explicit RedisAdmissionLine(storage::RedisOptions options);

  Status Ask(const AdmissionAsk& ask, AdmissionTurn* turn) override;
  Status Leave(int64_t activity_id, int64_t sku_id, const std::string& user) override;

 private:
  storage::RedisConnectionPool pool_;
  storage::RedisScriptSet scripts_;
};

}  // namespace ferry::seckill
