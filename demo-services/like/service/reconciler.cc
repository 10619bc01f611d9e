#include "service/reconciler.h"

#include <chrono>
#include <map>
#include <set>
#include <string>

#include "ferry/storage/sql_lease.h"
#include "storage/redis_like_keys.h"

namespace ferry::like {

namespace {

// Violations a report lists at most; the rest are counted.
constexpr int kMaxListed = 20;

struct PairState {
  bool liked = false;
  int64_t version = 0;
};

// What a repair will do, gathered while comparing.
struct Repairs {
  struct Pair {
    uint32_t bucket;
    LikeEvent record;  // the state to bring Redis to (ApplyRecord), or (reappend) Redis's own
    enum Kind { kToRedis, kToRedisTie, kToRedisForce, kReappend } kind;
  };
  std::vector<Pair> pairs;
  std::vector<uint32_t> redis_counts;  // buckets whose count is not their set's size
  bool database_counts = false;
  std::vector<uint32_t> unload;  // buckets laid out otherwise than configured
};

class Report {
 public:
  explicit Report(ReconcileResponse* out) : out_(out) {}
  void Violation(const std::string& what) {
    if (listed_ < kMaxListed) {
      out_->add_violations(what);
    } else if (listed_ == kMaxListed) {
      out_->add_violations("(more violations follow; repair, then reconcile again)");
    }
    ++listed_;
  }
  int found() const { return listed_; }

