// ZooKeeperWorkerIdLease against a real ZooKeeper (one server per test process, restarted by
// the test that stops it); each test leases in a namespace of its own.
#include "ferry/idgen/zookeeper_worker_id_lease.h"

#include <gtest/gtest.h>
#include <zookeeper/zookeeper.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "ferry/idgen/snowflake_id_generator.h"
#include "log_capture.h"
#include "zookeeper_server.h"

namespace ferry::idgen {
namespace {

using namespace std::chrono_literals;
using testsupport::LogCapture;
using testsupport::RawZooKeeperClient;
using testsupport::ZooKeeperServer;

constexpr auto kRecovery = 15s;  // reconnect after a JVM restart on a busy machine

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

class ZooKeeperWorkerIdLeaseTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ZooKeeperServer();
    EXPECT_TRUE(server_->Start());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!server_->running()) {
      ASSERT_TRUE(server_->Start());
    }
    namespace_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  ZooKeeperWorkerIdLeaseOptions Options() const {
    return {.url = server_->url(),
            .namespace_name = namespace_,
            .session_timeout = 4s,
            .connect_timeout = kRecovery,
            .retry_interval = 100ms};
  }

  std::shared_ptr<ZooKeeperWorkerIdLease> Acquire() {
    std::shared_ptr<ZooKeeperWorkerIdLease> lease;
    const Status status = ZooKeeperWorkerIdLease::Acquire(Options(), &lease);
    EXPECT_TRUE(status.ok()) << status;
    return lease;
  }

  static int64_t IdOf(const WorkerIdLease& lease) {
    uint32_t id = 0;
    const Status status = lease.Current(&id);
    if (!status.ok()) return -1;
    return id;
  }

  std::string WorkerZnode(int id) const {
    return "/ferry/idgen/" + namespace_ + "/workers/" + std::to_string(id);
  }

  static ZooKeeperServer* server_;
  std::string namespace_;
};

ZooKeeperServer* ZooKeeperWorkerIdLeaseTest::server_ = nullptr;

TEST_F(ZooKeeperWorkerIdLeaseTest, TwoLeasesGetDifferentIdsAndOwnTheirZnodes) {
  auto first = Acquire();
  auto second = Acquire();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(IdOf(*first), 0);
  EXPECT_EQ(IdOf(*second), 1);
  EXPECT_EQ(first->znode_path(), WorkerZnode(0));
  EXPECT_EQ(second->znode_path(), WorkerZnode(1));

  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  for (const auto& lease : {first, second}) {
    const auto credentials = lease->session_credentials();
    ASSERT_TRUE(credentials);
    Stat stat{};
    std::string data;
    ASSERT_EQ(observer.Get(lease->znode_path(), &stat, &data), ZOK);
    EXPECT_EQ(stat.ephemeralOwner, credentials->session_id);  // ephemeral, this lease's session
    EXPECT_NE(data.find("pid="), std::string::npos) << data;
  }
}

TEST_F(ZooKeeperWorkerIdLeaseTest, ClosingALeaseFreesItsIdForTheNext) {
  auto first = Acquire();
  auto second = Acquire();
  ASSERT_TRUE(first && second);
  ASSERT_EQ(IdOf(*first), 0);

  first->Close();
  uint32_t id = 0;
  const Status status = first->Current(&id);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(status.message().find("the lease is closed"), std::string::npos) << status;
  EXPECT_EQ(first->znode_path(), "");
  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  Stat stat{};
  EXPECT_EQ(observer.Get(WorkerZnode(0), &stat), ZNONODE);  // deleted with the session, at once

  auto third = Acquire();  // the lowest free id again
  ASSERT_TRUE(third);
  EXPECT_EQ(IdOf(*third), 0);
  EXPECT_EQ(IdOf(*second), 1);
}

