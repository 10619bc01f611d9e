#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "command.h"

namespace ferry::bench {

// `ferry-bench shortlink`: the short-link service (build/bin/shortlink-server) end to end over
// its HTTP port: creates --links links through the JSON gateway, drives --requests redirects
// from --conns keep-alive connections (a Zipf mix over the links plus --unknown-ratio unknown
// codes) with live progress and percentiles, then an unknown-code flood measuring the database
// queries it costs (/metrics), and checks that every link's PV (+ bot visits) equals its 302s
// once the statistics settled.
extern const Command kShortLinkCommand;

struct ShortLinkBenchOptions {
  std::string host = "127.0.0.1";  // --target HOST:PORT
  uint16_t port = 7201;
  std::string api_key;              // --api-key: a tenant's key (CreateTenant/IssueApiKey)
  uint32_t links = 1000;            // --links
  uint64_t requests = 100'000;      // --requests: redirects of the mixed phase
  uint32_t conns = 8;               // --conns
  double zipf_s = 1.1;              // --zipf: exponent of the hot/cold mix
  double unknown_ratio = 0.05;      // --unknown-ratio: share of unknown codes in the mix
  uint64_t unknown_probe = 10'000;  // --unknown-probe: requests of the unknown-only flood
  double settle_timeout_s = 60;     // --settle-timeout
};

struct ShortLinkBenchOutcome {
  uint64_t rps = 0;  // redirects (302) per second of the mixed phase
  uint64_t p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0;
  uint64_t found = 0, not_found = 0, errors = 0;
  double db_queries_per_1k_unknown = -1;  // -1: /metrics unreadable
  int64_t pv = 0;                         // PV + bot visits over every link, once settled
  int64_t settle_ms = -1;
  bool passed = false;
};

int RunShortLinkBench(const ShortLinkBenchOptions& options, std::ostream& out, std::ostream& err,
                      ShortLinkBenchOutcome* outcome = nullptr);

}  // namespace ferry::bench
