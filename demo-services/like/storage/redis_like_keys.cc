#include "storage/redis_like_keys.h"

namespace ferry::like {

namespace {

// splitmix64's finalizer: a content's buckets, consecutive numbers, land far apart.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string Tag(uint32_t partition) { return "{lk:" + std::to_string(partition) + "}"; }

}  // namespace

uint32_t PartitionOf(int64_t content_id, uint32_t bucket, uint32_t partitions) {
  return static_cast<uint32_t>(Mix(Mix(static_cast<uint64_t>(content_id)) ^ bucket) % partitions);
}

PartitionKeys PartitionKeys::For(uint32_t partition) {
  const std::string tag = Tag(partition);
  return {.stream = tag + ":s",
          .generation = tag + ":g",
          .owner = tag + ":o",
          .tombstones = tag + ":t"};
}

BucketKeys BucketKeys::For(int64_t content_id, uint32_t bucket, uint32_t partitions) {
  const uint32_t partition = PartitionOf(content_id, bucket, partitions);
  const std::string prefix =
      Tag(partition) + ":" + std::to_string(content_id) + ":" + std::to_string(bucket);
  return {.partition = partition,
          .members = prefix + ":m",
          .count = prefix + ":n",
          .versions = prefix + ":v",
          .ready = prefix + ":r"};
}

std::string BucketKeys::RequestWindow(int64_t window) const {
  return members.substr(0, members.size() - 1) + "q" + std::to_string(window);
}

std::string RequestField(const std::string& user_id, const std::string& request_id) {
  // The user's length keeps "a:b" + "c" apart from "a" + "b:c".
  return std::to_string(user_id.size()) + ":" + user_id + ":" + request_id;
}

std::string TombstoneMember(int64_t content_id, uint32_t bucket, const std::string& user_id) {
  return std::to_string(content_id) + ":" + std::to_string(bucket) + ":" + user_id;
}

}  // namespace ferry::like
