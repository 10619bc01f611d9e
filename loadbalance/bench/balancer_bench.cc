// Select() cost per balancer, from one thread and from two at once (contention on shared
// state), for a small and a large provider set, plain and with the slow paths a channel hits:
// an excluded provider (a retry) and providers still warming up.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/load_balancer.h"

namespace {

enum class Scenario { kPlain, kExcluding, kWarming };

std::shared_ptr<ferry::LoadBalancer> MakeBalancer(const std::string& name, int providers,
                                                  Scenario scenario) {
  auto balancer = ferry::ExtensionRegistry::Instance().Create<ferry::LoadBalancer>(name);
  ferry::LoadBalancerOptions options;
  options.warmup = std::chrono::minutes(10);
  if (!balancer->Configure(options).ok()) return nullptr;
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  std::vector<ferry::BalancerEndpoint> endpoints(providers);
  for (int i = 0; i < providers; ++i) {
    endpoints[i].address =
        "10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ":7001";
    endpoints[i].weight = 100 + 10 * (i % 5);
    endpoints[i].load->ewma_latency_ns = 1'000'000 + 1'000 * i;
    if (scenario == Scenario::kWarming) endpoints[i].start_time_ms = now_ms;
  }
  balancer->Update(std::move(endpoints));
  return balancer;
}

void Select(benchmark::State& state, const std::shared_ptr<ferry::LoadBalancer>& balancer,
            Scenario scenario) {
  const std::vector<std::string> excluded = {"10.0.0.1:7001"};
  ferry::SelectRequest request;
  if (scenario == Scenario::kExcluding) request.excluded = excluded;
  uint64_t key = static_cast<uint64_t>(state.thread_index()) << 32;
  for (auto _ : state) {
    request.hash_key = ++key;
    benchmark::DoNotOptimize(balancer->Select(request));
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const std::pair<const char*, Scenario> scenarios[] = {{"plain", Scenario::kPlain},
                                                        {"excluding", Scenario::kExcluding},
                                                        {"warming", Scenario::kWarming}};
  for (const char* name :
       {"round_robin", "random", "least_active", "consistent_hash", "latency_aware"}) {
    for (const auto& [scenario_name, scenario] : scenarios) {
      for (int providers : {10, 100}) {
        auto balancer = MakeBalancer(name, providers, scenario);
        if (balancer == nullptr) return 1;
        const std::string label =
            std::string(name) + "/" + scenario_name + "/" + std::to_string(providers);
        benchmark::RegisterBenchmark(label.c_str(), Select, balancer, scenario)
            ->Threads(1)
            ->Threads(2)
            ->UseRealTime();
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
