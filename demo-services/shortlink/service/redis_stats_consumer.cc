#include "service/redis_stats_consumer.h"

#include <hiredis.h>

#include <algorithm>
#include <map>
#include <set>

#include "ferry/framework/logging.h"
#include "ferry/storage/transient_failure.h"
#include "service/visit_log.h"

#include <spdlog/spdlog.h>

namespace ferry::shortlink {

namespace {

using storage::RedisReplyPtr;

std::string Text(const redisReply* r) { return std::string(storage::ReplyText(r)); }

// One stream entry `[id, [field, value, ...]]`; an entry deleted meanwhile has no fields.
bool ParseEntry(const redisReply* r, std::string* id,
                std::vector<std::pair<std::string, std::string>>* fields) {
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !storage::IsTextReply(r->element[0])) {
    return false;
  }
  *id = Text(r->element[0]);
  const redisReply* f = r->element[1];
  if (f->type != REDIS_REPLY_ARRAY) return true;
  for (size_t i = 0; i + 1 < f->elements; i += 2) {
    fields->emplace_back(Text(f->element[i]), Text(f->element[i + 1]));
  }
  return true;
}

}  // namespace

Status RedisStatsConsumer::EnsureGroup() {
  RedisReplyPtr reply;
  if (Status s = redis_->Run({"XGROUP", "CREATE", options_.stream, options_.group, "0", "MKSTREAM"},
                             &reply);
      !s.ok()) {
    return s;
  }
  if (reply->type == REDIS_REPLY_ERROR && !storage::IsErrorReply(reply.get(), "BUSYGROUP")) {
    return storage::ErrorReplyStatus("XGROUP CREATE", reply.get());
  }
  group_ready_ = true;
  return Status::Ok();
}

Status RedisStatsConsumer::Claim(std::vector<Entry>* entries) {
  RedisReplyPtr reply;
  if (Status s = redis_->Run(
          {"XAUTOCLAIM", options_.stream, options_.group, options_.consumer,
           std::to_string(options_.claim_idle_ms), "0-0", "COUNT", std::to_string(options_.batch)},
          &reply);
      !s.ok()) {
    return s;
  }
  if (storage::IsErrorReply(reply.get(), "NOGROUP")) {
    group_ready_ = false;
    return Status::Ok();
  }
  if (reply->type == REDIS_REPLY_ERROR) return storage::ErrorReplyStatus("XAUTOCLAIM", reply.get());
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 2 ||
      reply->element[1]->type != REDIS_REPLY_ARRAY) {
    return storage::MalformedReply("XAUTOCLAIM");
  }
  const redisReply* list = reply->element[1];
  for (size_t i = 0; i < list->elements; ++i) {
    Entry e;
    if (!ParseEntry(list->element[i], &e.id, &e.fields))
      return storage::MalformedReply("XAUTOCLAIM");
    entries->push_back(std::move(e));
  }
  return Status::Ok();
}

Status RedisStatsConsumer::ReadNew(std::vector<Entry>* entries, bool* no_group) {
  RedisReplyPtr reply;
  if (Status s = redis_->Run({"XREADGROUP", "GROUP", options_.group, options_.consumer, "COUNT",
                              std::to_string(options_.batch), "STREAMS", options_.stream, ">"},
                             &reply);
      !s.ok()) {
    return s;
  }
  if (storage::IsErrorReply(reply.get(), "NOGROUP")) {
    *no_group = true;
    group_ready_ = false;
    return Status::Ok();
  }
  if (reply->type == REDIS_REPLY_NIL) return Status::Ok();
  if (reply->type == REDIS_REPLY_ERROR) return storage::ErrorReplyStatus("XREADGROUP", reply.get());
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 1 ||
      reply->element[0]->type != REDIS_REPLY_ARRAY || reply->element[0]->elements != 2) {
    return storage::MalformedReply("XREADGROUP");
  }
  const redisReply* list = reply->element[0]->element[1];
  for (size_t i = 0; i < list->elements; ++i) {
    Entry e;
    if (!ParseEntry(list->element[i], &e.id, &e.fields))
      return storage::MalformedReply("XREADGROUP");
    entries->push_back(std::move(e));
  }
  return Status::Ok();
}

