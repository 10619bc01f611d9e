#pragma once

#include "ferry/codec/status.h"

namespace ferry::client {

// Told of a call's outcome just before its `done` runs. A cluster channel accounts a call to its
// provider this way instead of wrapping every `done` in another std::function, which would
// allocate per call. The pending call holds its observer until then, so an observer that owns
// the connection (a provider) stays alive as long as the call.
class CallObserver {
 public:
  virtual ~CallObserver() = default;
  virtual void OnCallDone(const Status& status) = 0;
};

}  // namespace ferry::client
