#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ferry::testsupport {

struct MariaDbServerOptions {
  // Created (if missing) on every Start(); clients connect to it.
  std::string database = "ferry_test";
  // Appended to mariadbd's command line, e.g. {"--max-connections=500"}.
  std::vector<std::string> extra_args;
};

// A real MariaDB server (Debian's `mariadb-server`: `mariadbd`) on 127.0.0.1 at a
// kernel-chosen port, with its datadir, socket and log in a temporary directory removed on
// destruction. Clients log in over TCP as `root` with an empty password; database() exists.
// The port is chosen on the first Start() and kept, so Restart() brings the same server (same
// data) back where clients expect it. The server process is killed if the test process dies.
//
// The datadir is a copy of a template made by `mariadb-install-db` once per build tree and
// user (cached under <build>/fixture-cache, or $FERRY_FIXTURE_CACHE_DIR; per process when that
// is not writable), so a start costs well under a second after the first. Still, start one
// server per suite and share it:
//
//   class MyTest : public ::testing::Test {
//    protected:
//     static void SetUpTestSuite() {
//       server_ = new MariaDbServer();
//       ASSERT_TRUE(server_->Start());
//     }
//     static void TearDownTestSuite() { delete server_; server_ = nullptr; }
//     void SetUp() override { ASSERT_TRUE(server_->ResetDatabase()); }  // if tests need it
//     static MariaDbServer* server_;
//   };
//
// Works as root (mariadbd and mariadb-install-db then get `--user=root`, without which they
// refuse to run) and as a normal user.
class MariaDbServer {
 public:
  explicit MariaDbServer(MariaDbServerOptions options = {});
  ~MariaDbServer();  // Stop(), then removes the directory
  MariaDbServer(const MariaDbServer&) = delete;
  MariaDbServer& operator=(const MariaDbServer&) = delete;

  // The first call prepares the datadir; then starts mariadbd, waits (up to 60 s) until root
  // can log in over TCP and creates database(). No-op when running. On failure the result
  // carries the tail of the server's (or mariadb-install-db's) log.
  ::testing::AssertionResult Start();
  // SIGTERM (a clean shutdown), SIGKILL after 30 s; waits for the process to exit. No-op when
  // not running.
  void Stop();
  // SIGKILL right away (a crash); waits for the process to exit. Committed transactions
  // survive (InnoDB recovers them on the next Start()).
  void Kill();
  // Stop() and Start() on the same port, with the same data.
  ::testing::AssertionResult Restart();

  // Runs one or more `;`-separated statements as root with database() selected, discarding
  // any result sets. The failure names the MariaDB error number and message.
  ::testing::AssertionResult Execute(const std::string& sql) const;
  // Drops and re-creates database(): an empty schema for the next test.
  ::testing::AssertionResult ResetDatabase() const;

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }
  std::string host() const { return "127.0.0.1"; }
  std::string user() const { return "root"; }
  std::string password() const { return ""; }
  const std::string& database() const { return options_.database; }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path data_dir() const { return dir_ / "data"; }
  std::filesystem::path socket_path() const { return dir_ / "mysqld.sock"; }
  std::filesystem::path log_path() const { return dir_ / "mariadbd.log"; }

 private:
  ::testing::AssertionResult PrepareDatadir();
  // One attempt on port_; `port_taken` tells that another process holds it.
  ::testing::AssertionResult StartOnce(bool* port_taken);

  MariaDbServerOptions options_;
  std::filesystem::path dir_;
  uint16_t port_ = 0;  // chosen on the first Start(), kept afterwards
  pid_t pid_ = -1;
};

}  // namespace ferry::testsupport
