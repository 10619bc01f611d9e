#pragma once

#include <chrono>

#include "service/like_core.h"

namespace ferry::like {

// Redis-first: waits until the record took every change the partitions' streams held when it
// was called, whoever owns them (UNAVAILABLE after `timeout`). Embedded and database-first:
// nothing to wait for.
Status CatchUp(LikeCore& core, std::chrono::milliseconds timeout);

}  // namespace ferry::like
