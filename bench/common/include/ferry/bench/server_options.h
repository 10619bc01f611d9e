#pragma once

#include <cstdint>
#include <string>

#include "ferry/bench/flag_parser.h"

namespace ferry::bench {

// Flags of the peer echo servers (bare, grpc).
struct ServerOptions {
  std::string bind = "0.0.0.0";  // --bind
  uint16_t port = 0;             // --port; 0 picks a free one, printed at start
  uint32_t threads = 1;          // --threads: IO / completion-queue threads
};

void AddServerFlags(FlagParser& flags, ServerOptions* options);

}  // namespace ferry::bench
