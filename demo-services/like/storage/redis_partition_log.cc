#include "storage/redis_partition_log.h"

#include <hiredis.h>

#include <charconv>

#include "storage/redis_like_keys.h"
#include "storage/redis_like_scripts.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyInt;
using storage::ReplyText;

namespace {

bool ParseInt(std::string_view text, int64_t* value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

std::pair<uint64_t, uint64_t> StreamId(std::string_view id) {
  std::pair<uint64_t, uint64_t> out{0, 0};
  const size_t dash = id.find('-');
  std::from_chars(id.data(), id.data() + std::min(dash, id.size()), out.first);
  if (dash != std::string_view::npos) {
    std::from_chars(id.data() + dash + 1, id.data() + id.size(), out.second);
  }
  return out;
}

// [id, [field, value, ...]] as the set_like script appends it.
void ParseEntry(const redisReply* entry, StreamEntry* out) {
  *out = {};
  if (entry == nullptr || entry->type != REDIS_REPLY_ARRAY || entry->elements != 2 ||
      !IsTextReply(entry->element[0])) {
    return;
  }
  out->id = std::string(ReplyText(entry->element[0]));
  const redisReply* fields = entry->element[1];
  if (fields == nullptr || fields->type != REDIS_REPLY_ARRAY || fields->elements % 2 != 0) return;
  LikeEvent& e = out->event;
  int64_t bucket = -1;
  unsigned seen = 0;
  for (size_t i = 0; i < fields->elements; i += 2) {
    if (!IsTextReply(fields->element[i]) || !IsTextReply(fields->element[i + 1])) return;
    const std::string_view name = ReplyText(fields->element[i]);
    const std::string_view value = ReplyText(fields->element[i + 1]);
    bool ok = true;
    if (name == "c") {
      ok = ParseInt(value, &e.content_id) && e.content_id > 0;
      seen |= 1;
    } else if (name == "u") {
      e.user_id = std::string(value);
      ok = !e.user_id.empty();
      seen |= 2;
    } else if (name == "l") {
      ok = value == "0" || value == "1";
      e.liked = value == "1";
      seen |= 4;
    } else if (name == "v") {
      ok = ParseInt(value, &e.version) && e.version > 0;
      seen |= 8;
    } else if (name == "b") {
      ok = ParseInt(value, &bucket) && bucket >= 0 && bucket < 1024;
      seen |= 16;
    } else if (name == "r") {
      ok = ParseInt(value, &e.redrives);
    }
    if (!ok) return;
  }
  e.bucket = static_cast<uint32_t>(bucket);
  e.entry_id = out->id;
  out->parsed = seen == 31;
}

}  // namespace

bool StreamIdBefore(std::string_view a, std::string_view b) { return StreamId(a) < StreamId(b); }

Status RedisPartitionLog::Acquire(const std::string& holder, int64_t ttl_ms,
                                  const std::vector<uint32_t>& wanted,
                                  std::vector<uint32_t>* taken) {
  taken->clear();
  if (wanted.empty()) return Status::Ok();
  std::vector<std::vector<std::string>> commands;
  for (uint32_t p : wanted) {
    commands.push_back(
        {"SET", PartitionKeys::For(p).owner, holder, "NX", "PX", std::to_string(ttl_ms)});
  }
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (replies[i]->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("SET", replies[i].get());
    if (IsTextReply(replies[i].get())) taken->push_back(wanted[i]);  // OK; nil when held
  }
  return Status::Ok();
}

Status RedisPartitionLog::Renew(const std::string& holder, int64_t ttl_ms,
                                const std::set<uint32_t>& held, std::vector<uint32_t>* lost) {
  lost->clear();
  std::vector<storage::RedisScriptSet::Call> calls;
  for (uint32_t p : held) {
    calls.push_back({.index = kRenewLease,
                     .keys = {PartitionKeys::For(p).owner},
                     .args = {holder, std::to_string(ttl_ms)}});
  }
  if (calls.empty()) return Status::Ok();
  std::vector<RedisReplyPtr> replies;
  if (Status s = scripts_->EvalPipeline(calls, &replies); !s.ok()) return s;
  size_t i = 0;
  for (uint32_t p : held) {
    const redisReply* r = replies[i++].get();
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("EVALSHA renew_lease", r);
    if (r->type != REDIS_REPLY_INTEGER || r->integer != 1) lost->push_back(p);
  }
  return Status::Ok();
}

Status RedisPartitionLog::Release(const std::string& holder, const std::set<uint32_t>& held) {
  std::vector<storage::RedisScriptSet::Call> calls;
  for (uint32_t p : held) {
    calls.push_back(
        {.index = kReleaseLease, .keys = {PartitionKeys::For(p).owner}, .args = {holder}});
  }
  if (calls.empty()) return Status::Ok();
  std::vector<RedisReplyPtr> replies;
  return scripts_->EvalPipeline(calls, &replies);
}

Status RedisPartitionLog::Generations(const std::set<uint32_t>& partitions,
                                      std::map<uint32_t, int64_t>* out) {
  out->clear();
  std::vector<std::vector<std::string>> commands;
  for (uint32_t p : partitions)
    commands.push_back({"HGET", PartitionKeys::For(p).generation, "gen"});
  if (commands.empty()) return Status::Ok();
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  size_t i = 0;
  for (uint32_t p : partitions) {
    const redisReply* r = replies[i++].get();
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("HGET", r);
    int64_t generation = 0;
    if (!ReplyInt(r, &generation)) return MalformedReply("HGET generation");
    (*out)[p] = generation;
  }
  return Status::Ok();
}

Status RedisPartitionLog::Read(const std::map<uint32_t, std::string>& after, int count,
                               std::map<uint32_t, std::vector<StreamEntry>>* out) {
  out->clear();
  if (after.empty()) return Status::Ok();
  // One XREAD of every stream: they are keys of different slots, which one Redis serves in one
  // command (a cluster would take one per node).
  std::vector<std::string> command = {"XREAD", "COUNT", std::to_string(count), "STREAMS"};
  std::map<std::string, uint32_t> by_stream;
  for (const auto& [p, id] : after) {
    command.push_back(PartitionKeys::For(p).stream);
    by_stream[command.back()] = p;
  }
  for (const auto& [p, id] : after) command.push_back(id);
  RedisReplyPtr reply;
  if (Status s = pool_->Run(command, &reply); !s.ok()) return s;
  const redisReply* r = reply.get();
  if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XREAD", r);
  if (r->type == REDIS_REPLY_NIL) return Status::Ok();
  if (r->type != REDIS_REPLY_ARRAY) return MalformedReply("XREAD");
  // [[stream, [entry, ...]], ...]
  for (size_t i = 0; i < r->elements; ++i) {
    const redisReply* s = r->element[i];
    if (s->type != REDIS_REPLY_ARRAY || s->elements != 2 || !IsTextReply(s->element[0]) ||
        s->element[1]->type != REDIS_REPLY_ARRAY) {
      return MalformedReply("XREAD");
    }
    auto it = by_stream.find(std::string(ReplyText(s->element[0])));
    if (it == by_stream.end()) return MalformedReply("XREAD");
    std::vector<StreamEntry>& entries = (*out)[it->second];
    for (size_t j = 0; j < s->element[1]->elements; ++j) {
      StreamEntry entry;
      ParseEntry(s->element[1]->element[j], &entry);
      if (entry.id.empty()) return MalformedReply("XREAD entry");
      entry.event.stream = std::string(ReplyText(s->element[0]));
      entries.push_back(std::move(entry));
    }
  }
  return Status::Ok();
}

Status RedisPartitionLog::Trim(uint32_t partition, const std::string& min_id) {
  RedisReplyPtr reply;
  if (Status s =
          pool_->Run({"XTRIM", PartitionKeys::For(partition).stream, "MINID", min_id}, &reply);
      !s.ok()) {
    return s;
  }
  return reply->type == REDIS_REPLY_ERROR ? ErrorReplyStatus("XTRIM", reply.get()) : Status::Ok();
}

Status RedisPartitionLog::LastIds(const std::vector<uint32_t>& partitions,
                                  std::map<uint32_t, std::string>* out) {
  out->clear();
  std::vector<std::vector<std::string>> commands;
  for (uint32_t p : partitions) {
    commands.push_back({"XREVRANGE", PartitionKeys::For(p).stream, "+", "-", "COUNT", "1"});
  }
  if (commands.empty()) return Status::Ok();
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  for (size_t i = 0; i < partitions.size(); ++i) {
    const redisReply* r = replies[i].get();
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XREVRANGE", r);
    std::string id = "0-0";
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 1) {
      StreamEntry entry;
      ParseEntry(r->element[0], &entry);
      if (!entry.id.empty()) id = entry.id;
    }
    (*out)[partitions[i]] = id;
  }
  return Status::Ok();
}