TEST_F(ZooKeeperWorkerIdLeaseTest, IdsHeldByOthersAreSkipped) {
  RawZooKeeperClient other(server_->address());
  ASSERT_TRUE(other.connected());
  ASSERT_EQ(other.Create(WorkerZnode(0), "", ZOO_EPHEMERAL), ZOK);
  ASSERT_EQ(other.Create(WorkerZnode(2), "", ZOO_EPHEMERAL), ZOK);
  // Not an id: ignored.
  ASSERT_EQ(other.Create("/ferry/idgen/" + namespace_ + "/workers/notes", "", ZOO_PERSISTENT), ZOK);

  auto first = Acquire();
  auto second = Acquire();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(IdOf(*first), 1);
  EXPECT_EQ(IdOf(*second), 3);
}

TEST_F(ZooKeeperWorkerIdLeaseTest, GeneratorHoldsTheLeaseWhileItLives) {
  auto lease = Acquire();
  ASSERT_TRUE(lease);
  const std::string znode = lease->znode_path();
  std::unique_ptr<SnowflakeIdGenerator> generator;
  ASSERT_TRUE(SnowflakeIdGenerator::Create(lease, {}, &generator).ok());
  lease.reset();

  int64_t id = 0;
  ASSERT_TRUE(generator->NextId(&id).ok());
  EXPECT_EQ(generator->Decode(id)->worker_id, 0u);
  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  Stat stat{};
  EXPECT_EQ(observer.Get(znode, &stat), ZOK);

  generator.reset();  // the last owner of the lease: closes the session
  EXPECT_EQ(observer.Get(znode, &stat), ZNONODE);
}

TEST_F(ZooKeeperWorkerIdLeaseTest, DisconnectionKeepsTheIdForAThirdOfTheSessionThenSuspendsIt) {
  // 12 s: a grace of 2.8 s (a third less a tenth), long enough to look at on a busy machine.
  ZooKeeperWorkerIdLeaseOptions options = Options();
  options.session_timeout = 12s;
  std::shared_ptr<ZooKeeperWorkerIdLease> lease;
  ASSERT_TRUE(ZooKeeperWorkerIdLease::Acquire(options, &lease).ok());
  std::unique_ptr<SnowflakeIdGenerator> generator;
  ASSERT_TRUE(SnowflakeIdGenerator::Create(lease, {}, &generator).ok());
  int64_t before = 0;
  ASSERT_TRUE(generator->NextId(&before).ok());
  const auto session = lease->session_credentials();
  ASSERT_TRUE(session);

  LogCapture log;
  server_->Stop();
  // Within the grace the session certainly lives (the server cannot have expired it), so ids
  // are still issued: a ZooKeeper restart does not stop the service.
  ASSERT_TRUE(log.WaitFor("stays usable for 2800 ms", kRecovery));
  int64_t id = -1;
  EXPECT_TRUE(generator->NextId(&id).ok());
  // Past it the client cannot tell whether its session will expire (and the id go to someone
  // else), so nothing is issued until it knows.
  Status status;
  ASSERT_TRUE(WaitFor([&] { return !(status = generator->NextId(&id)).ok(); }, kRecovery));
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(status.message().find("disconnected from ZooKeeper"), std::string::npos) << status;
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(generator->NextId(&id).code(), StatusCode::UNAVAILABLE);
    std::this_thread::sleep_for(5ms);
  }

  // The restarted server still has the session: same session, same id, ids go on increasing.
  ASSERT_TRUE(server_->Start());
  ASSERT_TRUE(WaitFor([&] { return generator->NextId(&id).ok(); }, kRecovery));
  EXPECT_GT(id, before);
  EXPECT_EQ(generator->Decode(id)->worker_id, generator->Decode(before)->worker_id);
  ASSERT_TRUE(lease->session_credentials());
  EXPECT_EQ(lease->session_credentials()->session_id, session->session_id);
}

