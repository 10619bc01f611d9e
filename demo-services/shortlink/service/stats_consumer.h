#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ferry/codec/status.h"
#include "service/shortlink_metrics.h"
#include "storage/stats_store.h"

namespace ferry::shortlink {

// Counts visit events into the statistics tables; the stats job calls Step until it finds no
// more work.
class StatsConsumer {
 public:
  virtual ~StatsConsumer() = default;
  // One batch; *more when another may be waiting.
  virtual Status Step(bool* more) = 0;
};

// embedded: the outbox's oldest rows are counted and deleted in one transaction, so a crash
// either counts and deletes them or does neither.
class OutboxStatsConsumer final : public StatsConsumer {
 public:
  OutboxStatsConsumer(StatsStore* stats, int batch, std::function<int64_t()> now_ms)
      : stats_(stats), batch_(batch), now_ms_(std::move(now_ms)) {}

  Status Step(bool* more) override {
    std::vector<VisitEvent> events;
    int64_t last_id = 0;
    *more = false;
    if (Status s = stats_->ReadOutbox(batch_, &events, &last_id); !s.ok()) return s;
    if (events.empty()) return Status::Ok();
    int counted = 0;
    if (Status s = stats_->Apply(events, now_ms_(), &counted, last_id); !s.ok()) return s;
    Metrics().counted_visits->Increment(static_cast<uint64_t>(counted));
    *more = static_cast<int>(events.size()) == batch_;
    return Status::Ok();
  }

 private:
  StatsStore* stats_;
  const int batch_;
  const std::function<int64_t()> now_ms_;
};

}  // namespace ferry::shortlink
