#pragma once

#include <cstdint>

#include "service/like_core.h"

namespace ferry::like {

// Carries out requested user deletions (LikeDatabase::RequestUserDeletion), at most `limit`:
// every content the record says the user likes is unliked through the store, as the user
// would, so each count drops exactly once; on redis-first the record then catches up with
// every change Redis held when the pass began (a like not persisted yet) and a second pass
// unlikes what that brought. A deletion whose record does not catch up in time stays pending
// for the next run. The user's dead letters go with it; tombstones stay until the horizon.
Status RunUserDeletions(LikeCore& core, uint32_t limit);

}  // namespace ferry::like
