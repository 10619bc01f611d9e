// Three seckill-server processes registered in a real ZooKeeper, on one Redis and one MariaDB,
// each with a worker id leased from ZooKeeper, called through a cluster channel that routes by
// consistent hash on user_id. One provider is SIGKILLed in the middle of the sale: no oversell,
// no accepted purchase without its order, and every request id sent again (now reaching another
// provider for the killed one's users) answered as it first was.
#include <gtest/gtest.h>
#include <zookeeper/zookeeper.h>

#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ferry/framework/cluster_channel.h"
#include "ferry/framework/registry.h"
#include "ferry/idgen/id_layout.h"
#include "ready_process.h"
#include "seckill_test_support.h"
#include "zookeeper_server.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

constexpr char kService[] = "ferry.seckill.SeckillService";
constexpr char kWorkersPath[] = "/ferry/idgen/seckill-orders/workers";
constexpr int64_t kSku = 91;

uint16_t PortOf(const std::string& address) {
  return static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}

// The worker ids leased under kWorkersPath right now, read with a ZooKeeper client of the
// test's own; nullopt-like empty set with a gtest failure when ZooKeeper cannot be read.
std::set<std::string> LeasedWorkerIds(const std::string& zookeeper_address) {
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  zhandle_t* zh = zookeeper_init(zookeeper_address.c_str(), nullptr, 10000, nullptr, nullptr, 0);
  std::set<std::string> ids;
  if (zh == nullptr) {
    ADD_FAILURE() << "zookeeper_init failed";
    return ids;
  }
  EXPECT_TRUE(Eventually([&] { return zoo_state(zh) == ZOO_CONNECTED_STATE; }, 10s));
  String_vector children{};
  const int rc = zoo_get_children(zh, kWorkersPath, 0, &children);
  EXPECT_EQ(rc, ZOK) << zerror(rc);
  for (int i = 0; rc == ZOK && i < children.count; ++i) ids.insert(children.data[i]);
  if (rc == ZOK) deallocate_String_vector(&children);
  zookeeper_close(zh);
  return ids;
}

class SeckillClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
    ASSERT_TRUE(SharedServers::FlushRedis());
    ASSERT_TRUE(zookeeper_.Start());
    config_ = RedisMariaDbConfig(FreshDatabaseName("cluster"));
    const std::filesystem::path yaml = dir_.path() / "provider.yaml";
    std::ofstream(yaml) << ServerYaml(config_, /*worker_id=*/-1, /*writer_threads=*/2);
    for (testsupport::ReadyProcess& provider : providers_) {
      ASSERT_TRUE(provider.Start(
          {SECKILL_SERVER_BINARY, "--config", yaml.string(), "--registry", zookeeper_.url()},
          "seckill-server", 60s));
    }
    ASSERT_TRUE(OpenRegistry(RegistryOptions{.url = zookeeper_.url()}, &registry_).ok());
    subscription_ = registry_->Subscribe(kService, [this](const std::vector<ProviderInfo>& list) {
      registered_.store(list.size());
    });
    ASSERT_TRUE(Eventually([&] { return registered_.load() == providers_.size(); }, 30s))
        << registered_.load() << " providers registered";
  }

  void TearDown() override {
    if (registry_ != nullptr) {
      registry_->Unsubscribe(subscription_);
      registry_->Stop();
    }
  }

  // A channel over every registered provider, routing each call by the hash of its user_id.
  std::shared_ptr<Channel> UserRoutedChannel() {
    ClusterOptions options;
    options.service = kService;
    options.client.default_timeout = 3s;
    options.loadbalance.name = "consistent_hash";
    options.loadbalance.hash_field = "user_id";
    std::shared_ptr<Channel> channel;
    const Status s = NewClusterChannel(options, registry_, &channel);
    EXPECT_TRUE(s.ok()) << s;
    return channel;
  }

  testsupport::ZooKeeperServer zookeeper_;
  TempDir dir_;
  SeckillConfig config_;
  std::array<testsupport::ReadyProcess, 3> providers_;
  std::shared_ptr<Registry> registry_;
  uint64_t subscription_ = 0;
  std::atomic<size_t> registered_{0};
};

TEST_F(SeckillClusterTest, ProvidersLeaseDistinctWorkerIds) {
  EXPECT_EQ(LeasedWorkerIds(zookeeper_.address()).size(), providers_.size());
  // A provider that goes away frees its id at once (its session closes), for the next one.
  EXPECT_EQ(providers_[2].Terminate(30s), 0);
  EXPECT_TRUE(Eventually([&] { return LeasedWorkerIds(zookeeper_.address()).size() == 2; }, 10s));
}

