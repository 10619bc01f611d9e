#pragma once

#include "like.pb.h"
#include "service/like_core.h"

namespace ferry::like {

// Compares the views of one content: the record's detail rows (the truth of what was
// persisted), its count rows, and on redis+mariadb every Redis bucket Redis holds, pair by pair.
// It judges while writers run: the record is read in one snapshot with the checkpoints of the
// content's partitions, then each bucket with the stream's changes after its partition's
// checkpoint in one script, so Redis must be exactly the record plus those changes (redis-
// first), or the record less the outbox rows not relayed yet (database-first). With `repair`,
// whatever disagrees is brought in line by version, each step safe against concurrent changes:
// a change Redis holds that the record lost goes to the stream again (the partition's writer
// applies it), a newer state of the record goes to Redis if still newer there, counts are
// rebuilt under their locks. A content whose Redis layout is not the configured one (a
// configuration raise) is unloaded from Redis when none of its changes is pending, and loads
// again in the configured layout. Only one provider repairs a content at a time.
Status Reconcile(LikeCore& core, int64_t content_id, bool repair, ReconcileResponse* out);

}  // namespace ferry::like
