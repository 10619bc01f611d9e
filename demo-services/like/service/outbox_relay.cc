#include "service/outbox_relay.h"

namespace ferry::like {

Status OutboxRelay::Step(size_t* relayed) {
  *relayed = 0;
  std::vector<LikeEvent> changes;
  if (Status s = database_->ReadOutbox(batch_, &changes); !s.ok()) return s;
  std::vector<LikeEvent> done;
  Status failure;
  for (const LikeEvent& change : changes) {
    // Stops at the first failure: later rows of the same pair wait for the earlier one.
    failure = cache_->ApplyChange(change);
    if (!failure.ok()) break;
    done.push_back(change);
  }
  Status deleted = database_->DeleteOutbox(done);
  *relayed = done.size();
  return !failure.ok() ? failure : deleted;
}

Status OutboxRelay::Drain() {
  while (true) {
    size_t relayed = 0;
    if (Status s = Step(&relayed); !s.ok()) return s;
    if (relayed == 0) return Status::Ok();
  }
}

}  // namespace ferry::like
