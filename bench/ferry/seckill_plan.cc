#include "seckill_plan.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace ferry::bench {

std::vector<Attempt> MakePlan(uint32_t buyers, double ratio, uint64_t seed, uint32_t* same,
                              uint32_t* again) {
  std::vector<Attempt> plan;
  plan.reserve(buyers + static_cast<size_t>(std::floor(buyers * ratio)) + 1);
  *same = 0;
  *again = 0;
  for (uint32_t i = 0; i < buyers; ++i) {
    plan.push_back({i, AttemptKind::kFirst});
    if (std::floor((i + 1.0) * ratio) > std::floor(i * ratio)) {
      const bool same_request = (*same + *again) % 2 == 0;
      plan.push_back({i, same_request ? AttemptKind::kSameRequest : AttemptKind::kNewRequest});
      ++(same_request ? *same : *again);
    }
  }
  std::mt19937_64 random(seed);
  std::shuffle(plan.begin(), plan.end(), random);
  return plan;
}

std::string UserId(int64_t activity_id, uint32_t buyer) {
  return "sk" + std::to_string(activity_id) + "-u" + std::to_string(buyer);
}

std::string RequestId(int64_t activity_id, uint32_t buyer, bool second_request) {
  return "sk" + std::to_string(activity_id) + "-r" + std::to_string(buyer) +
         (second_request ? "-again" : "");
}

}  // namespace ferry::bench
