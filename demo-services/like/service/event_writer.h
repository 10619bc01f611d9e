#pragma once

#include <cstdint>
#include <string>

#include "storage/like_database.h"
#include "storage/redis_event_stream.h"

namespace ferry::like {

struct EventWriterOptions {
  std::string consumer;  // unique per writer and process
  int batch = 256;
  int64_t claim_idle_ms = 5000;  // entries pending this long are reclaimed
  int64_t max_deliveries = 5;    // an entry handed out this often is dead-lettered instead
};

// One consumer of the bucket streams: applies each event to the database (only if newer,
// counts only on a real change) and acknowledges it after the commit, so a crash between the
// two redelivers an event that the version then recognises.
class EventWriter {
 public:
  EventWriter(RedisEventStream* stream, LikeDatabase* database, EventWriterOptions options)
      : stream_(stream), database_(database), options_(std::move(options)) {}

  // One read (and, every claim_idle_ms / 2, one reclaim). True when it got a full batch.
  bool Step();
  // Reads and applies until nothing new is left (tests; a draining provider).
  Status Drain();

 private:
  // Applies the events, acknowledging those committed (or dead-lettered).
  Status ApplyAndAck(const std::vector<LikeEvent>& events, bool claimed);
  Status Reclaim();

  RedisEventStream* const stream_;
  LikeDatabase* const database_;
  const EventWriterOptions options_;
  int64_t next_claim_ms_ = 0;
};

}  // namespace ferry::like
