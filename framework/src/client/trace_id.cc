#include "client/trace_id.h"

#include <random>

namespace ferry::client {

void FillRandomTraceId(std::string* out) {
  // One generator per thread: no lock, and ids from different threads do not correlate.
  thread_local std::mt19937_64 random(std::random_device{}());
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t bits = random();
  out->resize(kTraceIdLength);
  for (char& c : *out) {
    c = kHex[bits & 0xF];
    bits >>= 4;
  }
}

}  // namespace ferry::client
