#pragma once

#include <cstdint>

#include "like.pb.h"
#include "service/like_core.h"

namespace ferry::like {

// Dead letters back to their partition's stream, oldest first, at most `limit`: each goes once
// (its row is deleted once it is appended again, and an entry appended twice is one change to
// the record), marked with one more re-drive, so that one which fails again is not re-driven
// on its own a second time (`never_redriven`: only those never re-driven, as the reconciler
// does). Entries that are no change (unparsable) and changes older than the tombstone horizon
// stay, counted as skipped with why.
Status Redrive(LikeCore& core, uint32_t limit, bool never_redriven,
               RedriveDeadLettersResponse* out);

}  // namespace ferry::like