Status RedisPartitionLog::TrimTombstones(uint32_t partition, int64_t before_version, uint32_t limit,
                                         int64_t* dropped) {
  *dropped = 0;
  const PartitionKeys keys = PartitionKeys::For(partition);
  RedisReplyPtr listed;
  if (Status s = pool_->Run(
          {"ZRANGEBYSCORE", keys.tombstones, "-inf", "(" + std::to_string(before_version),
           "WITHSCORES", "LIMIT", "0", std::to_string(limit)},
          &listed);
      !s.ok()) {
    return s;
  }
  if (listed->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("ZRANGEBYSCORE", listed.get());
  if (listed->type != REDIS_REPLY_ARRAY || listed->elements == 0) return Status::Ok();
  storage::RedisScriptSet::Call call{.index = kTrimTombstones, .keys = {keys.tombstones}};
  std::map<std::string, size_t> versions_keys;
  for (size_t i = 0; i + 1 < listed->elements; i += 2) {
    // "<content>:<bucket>:<user>"
    const std::string member(ReplyText(listed->element[i]));
    const size_t first = member.find(':');
    const size_t second = first == std::string::npos ? first : member.find(':', first + 1);
    int64_t content = 0;
    int64_t bucket = 0;
    if (second == std::string::npos ||
        !ParseInt(std::string_view(member).substr(0, first), &content) ||
        !ParseInt(std::string_view(member).substr(first + 1, second - first - 1), &bucket)) {
      continue;
    }
    const std::string versions =
        BucketKeys::For(content, static_cast<uint32_t>(bucket), partitions_).versions;
    auto [it, added] = versions_keys.try_emplace(versions, call.keys.size() + 1);
    if (added) call.keys.push_back(versions);
    int64_t score = 0;
    if (!ReplyInt(listed->element[i + 1], &score)) continue;
    call.args.insert(call.args.end(), {std::to_string(it->second), member.substr(second + 1),
                                       std::to_string(score), member});
  }
  if (call.args.empty()) return Status::Ok();
  std::vector<RedisReplyPtr> replies;
  if (Status s = scripts_->EvalPipeline({call}, &replies); !s.ok()) return s;
  if (replies[0]->type == REDIS_REPLY_ERROR) {
    return ErrorReplyStatus("EVALSHA trim_tombstones", replies[0].get());
  }
  ReplyInt(replies[0].get(), dropped);
  return Status::Ok();
}

}  // namespace ferry::like