TEST_F(ZooKeeperWorkerIdLeaseTest, AReconnectWithinTheGraceKeepsIssuingThroughout) {
  // A server that stops answering (SIGSTOP) and comes back, as after a long pause: the client
  // notices after two thirds of the 18 s session, keeps the id for the 4.2 s grace, and the
  // server, resumed at once, still has the session.
  ZooKeeperWorkerIdLeaseOptions options = Options();
  options.session_timeout = 18s;
  std::shared_ptr<ZooKeeperWorkerIdLease> lease;
  const Status acquired = ZooKeeperWorkerIdLease::Acquire(options, &lease);
  ASSERT_TRUE(acquired.ok()) << acquired;
  const int64_t worker = IdOf(*lease);
  ASSERT_GE(worker, 0);
  LogCapture log;
  server_->Pause();
  const bool disconnected = log.WaitFor("stays usable for 4200 ms", kRecovery + 15s);
  server_->Resume();
  ASSERT_TRUE(disconnected);
  // Until the session is back, every look finds the id usable; and it is the same one after.
  bool refused = false;
  ASSERT_TRUE(WaitFor(
      [&] {
        refused = refused || IdOf(*lease) != worker;
        return log.Count(spdlog::level::info, "reconnected to ZooKeeper within the grace") > 0;
      },
      kRecovery));
  EXPECT_FALSE(refused);
  EXPECT_EQ(IdOf(*lease), worker);
}

TEST_F(ZooKeeperWorkerIdLeaseTest, SessionExpiryLosesTheIdAndALeaseIsTakenAgain) {
  LogCapture log;
  auto lease = Acquire();
  ASSERT_TRUE(lease);
  std::unique_ptr<SnowflakeIdGenerator> generator;
  ASSERT_TRUE(SnowflakeIdGenerator::Create(lease, {}, &generator).ok());
  int64_t before = 0;
  ASSERT_TRUE(generator->NextId(&before).ok());
  const auto old_session = lease->session_credentials();
  ASSERT_TRUE(old_session);
  clientid_t expired{};
  expired.client_id = old_session->session_id;
  std::memcpy(expired.passwd, old_session->password.data(), sizeof(expired.passwd));

  ASSERT_TRUE(testsupport::ExpireSession(server_->address(), expired));
  // The expiry is noticed (the id is dropped, under the same lock that Current() reads)...
  ASSERT_TRUE(WaitFor(
      [&] {
        return log.Count(spdlog::level::warn,
                         "ZooKeeper session of namespace '" + namespace_ + "' ended") > 0;
      },
      kRecovery));
  // ...and a new session leases again; the generator goes on with ids above the old ones.
  int64_t id = -1;
  ASSERT_TRUE(WaitFor(
      [&] {
        const auto session = lease->session_credentials();
        return session && session->session_id != old_session->session_id &&
               generator->NextId(&id).ok();
      },
      kRecovery));
  EXPECT_GT(id, before);
  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  Stat stat{};
  ASSERT_EQ(observer.Get(WorkerZnode(static_cast<int>(generator->Decode(id)->worker_id)), &stat),
            ZOK);
  EXPECT_EQ(stat.ephemeralOwner, lease->session_credentials()->session_id);
  // (The old session may have been held again in between: ExpireSession joins it repeatedly.)
  std::ostringstream new_session;
  new_session << "with ZooKeeper session 0x" << std::hex
              << lease->session_credentials()->session_id;
  EXPECT_EQ(log.Count(spdlog::level::info, new_session.str()), 1u);
}

