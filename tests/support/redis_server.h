#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ferry::testsupport {

struct RedisServerOptions {
  // `--appendonly yes`: writes are logged to <dir>/data/appendonlydir, so Stop() + Start()
  // (or Restart()) keeps them. Off by default: nothing is persisted (`--save ""` always).
  bool appendonly = false;
  // Appended to the command line, e.g. {"--maxmemory", "16mb"}.
  std::vector<std::string> extra_args;
};

// A real Redis server (Debian's `redis-server`) on 127.0.0.1 at a kernel-chosen port, run in
// the foreground (`--daemonize no`) with its data in <dir>/data and its log in
// <dir>/redis.log, a temporary directory removed on destruction. The port is chosen on the
// first Start() and kept for the object's lifetime, so clients can reconnect after Restart()
// or RestartEmpty(). The server process is killed if the test process dies.
//
// Starting takes a few milliseconds; a suite may start one per test or share one from
// SetUpTestSuite() (then flush between tests with FLUSHALL).
class RedisServer {
 public:
  explicit RedisServer(RedisServerOptions options = {});
  ~RedisServer();  // Stop(), then removes the directory
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // Starts redis-server and waits (up to 30 s) until PING answers PONG. No-op when running.
  // On failure the result carries the tail of the server's log.
  ::testing::AssertionResult Start();
  // SIGTERM, SIGKILL after 10 s; waits for the process to exit. No-op when not running.
  void Stop();
  // SIGKILL right away (a crash: nothing is flushed); waits for the process to exit.
  void Kill();
  // SIGSTOP / SIGCONT: a server that accepts connections (the kernel does) and never answers,
  // as a hung or partitioned one; then answering again.
  void Pause();
  void Resume();
  // Stop() and Start() on the same port; keeps what Redis persisted (only with appendonly).
  ::testing::AssertionResult Restart();
  // Kill(), wipe the data directory, Start() on the same port: Redis comes back empty, as
  // after losing its data.
  ::testing::AssertionResult RestartEmpty();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }
  std::string host() const { return "127.0.0.1"; }
  std::string address() const { return host() + ":" + std::to_string(port_); }
  std::string url() const { return "redis://" + address(); }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path data_dir() const { return dir_ / "data"; }
  std::filesystem::path log_path() const { return dir_ / "redis.log"; }

 private:
  // One attempt on port_; `port_taken` tells that another process holds it.
  ::testing::AssertionResult StartOnce(bool* port_taken);
  bool AnswersPing() const;

  RedisServerOptions options_;
  std::filesystem::path dir_;
  uint16_t port_ = 0;  // chosen on the first Start(), kept afterwards
  pid_t pid_ = -1;
};

}  // namespace ferry::testsupport
