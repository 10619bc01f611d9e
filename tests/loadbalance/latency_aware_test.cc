#include <gtest/gtest.h>

#include "balancer_test_util.h"

namespace ferry::testing {
namespace {

constexpr int kPicks = 100'000;
constexpr double kTolerance = 0.01;  // over 6 standard deviations of a share of 100k picks
constexpr int64_t kMillisecond = 1'000'000;

std::vector<BalancerEndpoint> Sampled(const std::vector<int64_t>& latencies_ns) {
  std::vector<BalancerEndpoint> endpoints;
  for (size_t i = 0; i < latencies_ns.size(); ++i) {
    BalancerEndpoint endpoint;
    endpoint.address = std::string(1, static_cast<char>('a' + i));
    endpoint.load->ewma_latency_ns = latencies_ns[i];
    endpoints.push_back(std::move(endpoint));
  }
  return endpoints;
}

TEST(LatencyAwareTest, SlowProviderGetsMuchLessTraffic) {
  auto balancer = MakeBalancer("latency_aware");
  balancer->Update(Sampled({kMillisecond, kMillisecond, kMillisecond, 20 * kMillisecond}));
  const auto counts = CountPicks(*balancer, kPicks);
  EXPECT_LT(Share(counts, "d", kPicks), 0.05);
  for (const char* fast : {"a", "b", "c"}) EXPECT_NEAR(Share(counts, fast, kPicks), 1.0 / 3, 0.05);
}

TEST(LatencyAwareTest, BusyProviderGetsLessTraffic) {
  auto balancer = MakeBalancer("latency_aware");
  auto endpoints = Sampled({kMillisecond, kMillisecond, kMillisecond});
  endpoints[0].load->in_flight = 10;
  balancer->Update(endpoints);
  const auto counts = CountPicks(*balancer, kPicks);
  EXPECT_LT(Share(counts, "a", kPicks), 0.05);
}

TEST(LatencyAwareTest, UnsampledProviderIsTriedWhileIdleOnly) {
  auto balancer = MakeBalancer("latency_aware");
  auto endpoints = Sampled({kMillisecond, kMillisecond, 0});
  const auto loads = endpoints;
  balancer->Update(endpoints);
  // Idle and unsampled, c wins every pair it is drawn into: two pairs of three.
  EXPECT_NEAR(Share(CountPicks(*balancer, kPicks), "c", kPicks), 2.0 / 3, kTolerance);
  // With a call in flight and still no sample, it stops drawing calls.
  loads[2].load->in_flight = 1;
  EXPECT_LT(Share(CountPicks(*balancer, kPicks), "c", kPicks), 0.05);
}

TEST(LatencyAwareTest, WeightCountsAsCapacity) {
  auto balancer = MakeBalancer("latency_aware");
  auto endpoints = Sampled({kMillisecond, kMillisecond});
  endpoints[1].weight = 300;
  endpoints[0].load->in_flight = 1;
  endpoints[1].load->in_flight = 2;
  // b has more calls in flight but three times the weight: 2ms / 100 > 3ms / 300.
  balancer->Update(endpoints);
  EXPECT_EQ(CountPicks(*balancer, 1000), (PickCounts{{"b", 1000}}));
}

}  // namespace
}  // namespace ferry::testing