TEST_F(ZooKeeperWorkerIdLeaseTest, NodeTakenOverByAnotherSessionEndsTheLeaseOfThatId) {
  LogCapture log;
  auto lease = Acquire();
  ASSERT_TRUE(lease);
  std::unique_ptr<SnowflakeIdGenerator> generator;
  ASSERT_TRUE(SnowflakeIdGenerator::Create(lease, {}, &generator).ok());
  int64_t before = 0;
  ASSERT_TRUE(generator->NextId(&before).ok());
  ASSERT_EQ(generator->Decode(before)->worker_id, 0u);

  // Another session replaces node 0 with its own, atomically (an operator's mistake, or a
  // buggy peer). The watch on the node tells the lease, which moves to the next free id.
  RawZooKeeperClient thief(server_->address());
  ASSERT_TRUE(thief.connected());
  const std::string stolen = WorkerZnode(0);
  std::string created(stolen.size() + 1, '\0');
  zoo_op_t ops[2];
  zoo_op_result_t results[2];
  zoo_delete_op_init(&ops[0], stolen.c_str(), -1);
  zoo_create_op_init(&ops[1], stolen.c_str(), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL,
                     created.data(), static_cast<int>(created.size()));
  ASSERT_EQ(zoo_multi(thief.handle(), 2, ops, results), ZOK);

  int64_t id = -1;
  ASSERT_TRUE(
      WaitFor([&] { return lease->znode_path() == WorkerZnode(1) && generator->NextId(&id).ok(); },
              kRecovery));
  EXPECT_GT(id, before);
  EXPECT_EQ(generator->Decode(id)->worker_id, 1u);
  EXPECT_EQ(log.Count(spdlog::level::warn, stolen + " was deleted by someone else"), 1u);
}

// No server needed: these fail before (or instead of) reaching one.
ZooKeeperWorkerIdLeaseOptions UnreachableOptions() {
  return {.url = "zookeeper://127.0.0.1:1",  // nothing listens on port 1
          .namespace_name = "options",
          .connect_timeout = 300ms,
          .retry_interval = 100ms};
}

TEST(ZooKeeperWorkerIdLeaseOptionsTest, UnreachableZooKeeperFailsWithUnavailable) {
  std::shared_ptr<ZooKeeperWorkerIdLease> lease;
  const Status status = ZooKeeperWorkerIdLease::Acquire(UnreachableOptions(), &lease);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(status.message().find("within 300 ms"), std::string::npos) << status;
  EXPECT_FALSE(lease);
}

TEST(ZooKeeperWorkerIdLeaseOptionsTest, BadUrlNamespaceOrTimeoutIsInvalidArgument) {
  for (const std::string url : {"", "zk://127.0.0.1:2181", "zookeeper://", "zookeeper://127.0.0.1",
                                "zookeeper://127.0.0.1:0", "zookeeper://127.0.0.1:2181/chroot",
                                "zookeeper://127.0.0.1:2181,", "zookeeper://::1:2181"}) {
    ZooKeeperWorkerIdLeaseOptions options = UnreachableOptions();
    options.url = url;
    std::shared_ptr<ZooKeeperWorkerIdLease> lease;
    const Status status = ZooKeeperWorkerIdLease::Acquire(options, &lease);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << url << ": " << status;
    EXPECT_FALSE(lease);
  }
  for (const std::string name : {"", ".", "..", "a/b", "with space", "tab\t"}) {
    ZooKeeperWorkerIdLeaseOptions options = UnreachableOptions();
    options.namespace_name = name;
    std::shared_ptr<ZooKeeperWorkerIdLease> lease;
    EXPECT_EQ(ZooKeeperWorkerIdLease::Acquire(options, &lease).code(), StatusCode::INVALID_ARGUMENT)
        << name;
  }
  ZooKeeperWorkerIdLeaseOptions options = UnreachableOptions();
  options.session_timeout = 0ms;
  std::shared_ptr<ZooKeeperWorkerIdLease> lease;
  EXPECT_EQ(ZooKeeperWorkerIdLease::Acquire(options, &lease).code(), StatusCode::INVALID_ARGUMENT);
  // Bracketed IPv6 and several hosts are accepted (and then fail to connect in time).
  options = UnreachableOptions();
  options.url = "zookeeper://[::1]:1,127.0.0.1:1";
  options.connect_timeout = 100ms;
  EXPECT_EQ(ZooKeeperWorkerIdLease::Acquire(options, &lease).code(), StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace ferry::idgen
