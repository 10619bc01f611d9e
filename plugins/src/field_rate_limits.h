#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bucket_map.h"
#include "ferry/codec/status.h"
#include "ferry/framework/config_reader.h"
#include "ferry/framework/filter.h"
#include "shared_limiter.h"

namespace ferry::plugins {

// The ratelimit filter's `per_field` rules: token buckets keyed by the value of a request
// field, e.g. one bucket per user_id and one per activity_id of a purchase method, so that one
// buyer's script or one hot sale cannot take a whole server's capacity.
//
//   per_field:
//     "ferry.seckill.SeckillService/Purchase":
//       user_id: {rate: 5, burst: 5}
//       activity_id: {rate: 20000, burst: 2000}
//
// Fields are top-level scalars of the request (string, bytes, integer or enum); the field is
// looked up by name on the request's descriptor on first use, so a misspelt field fails calls
// of that method with FAILED_PRECONDITION naming it rather than passing them unlimited.
class FieldRateLimits {
 public:
  struct Rule {
    std::string field;
    RateLimit limit;
    std::unique_ptr<BucketMap> buckets;
  };
  using Rules = std::vector<Rule>;

  // Reads the `per_field` section; errors go to `config`. `max_keys` bounds each rule's buckets;
  // `has_store`: the rules are shared unless they say `shared: false`.
  void Configure(config::ConfigReader& config, size_t max_keys, bool has_store);
  bool empty() const { return rules_.empty(); }

  // The rules of a method, by "<service>/<method>"; nullptr when it has none. They live as long
  // as this object.
  Rules* For(std::string_view method_key);

  // OK, or RESOURCE_EXHAUSTED naming the method, field and value whose bucket is empty; the
  // shared rules are not taken but added to `shared`, for the store.
  static Status TryTake(Rules& rules, std::string_view method_key, const ServerCall& call,
                        RateClock::time_point now, std::vector<SharedLimiter::Check>* shared);

 private:
  std::map<std::string, Rules, std::less<>> rules_;  // by "<service>/<method>"
};

}  // namespace ferry::plugins
