#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "balancer_test_util.h"

namespace ferry::testing {
namespace {

class BalancerConcurrencyTest : public ::testing::TestWithParam<const char*> {};

// Eight threads pick (keyed and not, with and without exclusions, touching the loads as a
// channel would) while another thread keeps replacing the provider set. Every pick must be a
// provider of some published set, carrying that provider's own load, and a pick that starts
// after the last update must see it.
TEST_P(BalancerConcurrencyTest, PicksDuringUpdatesComeFromPublishedSets) {
  constexpr int kSelectors = 8;
  constexpr int kUpdates = 1000;
  constexpr int kMinPicks = 2000;       // per selector
  constexpr int kMaxPicks = 5'000'000;  // per selector: a bound, never reached normally
  constexpr auto kStartTimeout = std::chrono::seconds(30);

  std::map<std::string, std::shared_ptr<EndpointLoad>> loads;
  for (const char* address : {"a", "b", "c", "d", "e"}) {
    loads[address] = std::make_shared<EndpointLoad>();
  }
  auto make_set = [&](const std::vector<std::pair<std::string, uint32_t>>& weights) {
    auto endpoints = Endpoints(weights);
    for (auto& endpoint : endpoints) endpoint.load = loads.at(endpoint.address);
    return endpoints;
  };
  // Every set keeps a provider other than "c", which picks below may exclude.
  std::vector<std::vector<BalancerEndpoint>> sets = {
      make_set({{"a", 100}, {"b", 200}, {"c", 300}}),
      make_set({{"c", 100}, {"d", 100}}),
      make_set({{"e", 50}}),
  };
  sets[1][1].start_time_ms = NowMs();  // keeps the warm-up path busy too
  const std::vector<BalancerEndpoint>& last_set = sets[kUpdates % sets.size()];
  const auto in_last_set = [&](const std::string& address) {
    return std::any_of(last_set.begin(), last_set.end(), [&](const BalancerEndpoint& endpoint) {
      return endpoint.address == address;
    });
  };

  LoadBalancerOptions options;
  options.warmup = std::chrono::minutes(1);
  auto balancer = MakeBalancer(GetParam(), options);
  balancer->Update(sets[0]);

  std::atomic<int> started{0};
  std::atomic<bool> updates_done{false};
  std::atomic<int> foreign{0};
  std::atomic<int> missing{0};
  std::atomic<int> saw_last_update{0};
  const std::vector<std::string> exclude_c = {"c"};
  std::vector<std::thread> selectors;
  for (int t = 0; t < kSelectors; ++t) {
    selectors.emplace_back([&, t] {
      SelectRequest request;
      for (int i = 0; i < kMaxPicks; ++i) {
        const bool last = i >= kMinPicks && updates_done.load();
        request.hash_key =
            (i % 2 == 0) ? std::optional<uint64_t>(i * kSelectors + t) : std::nullopt;
        request.excluded =
            (i % 3 == 0) ? std::span<const std::string>(exclude_c) : std::span<const std::string>();
        const auto pick = balancer->Select(request);
        if (i == 0) ++started;
        if (!pick) {
          ++missing;
          continue;
        }
        const auto it = loads.find(pick->address);
        if (it == loads.end() || it->second != pick->load || (i % 3 == 0 && pick->address == "c")) {
          ++foreign;
          continue;
        }
        ++pick->load->in_flight;
        pick->load->ewma_latency_ns.store(1'000 + i % 7, std::memory_order_relaxed);
        --pick->load->in_flight;
        if (last) {
          if (in_last_set(pick->address)) ++saw_last_update;
          break;
        }
      }
    });
  }
  // Updates begin once every selector is picking, so that they overlap.
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (started.load() < kSelectors && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  for (int update = 1; update <= kUpdates; ++update) {
    balancer->Update(sets[update % sets.size()]);
  }
  updates_done = true;
  for (auto& selector : selectors) selector.join();

  EXPECT_EQ(started.load(), kSelectors);
  EXPECT_EQ(foreign.load(), 0);
  EXPECT_EQ(missing.load(), 0);
  EXPECT_EQ(saw_last_update.load(), kSelectors);
  for (const auto& [address, load] : loads) EXPECT_EQ(load->in_flight.load(), 0) << address;
}

INSTANTIATE_TEST_SUITE_P(AllBalancers, BalancerConcurrencyTest, ::testing::ValuesIn(kBalancerNames),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ferry::testing
