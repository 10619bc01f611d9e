#pragma once

#include <cstdint>

#include "ferry/codec/status.h"

namespace ferry::idgen {

// The right to issue ids under one worker id, for as long as it is held. Two processes issuing
// under the same worker id can issue the same id, so a generator asks its lease before every
// id and issues nothing while the lease is not held.
//
// A static worker id needs no lease object (SnowflakeIdGenerator takes the number directly);
// ZooKeeperWorkerIdLease is the coordinated one.
class WorkerIdLease {
 public:
  virtual ~WorkerIdLease() = default;

  // The held worker id (0..kMaxWorkerId), or UNAVAILABLE saying why none is held right now
  // (not yet leased, connection lost, session expired, closed). The id may differ between
  // calls when the lease is lost and taken again. Called on every id: must be cheap and
  // thread-safe.
  virtual Status Current(uint32_t* worker_id) const = 0;
};

}  // namespace ferry::idgen
