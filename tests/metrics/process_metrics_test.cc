#include "ferry/framework/metrics/process_metrics.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>
#include <chrono>

#include <ctime>

#include "metrics_test_util.h"

namespace ferry::metrics {
namespace {

class ProcessMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<ProcessMetrics>> registered = ProcessMetrics::Register(registry_);
    ASSERT_TRUE(registered.ok()) << registered.status();
    process_ = std::move(*registered);
  }

  double Read(std::string_view name) { return OnlyValue(registry_.Collect(), name); }

  MetricsRegistry registry_;
  std::unique_ptr<ProcessMetrics> process_;
};

TEST_F(ProcessMetricsTest, MemoryAndDescriptorsAreSane) {
  EXPECT_GT(Read("process_resident_memory_bytes"), 0);
  EXPECT_GE(Read("process_virtual_memory_bytes"), Read("process_resident_memory_bytes"));
  EXPECT_GE(Read("process_open_fds"), 3);  // stdin, stdout, stderr
  rlimit limit;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(Read("process_max_fds"), static_cast<double>(limit.rlim_cur));
}

TEST_F(ProcessMetricsTest, OpenFdsFollowsDescriptorsOpenedAndClosed) {
  const double before = Read("process_open_fds");
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  EXPECT_EQ(Read("process_open_fds"), before + 2);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  EXPECT_EQ(Read("process_open_fds"), before);
}

TEST_F(ProcessMetricsTest, CpuSecondsGrowWhileTheProcessComputes) {
  const double before = Read("process_cpu_seconds_total");
  EXPECT_GE(before, 0);
  // Computes until the kernel has charged another clock tick: waits on the event, not a time.
  volatile uint64_t sink = 0;
  while (Read("process_cpu_seconds_total") <= before) {
    for (int i = 0; i < 1'000'000; ++i) sink = sink + static_cast<uint64_t>(i);
  }
  EXPECT_GT(Read("process_cpu_seconds_total"), before);
}

TEST_F(ProcessMetricsTest, StartTimeIsInThePast) {
  const double start = Read("process_start_time_seconds");
  EXPECT_GT(start, 0);
  // /proc/stat's boot time is whole seconds (and moves with clock adjustments): a process
  // started within the current second may read up to a second ahead of the wall clock.
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(start, now + 1);
  EXPECT_GT(start, now - 3600) << "this test process started within the hour";
}

TEST_F(ProcessMetricsTest, RegisteringTwiceIsRefused) {
  EXPECT_EQ(ProcessMetrics::Register(registry_).status().code(), StatusCode::ALREADY_EXISTS);
}

TEST_F(ProcessMetricsTest, DestroyingThemStopsTheirSeries) {
  process_.reset();
  EXPECT_TRUE(registry_.Collect().empty());
}

TEST(GlobalMetricsTest, TheProcessWideRegistryHasTheProcessMetrics) {
  const std::vector<FamilySnapshot> families = Metrics().Collect();
  EXPECT_GT(OnlyValue(families, "process_resident_memory_bytes"), 0);
  EXPECT_NE(FindFamily(families, "process_cpu_seconds_total"), nullptr);
  EXPECT_EQ(&Metrics(), &Metrics());
}

}  // namespace
}  // namespace ferry::metrics
