#pragma once

#include <cstdint>
#include <string>

#include "storage/like_database.h"
#include "storage/redis_event_stream.h"

namespace ferry::like {

struct EventWriterOptions {
  std::string consumer;  // unique per writer and process
  int batch = 256;
  // Every stream is read this often (by one of the process's writers, in turn); in between
  // only those this process appended to.
  int64_t sweep_ms = 1000;
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

  // One read (of every stream when this process's sweep is due, else of the appended ones)
  // and, once per claim_idle_ms, one reclaim. True when it got a full batch: more is waiting.
  // Otherwise the caller waits a little, so that under load a batch (one transaction) holds
  // many.
  bool Step();
  // Reads every stream and applies until nothing new is left (tests; a draining provider).
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
