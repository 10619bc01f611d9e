#include "storage/redis_like_keys.h"

namespace ferry::like {

BucketKeys BucketKeys::For(int64_t content_id, uint32_t bucket) {
  const std::string tag = "{c:" + std::to_string(content_id) + ":b" + std::to_string(bucket) + "}";
  return {.members = tag + ":m",
          .count = tag + ":n",
          .versions = tag + ":v",
          .events = tag + ":s",
          .ready = tag + ":r"};
}

}  // namespace ferry::like
