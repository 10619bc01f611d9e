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
  std::vector<std::string> command;
  if (!Command(index, keys, args, &command)) {
    std::string sha;
    if (Status status = Load(index, &sha); !status.ok()) return status;
    if (!Command(index, keys, args, &command)) return MalformedReply("SCRIPT LOAD");
  }
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

Status RedisScriptSet::EvalPipeline(const std::vector<Call>& calls,
                                    std::vector<RedisReplyPtr>* replies) {
  replies->clear();
  std::vector<std::vector<std::string>> commands(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& call = calls[i];
    if (call.index >= scripts_.size()) {
      return Status(StatusCode::INVALID_ARGUMENT, "no Redis script " + std::to_string(call.index));
    }
    if (!Command(call.index, call.keys, call.args, &commands[i])) {
      std::string sha;
      if (Status status = Load(call.index, &sha); !status.ok()) return status;
      if (!Command(call.index, call.keys, call.args, &commands[i])) {
        return MalformedReply("SCRIPT LOAD");
      }
    }
  }
  if (Status status = pool_->RunPipeline(commands, replies); !status.ok()) return status;
  // Scripts the server lost (a restart, SCRIPT FLUSH) are loaded again; their calls changed
  // nothing and go again, once.
  std::vector<size_t> again;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (IsErrorReply((*replies)[i].get(), "NOSCRIPT")) again.push_back(i);
  }
  if (again.empty()) return Status::Ok();
  std::vector<std::vector<std::string>> retry;
  for (size_t i : again) {
    if (Status status = Load(calls[i].index, &commands[i][1]); !status.ok()) return status;
    retry.push_back(commands[i]);
  }
  std::vector<RedisReplyPtr> retried;
  if (Status status = pool_->RunPipeline(retry, &retried); !status.ok()) return status;
  for (size_t j = 0; j < again.size(); ++j) (*replies)[again[j]] = std::move(retried[j]);
  return Status::Ok();
}

bool RedisScriptSet::Command(size_t index, const std::vector<std::string>& keys,
                             const std::vector<std::string>& args,
                             std::vector<std::string>* command) {
  std::string sha;
  {
    std::lock_guard lock(mu_);
    sha = shas_[index];
  }
  if (sha.empty()) return false;
  command->clear();
  command->reserve(3 + keys.size() + args.size());
  command->push_back("EVALSHA");
  command->push_back(std::move(sha));
  command->push_back(std::to_string(keys.size()));
  command->insert(command->end(), keys.begin(), keys.end());
  command->insert(command->end(), args.begin(), args.end());
  return true;
}

bool RedisScriptSet::EvalAsync(size_t index, const std::vector<std::string>& keys,
                               const std::vector<std::string>& args, AsyncDone done) {
  std::vector<std::string> command;
  if (index >= scripts_.size() || !Command(index, keys, args, &command)) return false;
  std::vector<std::vector<std::string>> commands;
  commands.push_back(std::move(command));
  return pool_->RunAsync(
      std::move(commands), [this, index, done = std::move(done)](
                               const Status& status, std::vector<RedisReplyPtr> replies) {
        if (!status.ok()) return done(AsyncOutcome::kFailed, status, nullptr);
        RedisReplyPtr reply = std::move(replies.front());
        if (IsErrorReply(reply.get(), "NOSCRIPT")) {
          return done(AsyncOutcome::kNotRun, Status::Ok(), nullptr);
        }
        if (reply->type == REDIS_REPLY_ERROR) {
          return done(AsyncOutcome::kFailed,
                      ErrorReplyStatus("EVALSHA " + std::string(scripts_[index].name), reply.get()),
                      nullptr);
        }
        done(AsyncOutcome::kAnswered, Status::Ok(), std::move(reply));
      });
}

}  // namespace ferry::storage
