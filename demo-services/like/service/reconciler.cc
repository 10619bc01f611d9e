#include "service/reconciler.h"

#include <string>

namespace ferry::like {

namespace {

void Compare(ReconcileResponse* out, const char* what, int64_t value, int64_t record) {
  if (value == record) return;
  out->add_violations(std::string(what) + " " + std::to_string(value) +
                      " != database detail rows " + std::to_string(record));
}

Status Report(LikeCore& core, int64_t content_id, ReconcileResponse* out) {
  out->Clear();
  DatabaseCounts db;
  if (Status s = core.database->Counts(content_id, &db); !s.ok()) return s;
  out->set_database_likes(db.likes);
  out->set_database_count(db.counted);
  out->set_cache_count(-1);
  out->set_cache_members(-1);
  if (core.outbox_relayed) out->set_pending_events(db.outbox);
  if (core.redis == nullptr) return Status::Ok();
  CacheCounts cache;
  if (Status s = core.redis->ReadCacheCounts(content_id, &cache); !s.ok()) return s;
  out->set_cache_count(cache.count);
  out->set_cache_members(cache.members);
  out->set_pending_events(out->pending_events() + cache.pending);
  return Status::Ok();
}

void FindViolations(ReconcileResponse* out) {
  Compare(out, "database count rows", out->database_count(), out->database_likes());
  if (out->cache_count() < 0) return;
  Compare(out, "Redis bucket counts", out->cache_count(), out->database_likes());
  Compare(out, "Redis memberships", out->cache_members(), out->database_likes());
}

}  // namespace

Status Reconcile(LikeCore& core, int64_t content_id, bool repair, ReconcileResponse* out) {
  if (Status s = Report(core, content_id, out); !s.ok()) return s;
  if (out->pending_events() > 0) return Status::Ok();  // not quiescent: nothing to judge yet
  FindViolations(out);
  // Rewritten even when the sums agree: a layout changed by configuration shows in no sum.
  if (!repair) return Status::Ok();
  bool changed = false;
  if (Status s = core.database->RepairCounts(content_id, *core.layout, &changed); !s.ok()) {
    return s;
  }
  if (core.redis != nullptr) {
    for (uint32_t b = 0; b < core.layout->BucketsOf(content_id); ++b) {
      if (Status s = core.redis->LoadBucket(content_id, b, true); !s.ok()) return s;
    }
  }
  ReconcileResponse before = *out;
  if (Status s = Report(core, content_id, out); !s.ok()) return s;
  // The report keeps what was found; repaired tells that it was rewritten.
  out->clear_violations();
  for (const std::string& v : before.violations()) out->add_violations(v);
  out->set_repaired(true);
  return Status::Ok();
}

}  // namespace ferry::like
