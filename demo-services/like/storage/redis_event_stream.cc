#include "storage/redis_event_stream.h"

#include <hiredis.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "storage/redis_like_keys.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::IsErrorReply;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyText;

namespace {

// Streams per XREADGROUP: one call reads many buckets, without an unbounded command.
constexpr size_t kStreamsPerRead = 64;

bool ParseInt(std::string_view text, int64_t* value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

// [id, [field, value, ...]] as the set_like script appends it.
bool ParseEntry(const std::string& stream, const redisReply* entry, LikeEvent* event) {
  if (entry == nullptr || entry->type != REDIS_REPLY_ARRAY || entry->elements != 2) return false;
  const redisReply* fields = entry->element[1];
  if (!IsTextReply(entry->element[0]) || fields == nullptr || fields->type != REDIS_REPLY_ARRAY ||
      fields->elements % 2 != 0) {
    return false;
  }
  *event = LikeEvent{.stream = stream, .entry_id = std::string(ReplyText(entry->element[0]))};
  int64_t bucket = -1;
  unsigned seen = 0;
  for (size_t i = 0; i < fields->elements; i += 2) {
    if (!IsTextReply(fields->element[i]) || !IsTextReply(fields->element[i + 1])) return false;
    const std::string_view name = ReplyText(fields->element[i]);
    const std::string_view value = ReplyText(fields->element[i + 1]);
    bool ok = true;
    if (name == "c") {
      ok = ParseInt(value, &event->content_id);
      seen |= 1;
    } else if (name == "u") {
      event->user_id = std::string(value);
      seen |= 2;
    } else if (name == "l") {
      event->liked = value == "1";
      seen |= 4;
    } else if (name == "v") {
      ok = ParseInt(value, &event->version);
      seen |= 8;
    } else if (name == "b") {
      ok = ParseInt(value, &bucket) && bucket >= 0;
      seen |= 16;
    }
    if (!ok) return false;
  }
  event->bucket = static_cast<uint32_t>(bucket);
  return seen == 31;
}

// Entries that do not parse are still returned (content 0) so that they are dead-lettered
// instead of blocking their stream.
void AppendEntries(const std::string& stream, const redisReply* entries,
                   std::vector<LikeEvent>* out) {
  for (size_t i = 0; i < entries->elements; ++i) {
    LikeEvent event;
    if (!ParseEntry(stream, entries->element[i], &event)) {
      const redisReply* e = entries->element[i];
      if (e == nullptr || e->type != REDIS_REPLY_ARRAY || e->elements < 1 ||
          !IsTextReply(e->element[0])) {
        continue;  // an entry deleted while pending (XAUTOCLAIM's nil)
      }
      event = LikeEvent{.stream = stream, .entry_id = std::string(ReplyText(e->element[0]))};
    }
    out->push_back(std::move(event));
  }
}

}  // namespace

Status RedisEventStream::Streams(std::vector<std::string>* out) {
  RedisReplyPtr reply;
  if (Status s = pool_->Run({"SMEMBERS", kStreamRegistry}, &reply); !s.ok()) return s;
  if (reply->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("SMEMBERS", reply.get());
  out->clear();
  for (size_t i = 0; i < reply->elements; ++i) out->emplace_back(ReplyText(reply->element[i]));
  return Status::Ok();
}

Status RedisEventStream::Read(const std::string& consumer, int max_count, Scope scope,
                              std::vector<LikeEvent>* out) {
  out->clear();
  std::vector<std::string> streams;
  if (scope == Scope::kEvery) {
    if (Status s = Streams(&streams); !s.ok()) return s;
  } else {
    streams = appended_->TakeAll();
  }
  for (size_t first = 0; first < streams.size(); first += kStreamsPerRead) {
    if (scope == Scope::kAppended && out->size() >= static_cast<size_t>(max_count)) {
      appended_->Add(std::vector<std::string>(streams.begin() + first, streams.end()));
      break;
    }
    const size_t n = std::min(kStreamsPerRead, streams.size() - first);
    if (Status s = ReadSome(consumer, max_count, {streams.data() + first, n}, out); !s.ok()) {
      // Unread, so still to be read: the hint stays.
      if (scope == Scope::kAppended) {
        appended_->Add(std::vector<std::string>(streams.begin() + first, streams.end()));
      }
      return s;
    }
  }
  return Status::Ok();
}

Status RedisEventStream::ReadSome(const std::string& consumer, int max_count,
                                  std::span<const std::string> streams,
                                  std::vector<LikeEvent>* out) {
  std::vector<std::string> command = {"XREADGROUP", "GROUP", kWritersGroup,
                                      consumer,     "COUNT", std::to_string(max_count),
                                      "STREAMS"};
  command.insert(command.end(), streams.begin(), streams.end());
  command.insert(command.end(), streams.size(), ">");
  RedisReplyPtr reply;
  if (Status s = pool_->Run(command, &reply); !s.ok()) return s;
  const redisReply* r = reply.get();
  if (IsErrorReply(r, "NOGROUP")) {
    // A registered stream without its group (Redis lost data between the two): recreate
    // both, and read them on the next step.
    std::vector<std::vector<std::string>> create;
    for (const std::string& stream : streams) {
      create.push_back({"XGROUP", "CREATE", stream, kWritersGroup, "0", "MKSTREAM"});
    }
    std::vector<RedisReplyPtr> ignored;
    if (Status s = pool_->RunPipeline(create, &ignored); !s.ok()) return s;
    appended_->Add(std::vector<std::string>(streams.begin(), streams.end()));
    return Status::Ok();
  }
  if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XREADGROUP", r);
  if (r->type == REDIS_REPLY_NIL) return Status::Ok();
  if (r->type != REDIS_REPLY_ARRAY) return MalformedReply("XREADGROUP");
  // [[stream, [entry, ...]], ...]
  for (size_t i = 0; i < r->elements; ++i) {
    const redisReply* s = r->element[i];
    if (s->type != REDIS_REPLY_ARRAY || s->elements != 2 || !IsTextReply(s->element[0]) ||
        s->element[1]->type != REDIS_REPLY_ARRAY) {
      return MalformedReply("XREADGROUP");
    }
    std::string stream(ReplyText(s->element[0]));
    AppendEntries(stream, s->element[1], out);
    if (s->element[1]->elements >= static_cast<size_t>(max_count)) appended_->Add(stream);
  }
  return Status::Ok();
}

Status RedisEventStream::Claim(const std::string& consumer, int64_t min_idle_ms, int max_count,
                               std::vector<LikeEvent>* out) {
  out->clear();
  std::vector<std::string> streams;
  if (Status s = Streams(&streams); !s.ok()) return s;
  for (size_t first = 0; first < streams.size(); first += kStreamsPerRead) {
    const size_t n = std::min(kStreamsPerRead, streams.size() - first);
    if (Status s = ClaimSome(consumer, min_idle_ms, max_count, {streams.data() + first, n}, out);
        !s.ok()) {
      return s;
    }
  }
  return AddDeliveries(*out);
}

Status RedisEventStream::ClaimSome(const std::string& consumer, int64_t min_idle_ms, int max_count,
                                   std::span<const std::string> streams,
                                   std::vector<LikeEvent>* out) {
  std::vector<std::vector<std::string>> commands;
  for (const std::string& stream : streams) {
    commands.push_back({"XAUTOCLAIM", stream, kWritersGroup, consumer, std::to_string(min_idle_ms),
                        "0-0", "COUNT", std::to_string(max_count)});
  }
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  for (size_t i = 0; i < streams.size(); ++i) {
    const redisReply* r = replies[i].get();
    if (IsErrorReply(r, "NOGROUP")) continue;  // Read recreates it
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XAUTOCLAIM", r);
    // [cursor, [entry, ...], [deleted id, ...]]
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 ||
        r->element[1]->type != REDIS_REPLY_ARRAY) {
      return MalformedReply("XAUTOCLAIM");
    }
    AppendEntries(streams[i], r->element[1], out);
  }
  return Status::Ok();
}

Status RedisEventStream::AddDeliveries(std::span<LikeEvent> events) {
  if (events.empty()) return Status::Ok();
  std::vector<std::vector<std::string>> commands;
  for (const LikeEvent& e : events) {
    commands.push_back({"XPENDING", e.stream, kWritersGroup, e.entry_id, e.entry_id, "1"});
  }
  std::vector<RedisReplyPtr> pending;
  if (Status s = pool_->RunPipeline(commands, &pending); !s.ok()) return s;
  for (size_t i = 0; i < events.size(); ++i) {
    const redisReply* p = pending[i].get();
    // [[id, consumer, idle, deliveries]]
    if (p != nullptr && p->type == REDIS_REPLY_ARRAY && p->elements == 1 &&
        p->element[0]->type == REDIS_REPLY_ARRAY && p->element[0]->elements == 4 &&
        p->element[0]->element[3]->type == REDIS_REPLY_INTEGER) {
      events[i].deliveries = p->element[0]->element[3]->integer;
    }
  }
  return Status::Ok();
}

Status RedisEventStream::Ack(const std::vector<LikeEvent>& events) {
  if (events.empty()) return Status::Ok();
  // One XACK and one XDEL per stream, with all of its ids.
  std::map<std::string_view, std::vector<std::string_view>> ids;
  for (const LikeEvent& e : events) ids[e.stream].push_back(e.entry_id);
  std::vector<std::vector<std::string>> commands;
  for (const auto& [stream, entries] : ids) {
    std::vector<std::string> ack = {"XACK", std::string(stream), kWritersGroup};
    std::vector<std::string> del = {"XDEL", std::string(stream)};
    ack.insert(ack.end(), entries.begin(), entries.end());
    del.insert(del.end(), entries.begin(), entries.end());
    commands.push_back(std::move(ack));
    commands.push_back(std::move(del));
  }
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  for (const RedisReplyPtr& r : replies) {
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XACK", r.get());
  }
  return Status::Ok();
}

}  // namespace ferry::like