// The dead-letter stream keeps an entry's original id and fields and why it was given up.
std::vector<std::string> RedisStatsConsumer::DeadLetter(const Entry& entry,
                                                        const std::string& reason) {
  std::vector<std::string> add = {
      "XADD", options_.stream + ":dead", "*", "entry", entry.id, "reason", reason};
  for (const auto& [name, value] : entry.fields) {
    add.push_back(name);
    add.push_back(value);
  }
  Logger().warn("shortlink: visit {} given up after {} deliveries ({}); moved to {}:dead", entry.id,
                entry.deliveries, reason, options_.stream);
  Metrics().dead_visits->Increment();
  return add;
}

// Claimed entries delivered more than max_deliveries times go to `<stream>:dead` and are
// acknowledged there and then: an event whose consumers keep dying must not stop the others.
// The others learn their delivery counts.
Status RedisStatsConsumer::DropOverDelivered(std::vector<Entry>* entries) {
  if (entries->empty()) return Status::Ok();
  RedisReplyPtr reply;
  if (Status s =
          redis_->Run({"XPENDING", options_.stream, options_.group, entries->front().id,
                       entries->back().id, std::to_string(entries->size() + 16), options_.consumer},
                      &reply);
      !s.ok()) {
    return s;
  }
  if (reply->type != REDIS_REPLY_ARRAY) return storage::ErrorReplyStatus("XPENDING", reply.get());
  std::map<std::string, int64_t> deliveries;
  for (size_t i = 0; i < reply->elements; ++i) {
    const redisReply* p = reply->element[i];
    if (p->type != REDIS_REPLY_ARRAY || p->elements != 4)
      return storage::MalformedReply("XPENDING");
    deliveries[Text(p->element[0])] = p->element[3]->integer;
  }
  std::vector<std::vector<std::string>> commands;
  std::vector<Entry> keep;
  for (Entry& e : *entries) {
    e.deliveries = std::max<int64_t>(1, deliveries[e.id]);
    if (e.deliveries <= options_.max_deliveries) {
      keep.push_back(std::move(e));
      continue;
    }
    commands.push_back(DeadLetter(e, "delivered too often"));
    commands.push_back({"XACK", options_.stream, options_.group, e.id});
    commands.push_back({"XDEL", options_.stream, e.id});
  }
  *entries = std::move(keep);
  if (commands.empty()) return Status::Ok();
  std::vector<RedisReplyPtr> replies;
  return redis_->RunPipeline(commands, &replies);
}

// Counts events[begin, end), halving a range the database refuses until each event it refuses
// is alone (log2 of the batch's size in extra transactions per bad event); their indexes go to
// `refused`. An unavailable database fails the whole call: nothing is refused for a reason
// that is not the event's.
Status RedisStatsConsumer::CountIsolating(const std::vector<VisitEvent>& events, size_t begin,
                                          size_t end, int* counted,
                                          std::vector<std::pair<size_t, Status>>* refused) {
  if (begin == end) return Status::Ok();
  const bool whole = begin == 0 && end == events.size();
  int counted_here = 0;
  Status s =
      whole ? stats_->Apply(events, now_ms_(), &counted_here)
            : stats_->Apply(std::vector<VisitEvent>(events.begin() + begin, events.begin() + end),
                            now_ms_(), &counted_here);
  if (s.ok()) *counted += counted_here;
  if (s.ok() || storage::IsTransientFailure(s)) return s;
  if (end - begin == 1) {
    refused->emplace_back(begin, std::move(s));
    return Status::Ok();
  }
  const size_t middle = begin + (end - begin) / 2;
  if (Status h = CountIsolating(events, begin, middle, counted, refused); !h.ok()) return h;
  return CountIsolating(events, middle, end, counted, refused);
}

