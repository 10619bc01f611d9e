#include "redis_server.h"

#include <csignal>

#include <hiredis.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "process.h"

namespace ferry::testsupport {
namespace {

using namespace std::chrono_literals;

constexpr auto kStartTimeout = 30s;
constexpr auto kStopGrace = 10s;

}  // namespace

RedisServer::RedisServer(RedisServerOptions options)
    : options_(std::move(options)), dir_(internal::MakeTempDir("ferry-redis-")) {}

RedisServer::~RedisServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

::testing::AssertionResult RedisServer::Start() {
  if (dir_.empty()) return ::testing::AssertionFailure() << "cannot create a temporary directory";
  if (running()) return ::testing::AssertionSuccess();
  const bool port_chosen = port_ != 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  // A port picked here can be taken before the server binds it; then another one is tried.
  // A port kept from an earlier start is not given up: clients expect the server there.
  for (int attempt = 0; attempt < (port_chosen ? 1 : 3); ++attempt) {
    if (!port_chosen) port_ = internal::PickFreePort();
    bool port_taken = false;
    result = StartOnce(&port_taken);
    if (result || !port_taken) break;
  }
  if (!result && !port_chosen) port_ = 0;
  return result;
}

::testing::AssertionResult RedisServer::StartOnce(bool* port_taken) {
  if (access(FERRY_REDIS_SERVER, X_OK) != 0) {
    return ::testing::AssertionFailure()
           << "redis-server was not found when configuring (" FERRY_REDIS_SERVER
              "); install Debian's redis-server package (scripts/lib/common.sh) and re-run cmake";
  }
  if (port_ == 0) return ::testing::AssertionFailure() << "no free port on 127.0.0.1";
  std::error_code ec;
  std::filesystem::create_directories(data_dir(), ec);
  if (ec) {
    return ::testing::AssertionFailure() << "cannot create " << data_dir() << ": " << ec.message();
  }
  // No config file: everything on the command line. Loopback only, no RDB snapshots, no
  // background saves that could fork a second process the test does not know about.
  std::vector<std::string> args = {FERRY_REDIS_SERVER,
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--daemonize",
                                   "no",
                                   "--dir",
                                   data_dir().string(),
                                   "--save",
                                   "",
                                   "--appendonly",
                                   options_.appendonly ? "yes" : "no",
                                   "--logfile",
                                   log_path().string(),
                                   "--loglevel",
                                   "notice"};
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());

  std::string error;
  const uint64_t log_start = internal::FileSize(log_path());
  pid_ = internal::Spawn(args, log_path(), &error);
  if (pid_ < 0) return ::testing::AssertionFailure() << error;

  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (internal::Exited(pid_, &status)) {
      pid_ = -1;
      *port_taken = internal::LogShowsPortInUse(log_path(), log_start);
      return ::testing::AssertionFailure()
             << "redis-server exited during startup on port " << port_ << " ("
             << internal::DescribeStatus(status) << "); log:\n"
             << internal::FileTail(log_path(), log_start);
    }
    if (AnswersPing()) return ::testing::AssertionSuccess();
    std::this_thread::sleep_for(20ms);
  }
  Stop();
  return ::testing::AssertionFailure()
         << "redis-server did not answer PING on port " << port_ << " within 30 s; log:\n"
         << internal::FileTail(log_path(), log_start);
}

void RedisServer::Stop() {
  if (!running()) return;
  Resume();  // a paused server would not see the SIGTERM
  internal::Terminate(pid_, kStopGrace);
  pid_ = -1;
}

void RedisServer::Pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisServer::Resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

void RedisServer::Kill() {
  if (!running()) return;
  internal::KillNow(pid_);
  pid_ = -1;
}

::testing::AssertionResult RedisServer::Restart() {
  Stop();
  return Start();
}

::testing::AssertionResult RedisServer::RestartEmpty() {
  Kill();
  std::error_code ec;
  std::filesystem::remove_all(data_dir(), ec);
  if (ec) {
    return ::testing::AssertionFailure() << "cannot wipe " << data_dir() << ": " << ec.message();
  }
  return Start();
}

bool RedisServer::AnswersPing() const {
  const timeval timeout{.tv_sec = 1, .tv_usec = 0};
  redisContext* context = redisConnectWithTimeout("127.0.0.1", port_, timeout);
  if (context == nullptr) return false;
  bool pong = false;
  if (context->err == 0 && redisSetTimeout(context, timeout) == REDIS_OK) {
    auto* reply = static_cast<redisReply*>(redisCommand(context, "PING"));
    if (reply != nullptr) {
      pong = reply->type == REDIS_REPLY_STATUS && std::strcmp(reply->str, "PONG") == 0;
      freeReplyObject(reply);
    }
    // Another server that won the race for the port would answer too; ours has our pid.
    reply = pong ? static_cast<redisReply*>(redisCommand(context, "INFO server")) : nullptr;
    if (reply != nullptr) {
      const std::string info =
          reply->type == REDIS_REPLY_STRING ? std::string(reply->str, reply->len) : std::string();
      pong = info.find("process_id:" + std::to_string(pid_) + "\r\n") != std::string::npos;
      freeReplyObject(reply);
    } else {
      pong = false;
    }
  }
  redisFree(context);
  return pong;
}

}  // namespace ferry::testsupport