 private:
  ReconcileResponse* const out_;
  int listed_ = 0;
};

std::string Pair(const std::string& user, const PairState& state) {
  return "user '" + user + "' " + (state.liked ? "liked" : "unliked") + " at version " +
         std::to_string(state.version);
}

// One loaded bucket against what the record says it must hold; fills `repairs`.
void CompareBucket(uint32_t bucket, const std::map<std::string, PairState>& expected,
                   const std::set<std::string>& pending_users, const BucketSnapshot& redis,
                   bool database_first, Report& report, Repairs& repairs, int64_t content_id,
                   int64_t* compared) {
  if (redis.count != static_cast<int64_t>(redis.members.size())) {
    report.Violation("Redis bucket " + std::to_string(bucket) + ": count " +
                     std::to_string(redis.count) + " != its set's size " +
                     std::to_string(redis.members.size()));
    repairs.redis_counts.push_back(bucket);
  }
  std::set<std::string> users;
  for (const auto& [u, s] : expected) users.insert(u);
  for (const auto& [u, m] : redis.members) users.insert(u);
  for (const auto& [u, v] : redis.versions) users.insert(u);
  for (const std::string& user : users) {
    if (database_first && pending_users.count(user) != 0) continue;  // not relayed yet
    ++*compared;
    auto e = expected.find(user);
    const PairState want = e == expected.end() ? PairState{} : e->second;
    auto v = redis.versions.find(user);
    const PairState have{.liked = redis.members.count(user) != 0,
                         .version = v == redis.versions.end() ? 0 : v->second};
    // An unliked pair without a version in Redis is a dropped tombstone: the record has it.
    if (!have.liked && have.version == 0 && !want.liked) continue;
    if (have.version == want.version && have.liked == want.liked) continue;
    const LikeEvent record{.content_id = content_id,
                           .user_id = user,
                           .liked = want.liked,
                           .version = want.version,
                           .bucket = bucket};
    if (have.version > want.version) {
      if (database_first) {
        report.Violation("Redis is ahead of the record for " + Pair(user, have) + " (record: " +
                         (e == expected.end() ? std::string("none") : Pair(user, want)) + ")");
        repairs.pairs.push_back({bucket, record, Repairs::Pair::kToRedisForce});
      } else {
        report.Violation("a change the record lost: Redis has " + Pair(user, have) +
                         " and nothing pending, the record " +
                         (e == expected.end() ? std::string("no row") : Pair(user, want)));
        repairs.pairs.push_back({bucket,
                                 {.content_id = content_id,
                                  .user_id = user,
                                  .liked = have.liked,
                                  .version = have.version,
                                  .bucket = bucket},
                                 Repairs::Pair::kReappend});
      }
    } else if (have.version < want.version) {
      report.Violation("Redis is behind the record: " + Pair(user, have) + ", the record " +
                       Pair(user, want));
      repairs.pairs.push_back({bucket, record, Repairs::Pair::kToRedis});
    } else {
      report.Violation("Redis and the record disagree at one version: Redis " + Pair(user, have) +
                       ", the record " + Pair(user, want));
      repairs.pairs.push_back({bucket, record, Repairs::Pair::kToRedisTie});
    }
  }
}

// Compares Redis with the record; fills the report's numbers and `repairs`.
Status CompareRedis(LikeCore& core, int64_t content_id, uint32_t layout, ReconcileResponse* out,
                    Report& report, Repairs& repairs) {
  RedisLikeStore& redis = *core.redis;
  std::set<uint32_t> partitions;
  for (uint32_t b = 0; b < layout; ++b) {
    partitions.insert(PartitionOf(content_id, b, redis.partitions()));
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::map<uint32_t, int64_t> generations;
    if (Status s = core.log->Generations(partitions, &generations); !s.ok()) return s;
    const std::vector<uint32_t> asked(partitions.begin(), partitions.end());
    ContentRecord record;
    if (Status s = core.database->ContentSnapshot(content_id, asked, &record); !s.ok()) return s;
    out->set_database_likes(record.likes);
    out->set_database_count(record.counted);
    // The record's state per bucket of the configured layout, and database-first's unrelayed.
    std::vector<std::map<std::string, PairState>> expected(layout);
    for (const LikeRow& row : record.rows) {
      expected[BucketLayout::BucketIn(row.user_id, layout)][row.user_id] = {row.liked, row.version};
    }
    std::set<std::string> unrelayed;
    for (const LikeEvent& e : record.outbox) unrelayed.insert(e.user_id);
    int64_t pending = static_cast<int64_t>(record.outbox.size());
    int64_t cache_count = 0;
    int64_t cache_members = 0;
    int64_t compared = 0;
    bool loaded_any = false;
    bool generation_moved = false;
    Repairs found;
    const size_t listed_before = static_cast<size_t>(out->violations_size());
    for (uint32_t b = 0; b < layout && !generation_moved; ++b) {
      const uint32_t p = PartitionOf(content_id, b, redis.partitions());
      const PartitionCheckpoint& cp = record.checkpoints[p];
      const std::string after = cp.generation == generations[p] ? cp.last_id : "0-0";
      BucketSnapshot snapshot;
      if (Status s = redis.Snapshot(content_id, b, after, &snapshot); !s.ok()) return s;
      if (snapshot.generation != generations[p]) {
        generation_moved = true;
        break;
      }
      pending += static_cast<int64_t>(snapshot.pending.size());
      if (!snapshot.loaded) continue;  // Redis holds nothing of it: nothing to disagree with
      loaded_any = true;
      cache_count += snapshot.count;
      cache_members += static_cast<int64_t>(snapshot.members.size());
      MarkerLayout marker;
      if (!ParseMarkerLayout(snapshot.layout, &marker) || marker.moving ||
          marker.buckets != layout) {
        if (!marker.moving && marker.buckets < layout) {
          report.Violation("Redis bucket " + std::to_string(b) + " is laid out for " +
                           snapshot.layout + " buckets, the configuration for " +
                           std::to_string(layout));
          found.unload.push_back(b);
        }
        continue;  // a raise under way or not recorded yet: pairs are judged once it is
      }
      if (snapshot.truncated) continue;  // too long a backlog to judge
      std::map<std::string, PairState> want = expected[b];
      for (const LikeEvent& e : snapshot.pending) {
        PairState& state = want[e.user_id];
        if (e.version > state.version) state = {e.liked, e.version};
      }
      CompareBucket(b, want, unrelayed, snapshot, core.outbox_relayed, report, found, content_id,
                    &compared);
    }
    if (generation_moved) {
      // Redis changed generation while read: judge the new one.
      while (static_cast<size_t>(out->violations_size()) > listed_before) {
        out->mutable_violations()->RemoveLast();
      }
      continue;
    }
    // -1: Redis holds none of the content's buckets (nothing there to disagree).
    out->set_cache_count(loaded_any ? cache_count : -1);
    out->set_cache_members(loaded_any ? cache_members : -1);
    out->set_pending_events(pending);
    out->set_compared_pairs(compared);
    repairs.pairs.insert(repairs.pairs.end(), found.pairs.begin(), found.pairs.end());
    repairs.redis_counts = found.redis_counts;
    repairs.unload = found.unload;
    return Status::Ok();
  }
  return Status(StatusCode::UNAVAILABLE,
                "content " + std::to_string(content_id) + ": Redis kept changing generation");
}

Status Compare(LikeCore& core, int64_t content_id, ReconcileResponse* out, Repairs* repairs) {
  out->Clear();
  *repairs = {};
  Report report(out);
  const uint32_t layout = core.layout->BucketsOf(content_id);
  out->set_cache_count(-1);
  out->set_cache_members(-1);
  if (core.redis != nullptr) {
    if (Status s = CompareRedis(core, content_id, layout, out, report, *repairs); !s.ok()) {
      return s;
    }
  } else {
    ContentRecord record;
    if (Status s = core.database->ContentSnapshot(content_id, {}, &record); !s.ok()) return s;
    out->set_database_likes(record.likes);
    out->set_database_count(record.counted);
    out->set_pending_events(static_cast<int64_t>(record.outbox.size()));
  }
  if (out->database_count() != out->database_likes()) {
    report.Violation("database count rows " + std::to_string(out->database_count()) +
                     " != database detail rows " + std::to_string(out->database_likes()));
    repairs->database_counts = true;
  }
  return Status::Ok();
}

Status Repair(LikeCore& core, int64_t content_id, const Repairs& repairs) {
  for (const Repairs::Pair& pair : repairs.pairs) {
    Status s;
    switch (pair.kind) {
      case Repairs::Pair::kReappend:
        s = core.redis->Reappend(content_id, pair.bucket, pair.record.user_id, pair.record.version);
        break;
      case Repairs::Pair::kToRedis:
        s = core.redis->ApplyRecord(content_id, pair.bucket, pair.record, ApplyMode::kNewer);
        break;
      case Repairs::Pair::kToRedisTie:
        s = core.redis->ApplyRecord(content_id, pair.bucket, pair.record, ApplyMode::kTie);
        break;
      case Repairs::Pair::kToRedisForce:
        s = core.redis->ApplyRecord(content_id, pair.bucket, pair.record, ApplyMode::kForce);
        break;
    }
    if (!s.ok()) return s;
  }
  for (uint32_t bucket : repairs.redis_counts) {
    int64_t before = 0;
    if (Status s = core.redis->FixCount(content_id, bucket, &before); !s.ok()) return s;
  }
  if (!repairs.unload.empty()) {
    // Laid out for fewer buckets than configured: unloaded (when none of the content's
    // changes is pending), to load again in the configured layout on next use.
    for (uint32_t b = 0; b < core.layout->BucketsOf(content_id); ++b) {
      const uint32_t p = PartitionOf(content_id, b, core.redis->partitions());
      PartitionCheckpoint cp;
      if (Status s = core.database->Checkpoint(p, &cp); !s.ok()) return s;
      bool deleted = false;
      if (Status s = core.redis->Unload(content_id, b, cp.last_id, &deleted); !s.ok()) return s;
      if (!deleted) {
        return Status(StatusCode::ABORTED,
                      "content " + std::to_string(content_id) +
                          " has changes pending: its layout is repaired once it is quiet");
      }
    }
  }
  if (repairs.database_counts || !repairs.unload.empty()) {
    bool changed = false;
    if (Status s =
            core.database->RepairCounts(content_id, core.layout->BucketsOf(content_id), &changed);
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace

Status Reconcile(LikeCore& core, int64_t content_id, bool repair, ReconcileResponse* out) {
  Repairs repairs;
  if (Status s = Compare(core, content_id, out, &repairs); !s.ok()) return s;
  if (!repair || out->violations_size() == 0) return Status::Ok();
  storage::SqlLease lease(core.database->pool(), "like-repair:" + std::to_string(content_id),
                          core.process, std::chrono::seconds(60));
  bool held = false;
  if (Status s = lease.Acquire(&held); !s.ok()) return s;
  if (!held) {
    return Status(StatusCode::ABORTED, "content " + std::to_string(content_id) +
                                           " is being repaired by another provider");
  }
  const Status repaired = Repair(core, content_id, repairs);
  // A lease not given back expires within its minute; nothing is lost, a repair waits.
  static_cast<void>(lease.Release());
  if (!repaired.ok()) return repaired;
  ReconcileResponse before = *out;
  Repairs unused;
  if (Status s = Compare(core, content_id, out, &unused); !s.ok()) return s;
  // The report keeps what was found; repaired tells that it was brought in line.
  out->clear_violations();
  for (const std::string& v : before.violations()) out->add_violations(v);
  out->set_repaired(true);
  return Status::Ok();
}

}  // namespace ferry::like