TEST_F(SeckillClusterTest, AProviderKilledMidSaleLosesNoOrderAndChangesNoAnswer) {
  constexpr int64_t kStock = 300;
  constexpr int kBuyers = 1200;
  constexpr int kKillAfterAccepted = 100;
  std::unique_ptr<SeckillServiceProxy> admin = NewProxy(PortOf(providers_[0].address()));
  const int64_t activity = CreateActivity(*admin, {.sku_id = kSku, .stock = kStock});
  ASSERT_GT(activity, 0);
  SeckillServiceProxy client(UserRoutedChannel());

  // Every buyer once; every fifth sends the same request again right away (a client retry).
  std::vector<std::pair<std::string, std::string>> calls;  // (user, request id)
  for (int i = 0; i < kBuyers; ++i) {
    calls.emplace_back("u" + std::to_string(i), "r" + std::to_string(i));
    if (i % 5 == 0) calls.emplace_back(calls.back());
  }
  std::mutex mu;
  std::map<std::pair<std::string, std::string>, PurchaseAnswer> decided;
  std::vector<std::string> contradictions;
  std::atomic<int> accepted{0};
  std::atomic<int> unanswered{0};
  std::atomic<bool> killed{false};
  std::atomic<size_t> next{0};
  auto record = [&](const std::pair<std::string, std::string>& call, PurchaseAnswer answer) {
    std::lock_guard lock(mu);
    auto [at, first] = decided.emplace(call, answer);
    if (!first && at->second != answer) {
      contradictions.push_back(call.second + ": " + PurchaseAnswer_Name(at->second) + " then " +
                               PurchaseAnswer_Name(answer));
    }
    return first;
  };
  std::vector<std::thread> callers;
  for (int t = 0; t < 16; ++t) {
    callers.emplace_back([&] {
      for (size_t i = next++; i < calls.size(); i = next++) {
        // A call lost with the killed provider is retried with the same id, as a client would.
        bool answered = false;
        for (int attempt = 0; attempt < 10 && !answered; ++attempt) {
          auto r = client.Purchase(Purchase(activity, kSku, calls[i].first, calls[i].second),
                                   AsUser(calls[i].first));
          if (!r.ok()) continue;
          answered = true;
          if (record(calls[i], r->answer()) && r->answer() == ACCEPTED &&
              ++accepted == kKillAfterAccepted) {
            providers_[1].Kill();
            killed = true;
          }
        }
        if (!answered) ++unanswered;
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  ASSERT_TRUE(killed.load()) << "the sale ended before the kill";
  EXPECT_EQ(unanswered.load(), 0);
  EXPECT_TRUE(contradictions.empty()) << contradictions.front();
  EXPECT_EQ(accepted.load(), kStock) << "every unit is sold, each exactly once";

  // Every request again, after the kill: the same answer, wherever the ring sends it now.
  for (const auto& [call, answer] : decided) {
    auto r = client.Purchase(Purchase(activity, kSku, call.first, call.second), AsUser(call.first));
    ASSERT_TRUE(r.ok()) << call.second << ": " << r.status();
    EXPECT_EQ(r->answer(), answer) << call.second;
  }

  // The killed provider's unwritten events are taken over by the others' order writers.
  std::unique_ptr<SeckillServiceProxy> survivor = NewProxy(PortOf(providers_[0].address()));
  const ReconcileResponse report = Settle(
      *survivor, activity, [&](const ReconcileResponse& r) { return r.orders_unpaid() >= kStock; },
      60s);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.reservations(), kStock);
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.orders_unpaid(), kStock);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  EXPECT_EQ(report.database_stock(), 0);

  std::set<int64_t> order_numbers;
  std::set<uint32_t> worker_ids;
  for (const auto& [call, answer] : decided) {
    if (answer != ACCEPTED) continue;
    GetResultRequest query;
    query.set_request_id(call.second);
    query.set_activity_id(activity);
    query.set_sku_id(kSku);
    query.set_user_id(call.first);
    auto result = client.GetResult(query, AsUser(call.first));
    ASSERT_TRUE(result.ok()) << call.second << ": " << result.status();
    ASSERT_EQ(result->state(), CREATED) << call.second << ": " << result->ShortDebugString();
    EXPECT_TRUE(order_numbers.insert(result->order_no()).second) << result->order_no();
    worker_ids.insert(idgen::DecodeId(result->order_no())->worker_id);
  }
  EXPECT_EQ(order_numbers.size(), static_cast<size_t>(kStock));
  // All three took purchases (the killed one before it died), each under its own worker id.
  EXPECT_EQ(worker_ids.size(), providers_.size());
}

}  // namespace
}  // namespace ferry::seckill
