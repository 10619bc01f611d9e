#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "storage/reservation_cache.h"

namespace ferry::seckill::testing {

// A ReservationCache that hands every call to a real one and counts them (calls()), for tests
// that bound how often the cache is asked; override a call to hold or change it.
class ForwardingReservationCache : public ReservationCache {
 public:
  explicit ForwardingReservationCache(std::unique_ptr<ReservationCache> real)
      : real_(std::move(real)) {}

  Status Fence(int64_t id, int64_t sku, const std::string& expected_marker, int64_t epoch,
               int64_t now_ms, bool* fenced) override {
    return Real()->Fence(id, sku, expected_marker, epoch, now_ms, fenced);
  }
  Status Preheat(const CacheLoad& load, bool* raced) override {
    return Real()->Preheat(load, raced);
  }
  Status Reserve(const ReserveRequest& request, ReserveResult* result) override {
    return Real()->Reserve(request, result);
  }
  Status Release(int64_t id, int64_t sku, const std::string& key, int64_t epoch,
                 ReleaseOutcome* outcome) override {
    return Real()->Release(id, sku, key, epoch, outcome);
  }
  Status MarkStale(int64_t id, int64_t sku, int64_t epoch, bool* marked) override {
    return Real()->MarkStale(id, sku, epoch, marked);
  }
  Status Snapshot(int64_t id, int64_t sku, CacheSnapshot* out) override {
    return Real()->Snapshot(id, sku, out);
  }
  Status ReadStock(int64_t id, int64_t sku, CacheSnapshot* out) override {
    return Real()->ReadStock(id, sku, out);
  }
  Status FindRequest(const RequestScope& scope, bool* found, ReserveResult* result) override {
    return Real()->FindRequest(scope, found, result);
  }
  Status ListReservations(int64_t id, int64_t sku, std::vector<ReservationEvent>* out) override {
    return Real()->ListReservations(id, sku, out);
  }
  Status ScanReservations(int64_t id, int64_t sku, std::string* cursor, int count,
                          std::vector<ReservationEvent>* out) override {
    return Real()->ScanReservations(id, sku, cursor, count, out);
  }
  Status ReadEvents(int64_t id, int64_t sku, const std::string& consumer, int max_count,
                    std::vector<ReservationEvent>* out) override {
    return Real()->ReadEvents(id, sku, consumer, max_count, out);
  }
  Status ClaimStale(int64_t id, int64_t sku, const std::string& consumer, int64_t min_idle_ms,
                    int max_count, std::vector<ReservationEvent>* out) override {
    return Real()->ClaimStale(id, sku, consumer, min_idle_ms, max_count, out);
  }
  Status Ack(int64_t id, int64_t sku, const std::vector<std::string>& event_ids) override {
    return Real()->Ack(id, sku, event_ids);
  }
  Status DeadLetter(int64_t id, int64_t sku, const std::string& event_id, const std::string& reason,
                    const std::string& detail, int64_t max_letters, bool* moved) override {
    return Real()->DeadLetter(id, sku, event_id, reason, detail, max_letters, moved);
  }
  Status TrimAcknowledged(int64_t id, int64_t sku, int64_t* removed) override {
    return Real()->TrimAcknowledged(id, sku, removed);
  }
  Status HoldRedriveLease(int64_t id, int64_t sku, const std::string& holder, int64_t ttl_ms,
                          bool* held) override {
    return Real()->HoldRedriveLease(id, sku, holder, ttl_ms, held);
  }
  Status Requeue(const ReservationEvent& event) override { return Real()->Requeue(event); }
  Status ListIdle(int64_t id, int64_t sku, int64_t min_idle_ms, int max_count,
                  std::vector<ReservationEvent>* out) override {
    return Real()->ListIdle(id, sku, min_idle_ms, max_count, out);
  }
  std::string ServerIdentity() const override { return real_->ServerIdentity(); }
  Status CheckServer() override { return Real()->CheckServer(); }
  void OnServerChange(std::function<void()> listener) override {
    real_->OnServerChange(std::move(listener));
  }

  int64_t calls() const { return calls_.load(); }

 protected:
  ReservationCache* Real() {
    calls_.fetch_add(1);
    return real_.get();
  }

 private:
  std::unique_ptr<ReservationCache> real_;
  std::atomic<int64_t> calls_{0};
};

}  // namespace ferry::seckill::testing
