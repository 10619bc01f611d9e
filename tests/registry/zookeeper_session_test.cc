// ZooKeeperSession against a real ZooKeeper: what its users (the zookeeper registry, the idgen
// worker-id lease) rely on, checked on the class itself.
#include "ferry/registry/zookeeper_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "zookeeper_registry_fixture.h"

namespace ferry::registry {
namespace {

using namespace std::chrono_literals;
using testsupport::RawZooKeeperClient;
using Kind = ZooKeeperSession::Event::Kind;

constexpr auto kEventWait = 15s;  // a connect or a watch on a busy machine

// What the sink was given, in order, for tests to wait on.
class EventLog {
 public:
  ZooKeeperSession::EventSink Sink() {
    return [this](const ZooKeeperSession::Event& event) {
      {
        std::lock_guard lock(mu_);
        events_.push_back(event);
      }
      added_.notify_all();
    };
  }

  // The first event since `from` that `match` accepts, waiting up to kEventWait for it.
  std::optional<ZooKeeperSession::Event> WaitFor(
      size_t from, const std::function<bool(const ZooKeeperSession::Event&)>& match) {
    std::unique_lock lock(mu_);
    std::optional<ZooKeeperSession::Event> found;
    added_.wait_for(lock, kEventWait, [&] {
      for (size_t i = from; i < events_.size() && !found; ++i) {
        if (match(events_[i])) found = events_[i];
      }
      return found.has_value();
    });
    return found;
  }

  std::optional<ZooKeeperSession::Event> WaitForState(size_t from, int state) {
    return WaitFor(from, [state](const ZooKeeperSession::Event& event) {
      return event.kind == Kind::kState && event.state == state;
    });
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return events_.size();
  }

  std::vector<ZooKeeperSession::Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable added_;
  std::vector<ZooKeeperSession::Event> events_;
};

// On the registry tests' server; the test's namespace names its nodes.
class ZooKeeperSessionTest : public ZooKeeperRegistryTest {
 protected:
  // Opened and connected.
  std::unique_ptr<ZooKeeperSession> Connect(EventLog& events) const {
    auto session = std::make_unique<ZooKeeperSession>(
        ZooKeeperSessionOptions{.hosts = server_->address(), .session_timeout = 6s}, events.Sink());
    EXPECT_TRUE(session->Open().ok());
    EXPECT_TRUE(session->WaitConnected(kEventWait));
    return session;
  }

