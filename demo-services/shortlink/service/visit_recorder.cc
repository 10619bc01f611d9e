#include "service/visit_recorder.h"

#include <openssl/rand.h>

#include <chrono>
#include <vector>

#include "ferry/framework/logging.h"
#include "service/shortlink_metrics.h"
#include "service/visit_facts.h"

#include <spdlog/spdlog.h>

namespace ferry::shortlink {

namespace {

std::string RandomPrefix() {
  unsigned char bytes[8];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    for (size_t i = 0; i < sizeof(bytes); ++i)
      bytes[i] = static_cast<unsigned char>(now >> (8 * i));
  }
  std::string out;
  for (unsigned char b : bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out + "-";
}

}  // namespace

VisitRecorder::VisitRecorder(VisitLog* log, RecorderOptions options)
    : log_(log),
      options_(std::move(options)),
      id_prefix_(RandomPrefix()),
      thread_([this] { Loop(); }) {}

void VisitRecorder::Record(Visit visit) {
  recorded_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(mu_);
    if (queue_.size() + in_flight_ >= options_.max_queued || stopping_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      Metrics().dropped_visits->Increment();
      return;
    }
    queue_.push_back(std::move(visit));
  }
  wake_.notify_one();
}

VisitEvent VisitRecorder::ToEvent(const Visit& v) {
  return VisitEvent{
      .event_id = id_prefix_ + std::to_string(next_seq_++),
      .code = v.code,
      .at_ms = v.at_ms,
      .visitor = VisitorHash(options_.secret, UtcDay(v.at_ms), v.client_address, v.user_agent),
      .referrer_host = ReferrerHost(v.referrer),
      .bot = IsBotUserAgent(v.user_agent)};
}

void VisitRecorder::Loop() {
  std::vector<VisitEvent> batch;
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    const size_t n = std::min(options_.batch, queue_.size());
    std::vector<Visit> visits(std::make_move_iterator(queue_.begin()),
                              std::make_move_iterator(queue_.begin() + static_cast<long>(n)));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<long>(n));
    in_flight_ = n;
    const bool last_try = stopping_;
    lock.unlock();
    batch.clear();
    for (const Visit& v : visits) batch.push_back(ToEvent(v));
    Status s = log_->Append(batch);
    while (!s.ok() && !last_try) {
      Logger().warn("shortlink: visit log refused {} events, retrying: {}", batch.size(),
                    s.ToString());
      lock.lock();
      wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stopping_; });
      const bool stop = stopping_;
      lock.unlock();
      s = log_->Append(batch);
      if (stop) break;
    }
    if (s.ok()) {
      appended_.fetch_add(batch.size(), std::memory_order_relaxed);
    } else {
      dropped_.fetch_add(batch.size(), std::memory_order_relaxed);
      Metrics().dropped_visits->Increment(batch.size());
    }
    lock.lock();
    in_flight_ = 0;
  }
}

void VisitRecorder::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ferry::shortlink
