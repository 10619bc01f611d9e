#pragma once

#include "like.pb.h"
#include "service/like_core.h"

namespace ferry::like {

// Compares the views of one content's count: the database's detail rows (the record), its
// count rows and, redis-first, the sum of the Redis bucket counts and membership sizes. They
// must agree once nothing is waiting to be persisted. With `repair` (and only then, and only
// when nothing is pending) everything is rewritten from the detail rows under the current
// layout: the count rows, and every Redis bucket of the content (versions never lowered).
Status Reconcile(LikeCore& core, int64_t content_id, bool repair, ReconcileResponse* out);

}  // namespace ferry::like
