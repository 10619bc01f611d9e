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

std::string BucketKeys::Request(const std::string& user_id, const std::string& request_id) const {
  // The tag is every key's prefix up to ':'; the user's length keeps "a:b" + "c" apart from
  // "a" + "b:c".
  return members.substr(0, members.size() - 2) + ":q:" + std::to_string(user_id.size()) + ":" +
         user_id + ":" + request_id;
}

}  // namespace ferry::like
