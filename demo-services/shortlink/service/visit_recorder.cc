#include "service/visit_recorder.h"

#include <openssl/rand.h>

#include <chrono>
#include <vector>

#include "ferry/framework/logging.h"
#include "service/shortlink_metrics.h"
#include "service/user_agent_class.h"
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
  if (pending_.fetch_add(1) >= options_.max_queued || stopping_.load()) {
    pending_.fetch_sub(1);
    dropped_.fetch_add(1, std::memory_order_relaxed);
    Metrics().dropped_visits->Increment();
    return;
  }
  // A thread keeps to one shard: its visits stay in order, and threads spread over the shards.
  static std::atomic<size_t> next_shard{0};
  thread_local const size_t shard_index = next_shard.fetch_add(1) % kShards;
  Shard& shard = shards_[shard_index];
  {
    std::lock_guard lock(shard.mu);
    shard.visits.push_back(std::move(visit));
  }
  if (writer_idle_.load() && writer_idle_.exchange(false)) {
    std::lock_guard lock(wake_mu_);
    wake_.notify_one();
  }
}

VisitEvent VisitRecorder::ToEvent(const Visit& v) {
  const UserAgentClass agent = ClassifyUserAgent(v.user_agent);
  return VisitEvent{
      .event_id = id_prefix_ + std::to_string(next_seq_++),
      .code = v.code,
      .at_ms = v.at_ms,
      .visitor = VisitorHash(options_.secret, UtcDay(v.at_ms), v.client_address, v.user_agent),
      .referrer_host = ReferrerHost(v.referrer),
      .bot = IsBotUserAgent(v.user_agent),
      .device = std::string(DeviceClassName(agent.device)),
      .browser = std::string(BrowserFamilyName(agent.browser))};
}

void VisitRecorder::TakeQueued(std::vector<Visit>* out) {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mu);
    if (out->empty()) {
      out->swap(shard.visits);
    } else {
      out->insert(out->end(), std::make_move_iterator(shard.visits.begin()),
                  std::make_move_iterator(shard.visits.end()));
      shard.visits.clear();
    }
  }
}

void VisitRecorder::WaitForVisits() {
  std::unique_lock lock(wake_mu_);
  writer_idle_.store(true);
  // A visit counted before the flag was set may have seen the writer busy and not woken it.
  if (pending_.load() > 0 || stopping_.load()) {
    writer_idle_.store(false);
    lock.unlock();
    std::this_thread::yield();  // to the Record between counting its visit and queueing it
    return;
  }
  wake_.wait_for(lock, kIdleWait, [this] { return !writer_idle_.load() || stopping_.load(); });
  writer_idle_.store(false);
}

void VisitRecorder::Write(std::vector<Visit>& visits, bool last_try) {
  std::vector<VisitEvent> batch;
  for (size_t begin = 0; begin < visits.size(); begin += options_.batch) {
    const size_t end = std::min(visits.size(), begin + options_.batch);
    batch.clear();
    for (size_t i = begin; i < end; ++i) batch.push_back(ToEvent(visits[i]));
    Status s = log_->Append(batch);
    while (!s.ok() && !last_try) {
      Logger().warn("shortlink: visit log refused {} events, retrying: {}", batch.size(),
                    s.ToString());
      {
        std::unique_lock lock(wake_mu_);
        wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stopping_.load(); });
      }
      last_try = stopping_.load();
      s = log_->Append(batch);
    }
    if (s.ok()) {
      appended_.fetch_add(batch.size(), std::memory_order_relaxed);
    } else {
      dropped_.fetch_add(batch.size(), std::memory_order_relaxed);
      Metrics().dropped_visits->Increment(batch.size());
    }
    pending_.fetch_sub(batch.size());
  }
  visits.clear();
}

void VisitRecorder::Loop() {
  std::vector<Visit> visits;
  while (true) {
    const bool last_try = stopping_.load();
    TakeQueued(&visits);
    if (!visits.empty()) {
      Write(visits, last_try);
    } else if (last_try) {
      return;
    } else {
      WaitForVisits();
    }
  }
}

void VisitRecorder::Stop() {
  {
    std::lock_guard lock(wake_mu_);
    stopping_.store(true);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ferry::shortlink
