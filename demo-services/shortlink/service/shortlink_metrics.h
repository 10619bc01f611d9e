#pragma once

#include "ferry/framework/metrics.h"

namespace ferry::shortlink {

// The provider's own metrics, beside the framework's on /metrics (README lists them).
struct ShortLinkMetrics {
  metrics::Counter* db_queries;         // every statement the link store ran
  metrics::Counter* filter_rejects;     // unknown codes the Bloom filter answered alone
  metrics::Counter* absent_hits;        // unknown codes the cache's null entries answered
  metrics::Counter* redirects;          // 302s
  metrics::Counter* refused_redirects;  // 404s and 410s
  metrics::Counter* limited_redirects;  // 429s: the client's 404 allowance ran out
  metrics::Counter* fallback_refusals;  // lookups refused: Redis failing, database share used up
  metrics::Counter* dropped_visits;     // visits the statistics lost (queue full, log away)
  metrics::Counter* counted_visits;     // events the statistics consumer counted (first time)
  metrics::Counter* dead_visits;        // events dead-lettered after too many deliveries
  metrics::Gauge*
      visit_stream_entries;  // redis+mariadb: the visit stream's length at the last append
};

const ShortLinkMetrics& Metrics();

}  // namespace ferry::shortlink
