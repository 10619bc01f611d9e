#pragma once

#include "ferry/codec/status.h"

namespace ferry::storage {

// A failure that says nothing about the data: the database or Redis unreachable or overloaded,
// a deadlock or a timeout. Work that failed so is tried again, and never counts toward giving
// it up.
inline bool IsTransientFailure(const Status& status) {
  switch (status.code()) {
    case StatusCode::UNAVAILABLE:
    case StatusCode::ABORTED:
    case StatusCode::DEADLINE_EXCEEDED:
    case StatusCode::RESOURCE_EXHAUSTED:
    case StatusCode::CANCELLED:
      return true;
    default:
      return false;
  }
}

}  // namespace ferry::storage