// Gives entries back the delivery counts they had before this delivery, which failed for a
// reason that was not theirs.
Status RedisStatsConsumer::ForgetDeliveries(const std::vector<Entry>& entries) {
  std::map<int64_t, std::vector<std::string>> by_count;
  for (const Entry& e : entries) by_count[e.deliveries - 1].push_back(e.id);
  std::vector<std::vector<std::string>> commands;
  for (auto& [count, ids] : by_count) {
    std::vector<std::string> claim = {"XCLAIM", options_.stream, options_.group, options_.consumer,
                                      "0"};
    claim.insert(claim.end(), ids.begin(), ids.end());
    claim.insert(claim.end(), {"RETRYCOUNT", std::to_string(count), "JUSTID"});
    commands.push_back(std::move(claim));
  }
  std::vector<RedisReplyPtr> replies;
  return redis_->RunPipeline(commands, &replies);
}

Status RedisStatsConsumer::CountAndAck(const std::vector<Entry>& entries) {
  if (entries.empty()) return Status::Ok();
  std::vector<VisitEvent> events;
  std::vector<const Entry*> event_entries;  // events[i] came from *event_entries[i]
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string> done;  // to acknowledge and delete
  for (const Entry& e : entries) {
    VisitEvent event;
    if (e.fields.empty()) {
      done.push_back(e.id);  // deleted before this delivery: nothing left to count
    } else if (EventFromFields(e.fields, &event)) {
      events.push_back(std::move(event));
      event_entries.push_back(&e);
    } else {
      commands.push_back(DeadLetter(e, "malformed"));
      done.push_back(e.id);
    }
  }
  int counted = 0;
  std::vector<std::pair<size_t, Status>> refused;
  if (Status s = CountIsolating(events, 0, events.size(), &counted, &refused); !s.ok()) {
    if (Status f = ForgetDeliveries(entries); !f.ok()) {
      Logger().warn("shortlink: cannot restore delivery counts: {}", f.ToString());
    }
    return s;
  }
  Metrics().counted_visits->Increment(static_cast<uint64_t>(counted));
  // Committed: a failure from here on leaves the entries pending, to be claimed and found
  // counted already. A refused event stays pending until its last delivery.
  std::set<const Entry*> waiting;
  for (const auto& [index, why] : refused) {
    const Entry& e = *event_entries[index];
    if (e.deliveries < options_.max_deliveries) {
      Logger().warn("shortlink: visit {} refused by the database (delivery {}): {}", e.id,
                    e.deliveries, why.ToString());
      waiting.insert(&e);
    } else {
      commands.push_back(DeadLetter(e, why.ToString()));
    }
  }
  for (const Entry* e : event_entries) {
    if (!waiting.contains(e)) done.push_back(e->id);
  }
  if (!done.empty()) {
    std::vector<std::string> ack = {"XACK", options_.stream, options_.group};
    std::vector<std::string> del = {"XDEL", options_.stream};
    ack.insert(ack.end(), done.begin(), done.end());
    del.insert(del.end(), done.begin(), done.end());
    commands.push_back(std::move(ack));
    commands.push_back(std::move(del));
  }
  std::vector<RedisReplyPtr> replies;
  return redis_->RunPipeline(commands, &replies);
}

Status RedisStatsConsumer::Step(bool* more) {
  *more = false;
  if (!group_ready_) {
    if (Status s = EnsureGroup(); !s.ok()) return s;
  }
  std::vector<Entry> claimed;
  if (Status s = Claim(&claimed); !s.ok()) return s;
  const bool claimed_full = static_cast<int>(claimed.size()) == options_.batch;
  if (Status s = DropOverDelivered(&claimed); !s.ok()) return s;
  if (Status s = CountAndAck(claimed); !s.ok()) return s;
  std::vector<Entry> fresh;
  bool no_group = false;
  if (Status s = ReadNew(&fresh, &no_group); !s.ok()) return s;
  if (Status s = CountAndAck(fresh); !s.ok()) return s;
  *more = no_group || claimed_full || static_cast<int>(fresh.size()) == options_.batch;
  return Status::Ok();
}

}  // namespace ferry::shortlink
