#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/bench/flag_parser.h"

namespace ferry::bench {

// The load shape every bench client (bare, grpc, ferry) accepts, so their RESULT lines compare.
struct LoadOptions {
  std::string target;            // --target host:port (required)
  uint32_t conns = 1;            // --conns: connections (channels)
  uint32_t depth = 1;            // --depth: calls outstanding per connection
  uint32_t size = 16;            // --size: payload bytes per request
  double duration_seconds = 10;  // --duration: measured time, after warmup
  double warmup_seconds = 0;     // --warmup: calls run but are not recorded
  uint32_t threads = 1;          // --threads: client IO / completion threads
  double slow_ratio = 0;         // --slow-ratio: fraction of calls sent to the slow method
  uint32_t slow_ms = 5;          // --slow-ms: how long a slow call sleeps on the server
};

inline constexpr uint32_t kMaxPayloadBytes = 16u << 20;
// Every slot of the closed loop holds per-call state in each client, so this bounds memory.
inline constexpr uint32_t kMaxCallsInFlight = 1'000'000;

// Whether AddLoadFlags demands --target. kOptional is for clients that can find the server
// another way (ferry-bench --registry); their own check must then require one of the two.
enum class TargetFlag { kRequired, kOptional };

// Registers the flags above on `flags`, plus a check that --target is well formed (and present,
// unless kOptional). Clients with flags of their own add them to the same parser.
void AddLoadFlags(FlagParser& flags, LoadOptions* options,
                  TargetFlag target = TargetFlag::kRequired);

// The rules of the load's shape every client shares: at most kMaxCallsInFlight calls out
// (--conns x --depth), and --target, when given, a HOST:PORT. False (and `*error`) otherwise.
bool CheckLoadShape(const LoadOptions& options, std::string* error);

struct HostPort {
  std::string host;
  uint16_t port = 0;
};

// "127.0.0.1:7001", "localhost:7001", "[::1]:7001". False (and `*error`) otherwise.
bool ParseHostPort(std::string_view text, HostPort* out, std::string* error);

}  // namespace ferry::bench
