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
};

// The SET of every bucket stream (for the event writers to read); outside any bucket's slot,
// so it is written before a bucket is first used, never from a script.
inline constexpr char kStreamRegistry[] = "like:streams";
// The consumer group of the event writers on every bucket stream.
inline constexpr char kWritersGroup[] = "like-writers";

}  // namespace ferry::like
