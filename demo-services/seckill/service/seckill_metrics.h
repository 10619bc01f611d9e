#pragma once

#include <string_view>

#include "ferry/framework/metrics.h"
#include "storage/order_store.h"

namespace ferry::seckill {

// The seckill provider's own metrics, in the process-wide registry beside the framework's
// (/metrics; README lists them). Registered on first use.
struct SeckillMetrics {
  // Reservations the order writer decided in the database, by outcome: created, already_joined,
  // sold_out; failed when the database did not answer (the event is redelivered).
  metrics::Counter* orders_created;
  metrics::Counter* orders_already_joined;
  metrics::Counter* orders_sold_out;
  metrics::Counter* orders_failed;
  // Reservations queued for the order writer and not yet acknowledged, over the open
  // activities, as of the reconciler's last pass.
  metrics::Gauge* stream_backlog;
  // Units by which the cache and the database disagree (Reconcile's cache_difference, summed
  // as absolute values over the open activities), as of the reconciler's last pass.
  metrics::Gauge* cache_difference;
  // Broken invariants the reconciler found, one per finding per pass.
  metrics::Counter* reconcile_violations;
  // Order events given up and moved to a dead-letter queue, by reason: unparsable,
  // write_failed.
  metrics::Counter* dead_letters_unparsable;
  metrics::Counter* dead_letters_write_failed;

  // Payment notifications by outcome: applied, unchanged, refund_owed, or refused for their
  // signature, age, replay, amount or order.
  metrics::CounterFamily* notifications;
  // Orders closed with their unit released, by reason: unpaid (the pay deadline passed with no
  // payment started), channel_closed (the channel's payment was closed first), unconfirmed (the
  // channel could not be asked until the confirmation deadline), cancelled (by the buyer),
  // refunded (the payment that paid it was refunded).
  metrics::CounterFamily* orders_closed;

  // Stock signals of the sold-out broadcast, by direction (sent, dropped: the publishing queue
  // was full, received) and kind (sold_out, reopened).
  metrics::CounterFamily* stock_signals;
  // Reads of an activity's status for GetActivity (the activity, and its stock from the cache
  // or the database): at most one per polled activity per status.refresh_ms.
  metrics::Counter* status_reads;
  // Buyers at the entrance, by outcome: admitted, waiting, sold_out (Admit's answers),
  // blacklisted (Admit or Purchase refused for the blacklist), busy (Purchase over
  // backpressure.max_backlog).
  metrics::CounterFamily* entrance;

  void CountNotification(const std::string& outcome) const;
  void CountClosed(const std::string& reason) const;
  void CountSignal(const std::string& direction, const std::string& kind) const;
  void CountEntrance(const std::string& outcome) const;
  // The notifications refused since the process started.
  int64_t NotificationsRefused() const;

  metrics::Counter* OrdersWith(PlaceOutcome outcome) const;
  // kReasonUnparsable or kReasonWriteFailed.
  metrics::Counter* DeadLettersWith(std::string_view reason) const;
};

const SeckillMetrics& Metrics();

}  // namespace ferry::seckill
