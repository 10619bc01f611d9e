#include "service/shortlink_metrics.h"

namespace ferry::shortlink {

namespace {

metrics::Counter* Counter(const char* name, const char* help) {
  return metrics::Metrics().AddCounter(name, help).value()->WithLabels({}).value();
}

}  // namespace

const ShortLinkMetrics& Metrics() {
  static const ShortLinkMetrics metrics{
      .db_queries = Counter("shortlink_db_queries_total",
                            "Statements the short-link store ran on its database."),
      .filter_rejects = Counter("shortlink_filter_rejects_total",
                                "Unknown codes the Bloom filter answered without the database."),
      .absent_hits = Counter("shortlink_absent_cache_hits_total",
                             "Unknown codes answered by the cache's short-lived null entries."),
      .redirects = Counter("shortlink_redirects_total", "Redirects answered 302."),
      .refused_redirects =
          Counter("shortlink_refused_redirects_total", "Redirects answered 404 or 410."),
      .limited_redirects =
          Counter("shortlink_limited_redirects_total",
                  "Redirects answered 429: the client's allowance of 404s ran out."),
      .fallback_refusals =
          Counter("shortlink_fallback_refusals_total",
                  "Lookups answered 503 while Redis failed: the database's share was used up."),
      .dropped_visits = Counter("shortlink_dropped_visits_total",
                                "Visits the statistics lost: recorder queue full or log away."),
      .counted_visits = Counter("shortlink_counted_visits_total",
                                "Visit events the statistics counted (each event id once)."),
      .dead_visits =
          Counter("shortlink_dead_visits_total", "Visit events moved to the dead-letter stream."),
      .visit_stream_entries =
          metrics::Metrics()
              .AddGauge("shortlink_visit_stream_entries",
                        "Visit events waiting in the Redis stream, as of this provider's last "
                        "append (appends stop at stats.stream_max_entries).")
              .value()
              ->WithLabels({})
              .value()};
  return metrics;
}

}  // namespace ferry::shortlink
