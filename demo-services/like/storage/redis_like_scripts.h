#pragma once

#include <string_view>
#include <vector>

#include "ferry/storage/redis_script_set.h"

namespace ferry::like {

// The scripts' indices in LikeScripts().
enum LikeScript : size_t {
  // KEYS members, count, versions, events, ready; ARGV user, liked (0|1), content, bucket.
  // {changed (0|1), bucket count, version}, or {-1, 0, 0} when the bucket is not loaded.
  kSetLike = 0,
  // KEYS members, count, versions, ready; ARGV force (0|1), then user, liked, version per row.
  // Loads the database's rows (the version baseline included) unless the bucket is loaded and
  // force is 0. 1 when it loaded, 0 when it left the bucket alone.
  kLoadBucket = 1,
  // KEYS members, count, versions, ready; ARGV user, liked (0|1), version. Database-first: a
  // committed change, applied only if its version is newer than the bucket's. {applied (0|1),
  // changed (0|1)}, or {-1, 0} when the bucket is not loaded.
  kApplyChange = 2,
};

std::vector<storage::RedisScript> LikeScripts();

}  // namespace ferry::like