  std::string Root() const { return "/session-test/" + namespace_; }
};

TEST_F(ZooKeeperSessionTest, WaitConnectedReturnsOnceTheSinkHasTheConnectedEvent) {
  EventLog events;
  ZooKeeperSession session({.hosts = server_->address()}, events.Sink());
  EXPECT_FALSE(session.credentials());
  ASSERT_TRUE(session.Open().ok());
  ASSERT_TRUE(session.WaitConnected(kEventWait));

  // Already handed off when WaitConnected returns: read without waiting.
  const std::vector<ZooKeeperSession::Event> handed_off = events.events();
  const auto connected = std::find_if(handed_off.begin(), handed_off.end(), [](const auto& event) {
    return event.kind == Kind::kState && event.state == ZOO_CONNECTED_STATE;
  });
  ASSERT_NE(connected, handed_off.end());
  EXPECT_TRUE(session.IsCurrent(*connected));
  const auto credentials = session.credentials();
  ASSERT_TRUE(credentials);
  EXPECT_NE(credentials->client_id, 0);
  EXPECT_EQ(session.session_id(), credentials->client_id);

  session.Close();
  EXPECT_FALSE(session.credentials());
  EXPECT_EQ(session.session_id(), 0);
  EXPECT_FALSE(session.IsCurrent(*connected));
}

TEST_F(ZooKeeperSessionTest, CreatesNodesAsThisSessionAndReportsWatches) {
  EventLog events;
  auto session = Connect(events);
  const std::string dir = Root() + "/dir";
  ASSERT_EQ(session->EnsurePersistentPath(dir), ZOK);
  ASSERT_EQ(session->EnsurePersistentPath(dir), ZOK);  // already there
  ASSERT_EQ(session->CreateEphemeral(dir + "/a", "first"), ZOK);
  EXPECT_EQ(session->CreateEphemeral(dir + "/a", "again"), ZNODEEXISTS);
  Stat stat{};
  std::string data;
  ASSERT_EQ(session->Get(dir + "/a", &data, &stat), ZOK);
  EXPECT_EQ(data, "first");
  EXPECT_EQ(stat.ephemeralOwner, session->session_id());
  ASSERT_EQ(session->Replace(dir + "/a", stat.version, "second"), ZOK);
  ASSERT_EQ(session->Get(dir + "/a", &data, &stat), ZOK);
  EXPECT_EQ(data, "second");
  EXPECT_EQ(stat.ephemeralOwner, session->session_id());

  std::vector<std::string> children;
  ASSERT_EQ(session->GetChildrenAndWatch(dir, &children), ZOK);
  EXPECT_EQ(children, std::vector<std::string>{"a"});
  RawZooKeeperClient other(server_->address());
  ASSERT_TRUE(other.connected());
  size_t from = events.size();
  ASSERT_EQ(other.Create(dir + "/b", "", ZOO_EPHEMERAL), ZOK);
  EXPECT_TRUE(events.WaitFor(from, [&](const auto& event) {
    return event.kind == Kind::kChildrenChanged && event.path == dir;
  }));
  ASSERT_EQ(session->GetChildren(dir, &children), ZOK);
  EXPECT_EQ(children.size(), 2u);

  ASSERT_EQ(session->ExistsAndWatch(dir + "/a", &stat), ZOK);
  from = events.size();
  ASSERT_EQ(session->Delete(dir + "/a", -1), ZOK);
  EXPECT_TRUE(events.WaitFor(from, [&](const auto& event) {
    return event.kind == Kind::kNodeDeleted && event.path == dir + "/a";
  }));
  EXPECT_EQ(session->ExistsAndWatch(dir + "/a", &stat), ZNONODE);
}

TEST_F(ZooKeeperSessionTest, OpeningAgainReplacesTheSessionAndItsNodes) {
  EventLog events;
  auto session = Connect(events);
  const auto first = events.WaitForState(0, ZOO_CONNECTED_STATE);
  ASSERT_TRUE(first);
  const int64_t first_id = session->session_id();
  ASSERT_EQ(session->EnsurePersistentPath(Root()), ZOK);
  ASSERT_EQ(session->CreateEphemeral(Root() + "/node", ""), ZOK);

  const size_t from = events.size();
  ASSERT_TRUE(session->Open().ok());
  ASSERT_TRUE(session->WaitConnected(kEventWait));
  const auto second = events.WaitForState(from, ZOO_CONNECTED_STATE);
  ASSERT_TRUE(second);
  EXPECT_FALSE(session->IsCurrent(*first));
  EXPECT_TRUE(session->IsCurrent(*second));
  EXPECT_NE(session->session_id(), first_id);

  // The first session was closed, not left to time out: its node is gone already.
  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  Stat stat{};
  EXPECT_EQ(observer.Get(Root() + "/node", &stat), ZNONODE);
}

TEST_F(ZooKeeperSessionTest, ExpiryEndsTheCredentials) {
  EventLog events;
  auto session = Connect(events);
  const auto credentials = session->credentials();
  ASSERT_TRUE(credentials);

  const size_t from = events.size();
  ASSERT_TRUE(testsupport::ExpireSession(server_->address(), *credentials));
  const auto expired = events.WaitForState(from, ZOO_EXPIRED_SESSION_STATE);
  ASSERT_TRUE(expired);
  EXPECT_TRUE(session->IsCurrent(*expired));
  EXPECT_FALSE(session->credentials());
  EXPECT_EQ(session->session_id(), 0);
}

}  // namespace
}  // namespace ferry::registry
