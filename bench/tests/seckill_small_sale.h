#pragma once

#include <string>

#include "seckill_command.h"
#include "user_token_server_options.h"

namespace ferry::bench {

// A sale the seckill tests can run in a second: 5 units, 50 buyers, 10 of them twice, 2 x 8
// purchases out, every buyer with a user token.
inline SeckillBenchOptions SmallSale(const std::string& target) {
  SeckillBenchOptions options;
  options.load.target = target;
  options.user_token_key_id = "default";
  options.user_token_secret = kUserTokenSecret;
  options.load.conns = 2;
  options.load.depth = 8;
  options.stock = 5;
  options.buyers = 50;
  options.dup_ratio = 0.2;
  options.duration_limit_s = 30;
  options.settle_timeout_s = 10;
  return options;
}

}  // namespace ferry::bench
