#pragma once

#include <chrono>
#include <cstdint>

namespace ferry::like {

// The clocks the like service reads: the wall clock for what other processes and the record
// compare (leases, versions, request windows, retention), the steady clock for its own waits.
inline int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
inline int64_t UnixUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
inline int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace ferry::like
