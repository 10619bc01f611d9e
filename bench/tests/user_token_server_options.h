#pragma once

// The seckill and like providers of the ferry-bench tests verify user tokens as the shipped
// configs make them, and ferry-bench signs them with this secret.

#include <string>

#include "ferry/framework/server_options.h"

namespace ferry::bench {

inline constexpr const char* kUserTokenSecret = "bench-user-secret";

inline ServerOptions VerifyingUserTokens() {
  ServerOptions options;
  options.filters = {FilterSpec::FromYaml(
      "user_token", std::string("{secret: ") + kUserTokenSecret +
                        ", exempt: [ferry.seckill.SeckillService/CreateActivity, "
                        "ferry.seckill.SeckillService/Preheat, "
                        "ferry.seckill.SeckillService/GetActivity, "
                        "ferry.seckill.SeckillService/Reconcile]}")};
  return options;
}

// The like provider's: counts, likers and Reconcile are public.
inline ServerOptions VerifyingLikeUserTokens() {
  ServerOptions options;
  options.filters = {FilterSpec::FromYaml(
      "user_token", std::string("{secret: ") + kUserTokenSecret +
                        ", exempt: [ferry.like.LikeService/GetCounts, "
                        "ferry.like.LikeService/ListLikers, ferry.like.LikeService/Reconcile]}")};
  options.worker_threads = 16;  // room for calls held past their timeout
  return options;
}

}  // namespace ferry::bench
