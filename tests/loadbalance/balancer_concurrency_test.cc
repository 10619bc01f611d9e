#include <gtest/gtest.h>

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
// provider of some published set, carrying that provider's own load.
TEST_P(BalancerConcurrencyTest, PicksDuringUpdatesComeFromPublishedSets) {
  constexpr int kSelectors = 8;
  constexpr int kPicksPerSelector = 20'000;
  constexpr int kMaxUpdates = 200'000;

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

  LoadBalancerOptions options;
  options.warmup = std::chrono::minutes(1);
  auto balancer = MakeBalancer(GetParam(), options);
  balancer->Update(sets[0]);

  std::atomic<int> finished{0};
  std::atomic<int> foreign{0};
  std::atomic<int> missing{0};
  const std::vector<std::string> exclude_c = {"c"};
  std::vector<std::thread> selectors;
  for (int t = 0; t < kSelectors; ++t) {
    selectors.emplace_back([&, t] {
      SelectRequest request;
      for (int i = 0; i < kPicksPerSelector; ++i) {
        request.hash_key =
            (i % 2 == 0) ? std::optional<uint64_t>(i * kSelectors + t) : std::nullopt;
        request.excluded =
            (i % 3 == 0) ? std::span<const std::string>(exclude_c) : std::span<const std::string>();
        const auto pick = balancer->Select(request);
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
      }
      ++finished;
    });
  }
  int updates = 0;
  while (finished.load() < kSelectors && updates < kMaxUpdates) {
    balancer->Update(sets[++updates % sets.size()]);
    std::this_thread::yield();
  }
  for (auto& selector : selectors) selector.join();

  EXPECT_EQ(foreign.load(), 0);
  EXPECT_EQ(missing.load(), 0);
  EXPECT_GT(updates, 0);
  for (const auto& [address, load] : loads) EXPECT_EQ(load->in_flight.load(), 0) << address;
}

INSTANTIATE_TEST_SUITE_P(AllBalancers, BalancerConcurrencyTest, ::testing::ValuesIn(kBalancerNames),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ferry::testing
