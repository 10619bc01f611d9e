#pragma once

#include <cstdint>
#include <string>

namespace ferry::like {

// Redis holds the likes in partitions: a fixed number (`partitions`, recorded in the database)
// of hash tags {lk:<p>}, each a hash slot of a Redis Cluster. A bucket of a content lives in
// the partition its (content, bucket) hashes to, with the partition's change stream, so that
// the script that changes a bucket appends its change in the same slot; a hot content's
// buckets spread over partitions, and so over nodes. Background work is per partition (one
// stream each, read by the partition's one owner), so it costs the same however many contents
// and buckets exist.
inline constexpr uint32_t kMaxPartitions = 1024;

// Stable across processes and builds.
uint32_t PartitionOf(int64_t content_id, uint32_t bucket, uint32_t partitions);

// The keys of one partition.
struct PartitionKeys {
  std::string stream;      // STREAM of every change of the partition's buckets, in order
  std::string generation;  // HASH {id, gen}: ferry::storage::RedisGeneration's key
  std::string owner;       // STRING: the event writer that holds the partition (PX lease)
  // ZSET "<content>:<bucket>:<user>" -> version: the unliked pairs the buckets still keep a
  // version for, so that old ones can be dropped once the database has them.
  std::string tombstones;

  static PartitionKeys For(uint32_t partition);
};

// The keys of one bucket of one content, in its partition's slot.
struct BucketKeys {
  uint32_t partition = 0;
  std::string members;  // SET of the users who like it
  std::string count;    // STRING, the set's size as the scripts keep it
  // HASH user -> version of the user's last change (an unliked user's is a tombstone, kept a
  // while), and field "" -> the floor: every version the bucket hands out is above it.
  std::string versions;
  // STRING "<layout>@<generation>": the bucket holds the database's state for the content laid
  // out in <layout> buckets ("m:<2n>" while it moves to 2n), loaded in that generation of its
  // partition. Missing, or of another generation: not loaded.
  std::string ready;

  static BucketKeys For(int64_t content_id, uint32_t bucket, uint32_t partitions);
  // HASH "<len>:<user>:<request id>" -> "<liked><changed>": the request ids seen in one window
  // of `ttl` milliseconds (window = unix ms / ttl); a request is looked up in its window and
  // the one before, so it is remembered for at least `ttl`.
  std::string RequestWindow(int64_t window) const;
  PartitionKeys partition_keys() const { return PartitionKeys::For(partition); }
};

// The field of a request id in a request window.
std::string RequestField(const std::string& user_id, const std::string& request_id);
// The member of a pair in its partition's tombstones.
std::string TombstoneMember(int64_t content_id, uint32_t bucket, const std::string& user_id);

}  // namespace ferry::like
