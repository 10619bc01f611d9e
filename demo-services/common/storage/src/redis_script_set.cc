#include "ferry/storage/redis_script_set.h"

#include <hiredis.h>

#include <utility>

namespace ferry::storage {

RedisScriptSet::RedisScriptSet(RedisConnectionPool* pool, std::vector<RedisScript> scripts)
    : pool_(pool), scripts_(std::move(scripts)), shas_(scripts_.size()) {}

Status RedisScriptSet::LoadFailed(size_t index, const Status& status) const {
  return Status(status.code(), "loading the " + std::string(scripts_[index].name) +
                                   " script: " + status.message());
}

Status RedisScriptSet::Load(size_t index, std::string* sha) {
  RedisReplyPtr reply;
  Status status = pool_->Run({"SCRIPT", "LOAD", std::string(scripts_[index].source)}, &reply);
  if (status.ok() && reply->type == REDIS_REPLY_ERROR) {
    status = ErrorReplyStatus("SCRIPT LOAD", reply.get());
  }
  if (!status.ok()) return LoadFailed(index, status);
  if (!IsTextReply(reply.get())) return MalformedReply("SCRIPT LOAD");
  *sha = std::string(ReplyText(reply.get()));
  std::lock_guard lock(mu_);
  shas_[index] = *sha;
  return Status::Ok();
}

Status RedisScriptSet::LoadAll() {
  std::vector<std::vector<std::string>> commands;
  for (const RedisScript& script : scripts_) {
    commands.push_back({"SCRIPT", "LOAD", std::string(script.source)});
  }
  std::vector<RedisReplyPtr> replies;
  if (Status status = pool_->RunPipeline(commands, &replies); !status.ok()) {
    return Status(status.code(),
                  "Redis at " + pool_->address() + " is unreachable: " + status.message());
  }
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < scripts_.size(); ++i) {
    const redisReply* reply = replies[i].get();
    if (reply->type == REDIS_REPLY_ERROR) {
      return LoadFailed(i, ErrorReplyStatus("SCRIPT LOAD", reply));
    }
    if (!IsTextReply(reply)) return MalformedReply("SCRIPT LOAD");
    shas_[i] = std::string(ReplyText(reply));
  }
  return Status::Ok();
}

Status RedisScriptSet::Eval(size_t index, const std::vector<std::string>& keys,
                            const std::vector<std::string>& args, RedisReplyPtr* reply) {
  if (index >= scripts_.size()) {
    return Status(StatusCode::INVALID_ARGUMENT, "no Redis script " + std::to_string(index));
  }
  std::string sha;
  {
    std::lock_guard lock(mu_);
    sha = shas_[index];
  }
  if (sha.empty()) {
    if (Status status = Load(index, &sha); !status.ok()) return status;
  }
  std::vector<std::string> command;
  command.reserve(3 + keys.size() + args.size());
  command.push_back("EVALSHA");
  command.push_back(sha);
  command.push_back(std::to_string(keys.size()));
  command.insert(command.end(), keys.begin(), keys.end());
  command.insert(command.end(), args.begin(), args.end());
  for (int attempt = 0;; ++attempt) {
    if (Status status = pool_->Run(command, reply); !status.ok()) return status;
    if (attempt == 0 && IsErrorReply(reply->get(), "NOSCRIPT")) {
      if (Status status = Load(index, &command[1]); !status.ok()) return status;
      continue;
    }
    if ((*reply)->type == REDIS_REPLY_ERROR) {
      return ErrorReplyStatus("EVALSHA " + std::string(scripts_[index].name), reply->get());
    }
    return Status::Ok();
  }
}

}  // namespace ferry::storage
