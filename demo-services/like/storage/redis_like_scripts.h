#pragma once

#include <string_view>
#include <vector>

#include "ferry/storage/redis_script_set.h"

namespace ferry::like {

// The scripts' indices in LikeScripts().
enum LikeScript : size_t {
  // KEYS members, count, versions, events, ready; ARGV user, liked (0|1), content, bucket,
  // buckets. {changed (0|1), bucket count, version}, {-1, 0, 0} when the bucket is not loaded,
  // {-3, 0, 0} when it belongs to another layout (being raised, or raised) than `buckets`.
  kSetLike = 0,
  // KEYS members, count, versions, ready; ARGV force (0|1), buckets, then user, liked, version
  // per row. Loads the rows (the version baseline included) unless the bucket is loaded and
  // force is 0; the ready marker holds `buckets`. 1 when it loaded, 0 when it left it alone.
  kLoadBucket = 1,
  // KEYS members, count, versions, ready; ARGV user, liked (0|1), version. Database-first: a
  // committed change, applied only if its version is newer than the bucket's. {applied (0|1),
  // changed (0|1)}, or {-1, 0} when the bucket is not loaded.
  kApplyChange = 2,
  // KEYS ready; ARGV n, 2n. Marks bucket k of an n-bucket content as moving to 2n buckets
  // ("m:<2n>"). 1 when it is (now or already), 0 when the bucket is in another state.
  kFreeze = 3,
  // KEYS members, count, versions, ready; ARGV 2n, then the users moved to bucket k + n.
  kFinishSplit = 4,
};

std::vector<storage::RedisScript> LikeScripts();

}  // namespace ferry::like
