#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>
#include <zookeeper/zookeeper.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace ferry::testsupport {

// A real standalone ZooKeeper server (Debian's `zookeeper` package, run as
// `java ... ZooKeeperServerMain zoo.cfg`) on 127.0.0.1 at a kernel-chosen port, with its data
// and log in a temporary directory removed on destruction. The JVM's output goes to that log,
// never to the test's output. Stop() and Start() again reuse the port and the data, so the
// server comes back with the same znodes and sessions, as after a real restart.
class ZooKeeperServer {
 public:
  ZooKeeperServer();
  ~ZooKeeperServer();  // Stop(), then removes the directory
  ZooKeeperServer(const ZooKeeperServer&) = delete;
  ZooKeeperServer& operator=(const ZooKeeperServer&) = delete;

  // Starts the JVM and waits (up to 30 s) until the server answers `ruok`. On failure the
  // result carries the tail of the server's log.
  ::testing::AssertionResult Start();
  // SIGTERM, SIGKILL after 10 s; waits for the process to exit. No-op when not running.
  void Stop();
  ::testing::AssertionResult Restart() {
    Stop();
    return Start();
  }

  // SIGSTOP and SIGCONT: a server that has its connections and answers none of them, like one
  // stalled in a long GC pause; clients connecting meanwhile wait for their handshake.
  void Pause();
  void Resume();

  // Picks the port now, without starting, for clients that are to find no ZooKeeper there at
  // first: Start() then takes this port (only this one, so a port taken meanwhile fails it).
  uint16_t ChoosePort();

  bool running() const { return pid_ > 0; }
  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string url() const { return "zookeeper://" + address(); }
  std::filesystem::path log_path() const { return dir_ / "zookeeper.log"; }

 private:
  ::testing::AssertionResult StartOnce();
  bool AnswersRuok() const;
  std::string LogTail() const;

  std::filesystem::path dir_;
  uint16_t port_ = 0;  // chosen on the first Start(), kept afterwards
  pid_t pid_ = -1;
};

// A plain C-client session for tests that poke at znodes directly (malformed data, leftover
// nodes, another client's session). Connects in the constructor, waiting up to 10 s; check
// connected() before use.
class RawZooKeeperClient {
 public:
  // With `session`, joins that existing session instead of opening a new one; expired() tells
  // when it no longer exists.
  explicit RawZooKeeperClient(const std::string& hosts, const clientid_t* session = nullptr);
  ~RawZooKeeperClient();  // closes the session (if connected): its ephemeral nodes go away
  RawZooKeeperClient(const RawZooKeeperClient&) = delete;
  RawZooKeeperClient& operator=(const RawZooKeeperClient&) = delete;

  bool connected() const { return state_ == ZOO_CONNECTED_STATE; }
  bool expired() const { return state_ == ZOO_EXPIRED_SESSION_STATE; }
  zhandle_t* handle() const { return zh_; }
  int64_t session_id() const { return zoo_client_id(zh_)->client_id; }

  // Creates `path` (and missing ancestors as empty persistent nodes) holding `data`.
  int Create(const std::string& path, const std::string& data, int mode);
  // ZNONODE when absent; otherwise fills `stat` and, if given, `data`.
  int Get(const std::string& path, Stat* stat, std::string* data = nullptr);

 private:
  struct SessionEvents;  // where the C client's thread reports state changes
  static void OnSessionEvent(zhandle_t* zh, int type, int state, const char* path, void* context);

  std::unique_ptr<SessionEvents> events_;
  zhandle_t* zh_ = nullptr;
  int state_ = 0;  // as of the end of the constructor
};

// Expires `session` the documented way: a second client joins it with the same id and
// password, then closes it. The owner may win the session back before the close reaches the
// server (it reconnects within milliseconds, sooner still when the machine is busy), so this
// repeats until joining reports the session expired, for at most 30 s. `while_joined` runs the
// first time the session is held away from its owner.
::testing::AssertionResult ExpireSession(const std::string& hosts, const clientid_t& session,
                                         const std::function<void()>& while_joined = {});

}  // namespace ferry::testsupport
