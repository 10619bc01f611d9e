#pragma once

#include <cstdint>
#include <string>

namespace ferry::like {

// One real change of one (content, user), as the record applies it. Its id is fixed by the
// pair and the version, so a repeated event is recognisably the same event.
struct LikeEvent {
  int64_t content_id = 0;
  std::string user_id;
  bool liked = false;
  int64_t version = 0;  // per pair, strictly increasing with each real change
  uint32_t bucket = 0;
  std::string stream;    // the Redis stream and entry that carried it (empty when none did)
  std::string entry_id;  // or the outbox row's id
  int64_t redrives = 0;  // how often it was re-driven from the dead letters

  std::string event_id() const {
    return std::to_string(content_id) + "/" + user_id + "/" + std::to_string(version);
  }
};

}  // namespace ferry::like
