#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::like {

// What SetLike did to one (content, user).
struct SetLikeResult {
  bool changed = false;      // false: the state already was the one asked for; nothing moved
  int64_t version = 0;       // the pair's version after the call (0: never changed)
  uint32_t layout = 0;       // the content's bucket count the call was made in
  uint32_t bucket = 0;       // the user's bucket of the content in that layout
  int64_t bucket_count = 0;  // that bucket's count after the call
  // The request id was seen before: `changed` is that call's answer and nothing moved now.
  bool replayed = false;
};

// A content's count: per bucket of its layout, or (layout 0) only the total, in buckets[0].
struct ContentCounts {
  uint32_t layout = 0;
  std::vector<int64_t> buckets;

  int64_t total() const {
    int64_t sum = 0;
    for (int64_t n : buckets) sum += n;
    return sum;
  }
};

// The live state of likes: who likes what, and per-bucket counts that move only when a state
// really changes. Implemented over SQL (embedded and database-first: the database is the
// state) and over Redis (redis-first: Redis is the state, a stream carries each change to the
// database).
class LikeStore {
 public:
  virtual ~LikeStore() = default;

  // Sets (content, user) to `liked`. A real change gets a new version, greater than every
  // earlier version of the pair, and moves its bucket's count by one; a repeat changes nothing.
  // A non-empty `request_id` is remembered with the pair for the store's request window: the
  // same id again answers the first call's `changed` and moves nothing, even after later
  // changes of the pair (a retry that arrives late cannot undo them); with the other `liked`
  // it is INVALID_ARGUMENT.
  virtual Status SetLike(int64_t content_id, const std::string& user_id, bool liked,
                         const std::string& request_id, SetLikeResult* out) = 0;
  // The counts of many contents at once, one per id, in order. Reading a content nobody liked
  // leaves nothing behind.
  virtual Status Counts(std::span<const int64_t> content_ids, std::vector<ContentCounts>* out) = 0;
  // Whether the user likes each content, from the state itself (no cache).
  virtual Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                          std::vector<bool>* out) = 0;
  // Raises the content's bucket count to `buckets` (twice the current count) while writers
  // run, for every provider.
  virtual Status RaiseBuckets(int64_t content_id, uint32_t buckets) = 0;
};

// The refusal of a request id reused with the other state (`liked` is the new call's).
Status RequestIdReused(const std::string& request_id, bool liked);

}  // namespace ferry::like
