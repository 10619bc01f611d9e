#pragma once

#include <cstdint>
#include <string>

namespace ferry::like {

// The keys of one bucket of one content. They share the hash tag {c:<content>:b<bucket>}, so a
// Redis Cluster keeps them in one slot and one script can change them together.
struct BucketKeys {
  std::string members;   // SET of the users who like it
  std::string count;     // STRING, the set's size as the scripts keep it
  std::string versions;  // HASH user -> version of the user's last change (liked or not)
  std::string events;    // STREAM of changes, each deleted once persisted
  std::string ready;     // STRING: present once the bucket holds the database's baseline

  static BucketKeys For(int64_t content_id, uint32_t bucket);
  // STRING, expiring: a request id of the user seen in this bucket, and its answer.
  std::string Request(const std::string& user_id, const std::string& request_id) const;
};

// The SET of every bucket stream (for the event writers to read); outside any bucket's slot,
// so it is written before a bucket is first used, never from a script.
inline constexpr char kStreamRegistry[] = "like:streams";
// The consumer group of the event writers on every bucket stream.
inline constexpr char kWritersGroup[] = "like-writers";

}  // namespace ferry::like
