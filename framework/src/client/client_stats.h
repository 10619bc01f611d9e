#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::client {

// Counters of one client connection, for tests and diagnostics. A snapshot, not atomic as a whole.
struct ClientStats {
  // Responses that found no pending call: it had already timed out or failed.
  uint64_t late_responses = 0;
  size_t calls_in_flight = 0;
  // Successful connects after the first one.
  uint64_t reconnects = 0;
  uint64_t requests_sent = 0;  // request frames queued for the socket
  uint64_t flushes = 0;        // socket writes that carried them (and control frames)
};

}  // namespace ferry::client
