#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_reply.h"

namespace ferry::storage {

// A Lua script a service runs on Redis. The source must outlive the RedisScriptSet that runs
// it (a string literal does).
struct RedisScript {
  std::string_view name;  // for error messages
  std::string_view source;
};

// A service's Lua scripts, run by EVALSHA over a RedisConnectionPool; safe to use from many
// threads. Redis keeps loaded scripts in a cache it loses on a restart, a failover or SCRIPT
// FLUSH; a call that meets NOSCRIPT loads its script again and repeats once, so callers never
// see it. A script is loaded on its first call, or up front with LoadAll().
class RedisScriptSet {
 public:
  // `pool` must outlive the set. Scripts are named by their index in `scripts`.
  RedisScriptSet(RedisConnectionPool* pool, std::vector<RedisScript> scripts);

  // SCRIPT LOAD of every script, in one pipeline on one connection. UNAVAILABLE with the
  // address when Redis is unreachable.
  Status LoadAll();

  // EVALSHA scripts()[index] with `keys` and `args` (binary-safe). An error reply becomes a
  // status (ErrorReplyStatus: UNAVAILABLE when transient, else INTERNAL with the script's
  // message), so *reply is a script's answer whenever this returns OK. A connection failure is
  // UNAVAILABLE, and whether the script ran is then unknown.
  Status Eval(size_t index, const std::vector<std::string>& keys,
              const std::vector<std::string>& args, RedisReplyPtr* reply);

  // One script call of EvalPipeline.
  struct Call {
    size_t index;
    std::vector<std::string> keys;
    std::vector<std::string> args;
  };
  // The calls in one pipeline (one round trip), an answer each: (*replies)[i] is calls[i]'s
  // answer, or its error reply (unlike Eval, which makes those statuses: a pipeline's calls
  // fail alone). Scripts Redis lost are loaded again and their calls repeated.
  Status EvalPipeline(const std::vector<Call>& calls, std::vector<RedisReplyPtr>* replies);

  // How EvalAsync ends. kNotRun: the script surely did not run (NOSCRIPT: Redis lost it), so
  // the caller may Eval it instead, which loads it again.
  enum class AsyncOutcome { kAnswered, kFailed, kNotRun };
  using AsyncDone =
      std::function<void(AsyncOutcome outcome, const Status& status, RedisReplyPtr reply)>;
  // Eval without waiting (RedisConnectionPool::RunAsync): `done`, on the pool's asynchronous
  // thread, gets the script's answer (kAnswered) or, as Eval would return it, the failure
  // (kFailed). False, with `done` not called, when the script has not been loaded yet or the
  // asynchronous queue is full: Eval it instead.
  bool EvalAsync(size_t index, const std::vector<std::string>& keys,
                 const std::vector<std::string>& args, AsyncDone done);

  const std::vector<RedisScript>& scripts() const { return scripts_; }

 private:
  Status Load(size_t index, std::string* sha);
  Status LoadFailed(size_t index, const Status& status) const;
  // EVALSHA's command, or false when the script's SHA is not known yet.
  bool Command(size_t index, const std::vector<std::string>& keys,
               const std::vector<std::string>& args, std::vector<std::string>* command);

  RedisConnectionPool* const pool_;
  const std::vector<RedisScript> scripts_;
  std::mutex mu_;
  std::vector<std::string> shas_;  // guarded by mu_; empty until loaded
};

}  // namespace ferry::storage
