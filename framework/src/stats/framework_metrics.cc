#include "stats/framework_metrics.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ferry::stats {
namespace {

metrics::MetricsRegistry& Registry() { return metrics::Metrics(); }

metrics::CounterFamily* Counters(const char* name, const char* help,
                                 std::vector<std::string> labels) {
  return Registry().AddCounter(name, help, std::move(labels)).value();
}

}  // namespace

const ServerMetrics& Server() {
  static const ServerMetrics metrics = [] {
    ServerMetrics m{};
    m.pool_rejections = Counters("ferry_server_business_pool_rejections_total",
                                 "Calls refused OVERLOADED because the business pool was full.", {})
                            ->WithLabels({})
                            .value();
    m.queue_wait = Registry()
                       .AddHistogram("ferry_server_business_pool_queue_wait_seconds",
                                     "Time from reading a request to a worker starting it.", {})
                       .value()
                       ->WithLabels({})
                       .value();
    auto* connections = Registry()
                            .AddUpDownCounter("ferry_server_connections",
                                              "Open connections, by protocol.", {"protocol"})
                            .value();
    auto* received =
        Counters("ferry_server_received_bytes_total", "Bytes read from clients.", {"protocol"});
    auto* sent =
        Counters("ferry_server_sent_bytes_total", "Bytes written to clients.", {"protocol"});
    const char* protocols[2] = {"ferry", "http"};
    for (int i = 0; i < 2; ++i) {
      m.connections[i] = connections->WithLabels({protocols[i]}).value();
      m.received_bytes[i] = received->WithLabels({protocols[i]}).value();
      m.sent_bytes[i] = sent->WithLabels({protocols[i]}).value();
    }
    auto* limits = Counters("ferry_server_limit_events_total",
                            "What server.limits made the server do, by event.", {"event"});
    const char* events[ServerMetrics::kLimitEvents] = {"read_paused",        "frame_timeout",
                                                       "outbound_overflow",  "buffers_full",
                                                       "connection_refused", "first_byte_timeout"};
    for (int i = 0; i < ServerMetrics::kLimitEvents; ++i) {
      m.limit_events[i] = limits->WithLabels({events[i]}).value();
    }
    auto* tls = Counters("ferry_server_tls_handshake_failures_total",
                         "Connections to a TLS port closed before their first request, by reason.",
                         {"reason"});
    const char* reasons[ServerMetrics::kTlsFailures] = {"failed", "timeout", "plaintext", "busy"};
    for (int i = 0; i < ServerMetrics::kTlsFailures; ++i) {
      m.tls_failures[i] = tls->WithLabels({reasons[i]}).value();
    }
    m.queue_depth =
        Registry()
            .AddGaugeCallback("ferry_server_business_pool_queue_depth",
                              "Calls waiting for a worker, by the server's port.", {"port"})
            .value();
    m.buffered_bytes =
        Registry()
            .AddGaugeCallback("ferry_server_buffered_bytes",
                              "Bytes the server's connections hold against "
                              "server.limits.max_buffered_bytes, by the server's port.",
                              {"port"})
            .value();
    m.tls_handshakes = Registry()
                           .AddGaugeCallback("ferry_server_tls_handshakes_in_progress",
                                             "TLS handshakes in progress, against "
                                             "server.limits.max_handshakes, by the server's port.",
                                             {"port"})
                           .value();
    return m;
  }();
  return metrics;
}

const ClusterMetrics& ClusterFor(std::string_view service) {
  struct Families {
    metrics::CounterFamily* retries;
    metrics::CounterFamily* backups;
    metrics::CounterFamily* ejections;
    metrics::CounterFamily* refusals;
  };
  static const Families families{
      Counters("ferry_client_retries_total", "Attempts after a call's first, by service.",
               {"service"}),
      Counters("ferry_client_backup_requests_total",
               "Backup requests sent while the first attempt was still out, by service.",
               {"service"}),
      Counters("ferry_client_ejections_total", "Providers ejected as outliers, by service.",
               {"service"}),
      Counters("ferry_client_retry_budget_refusals_total",
               "Retries or backups not sent because the retry budget was spent, by service.",
               {"service"})};
  static std::mutex mu;
  static auto* by_service = new std::map<std::string, ClusterMetrics, std::less<>>();
  std::lock_guard lock(mu);
  auto it = by_service->find(service);
  if (it == by_service->end()) {
    const std::vector<std::string> labels = {std::string(service)};
    it = by_service
             ->emplace(std::string(service),
                       ClusterMetrics{families.retries->WithLabels(labels).value(),
                                      families.backups->WithLabels(labels).value(),
                                      families.ejections->WithLabels(labels).value(),
                                      families.refusals->WithLabels(labels).value()})
             .first;
  }
  return it->second;
}

metrics::Counter* LateResponsesFrom(std::string_view target) {
  static metrics::CounterFamily* family =
      Counters("ferry_client_late_responses_total",
               "Responses that arrived after their call had timed out or been cancelled, by "
               "provider address.",
               {"target"});
  return family->WithLabels({std::string(target)}).value();
}

}  // namespace ferry::stats
