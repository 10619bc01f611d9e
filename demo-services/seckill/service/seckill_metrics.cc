#include "service/seckill_metrics.h"

namespace ferry::seckill {

metrics::Counter* SeckillMetrics::OrdersWith(PlaceOutcome outcome) const {
  switch (outcome) {
    case PlaceOutcome::kCreated:
      return orders_created;
    case PlaceOutcome::kAlreadyJoined:
      return orders_already_joined;
    case PlaceOutcome::kSoldOut:
      return orders_sold_out;
  }
  return orders_failed;
}

metrics::Counter* SeckillMetrics::DeadLettersWith(std::string_view reason) const {
  return reason == kReasonUnparsable ? dead_letters_unparsable : dead_letters_write_failed;
}

void SeckillMetrics::CountNotification(const std::string& outcome) const {
  if (auto cell = notifications->WithLabels({outcome}); cell.ok()) cell.value()->Increment();
}

void SeckillMetrics::CountClosed(const std::string& reason) const {
  if (auto cell = orders_closed->WithLabels({reason}); cell.ok()) cell.value()->Increment();
}

void SeckillMetrics::CountSignal(const std::string& direction, const std::string& kind) const {
  if (auto cell = stock_signals->WithLabels({direction, kind}); cell.ok())
    cell.value()->Increment();
}

void SeckillMetrics::CountEntrance(const std::string& outcome) const {
  if (auto cell = entrance->WithLabels({outcome}); cell.ok()) cell.value()->Increment();
}

int64_t SeckillMetrics::NotificationsRefused() const {
  int64_t refused = 0;
  for (const auto& series : notifications->Collect().series) {
    if (series.label_values.at(0).starts_with("refused_")) {
      refused += static_cast<int64_t>(series.value);
    }
  }
  return refused;
}

const SeckillMetrics& Metrics() {
  static const SeckillMetrics metrics = [] {
    metrics::MetricsRegistry& registry = metrics::Metrics();
    metrics::CounterFamily* orders =
        registry
            .AddCounter("seckill_orders_written_total",
                        "Reservations the order writer decided in the database, by outcome.",
                        {"outcome"})
            .value();
    metrics::CounterFamily* dead_letters =
        registry
            .AddCounter("seckill_dead_letters_total",
                        "Order events given up and moved to a dead-letter queue, by reason.",
                        {"reason"})
            .value();
    metrics::CounterFamily* notifications =
        registry
            .AddCounter("seckill_payment_notifications_total",
                        "Payment channels' notifications, by what became of them.", {"outcome"})
            .value();
    metrics::CounterFamily* closed =
        registry
            .AddCounter("seckill_orders_closed_total",
                        "Orders closed and their units released, by reason.", {"reason"})
            .value();
    metrics::CounterFamily* signals =
        registry
            .AddCounter("seckill_stock_signals_total",
                        "Sold-out broadcast signals, by direction and kind.", {"direction", "kind"})
            .value();
    metrics::CounterFamily* entrance =
        registry
            .AddCounter(
                "seckill_entrance_total",
                "Buyers at the entrance of a sale (admission, blacklist, back-pressure), by "
                "outcome.",
                {"outcome"})
            .value();
    return SeckillMetrics{
        .orders_created = orders->WithLabels({"created"}).value(),
        .orders_already_joined = orders->WithLabels({"already_joined"}).value(),
        .orders_sold_out = orders->WithLabels({"sold_out"}).value(),
        .orders_failed = orders->WithLabels({"failed"}).value(),
        .stream_backlog = registry
                              .AddGauge("seckill_stream_backlog",
                                        "Reservations queued for the order writer and not yet "
                                        "acknowledged, as of the reconciler's last pass.")
                              .value()
                              ->WithLabels({})
                              .value(),
        .cache_difference =
            registry
                .AddGauge("seckill_cache_difference",
                          "Units by which the reservation cache and the database disagree, over "
                          "the open activities, as of the reconciler's last pass.")
                .value()
                ->WithLabels({})
                .value(),
        .reconcile_violations =
            registry
                .AddCounter("seckill_reconcile_violations_total",
                            "Broken invariants found by the reconciler, one per finding per pass.")
                .value()
                ->WithLabels({})
                .value(),
        .dead_letters_unparsable = dead_letters->WithLabels({kReasonUnparsable}).value(),
        .dead_letters_write_failed = dead_letters->WithLabels({kReasonWriteFailed}).value(),
        .notifications = notifications,
        .orders_closed = closed,
        .stock_signals = signals,
        .status_reads = registry
                            .AddCounter("seckill_status_reads_total",
                                        "Reads of activity statuses for GetActivity.")
                            .value()
                            ->WithLabels({})
                            .value(),
        .entrance = entrance};
  }();
  return metrics;
}

}  // namespace ferry::seckill
