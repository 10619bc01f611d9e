#include "cluster/outlier_state.h"

#include <gtest/gtest.h>

namespace ferry::cluster {
namespace {

using namespace std::chrono_literals;
using Clock = OutlierState::Clock;
using Phase = OutlierState::Phase;

OutlierOptions Options() {
  OutlierOptions options;
  options.consecutive_failures = 3;
  options.base_ejection = 100ms;
  options.max_ejection = 1000ms;
  return options;
}

TEST(OutlierStateTest, OnlyConsecutiveFailuresReachTheThreshold) {
  OutlierState state;
  EXPECT_FALSE(state.RecordFailure(3));
  EXPECT_FALSE(state.RecordFailure(3));
  state.RecordSuccess();
  EXPECT_FALSE(state.RecordFailure(3));
  EXPECT_FALSE(state.RecordFailure(3));
  EXPECT_TRUE(state.RecordFailure(3));
}

TEST(OutlierStateTest, ThresholdZeroDisablesDetection) {
  OutlierState state;
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(state.RecordFailure(0));
}

TEST(OutlierStateTest, EjectionPeriodDoublesWhileProbesFailUpToTheCap) {
  OutlierState state;
  const Clock::time_point now{};
  std::vector<std::chrono::milliseconds> periods;
  for (int i = 0; i < 6; ++i) {
    periods.push_back(state.Eject(now, Options()));
    EXPECT_EQ(state.phase(), Phase::kEjected);
    state.Readmit();
    EXPECT_EQ(state.phase(), Phase::kProbing);
  }
  EXPECT_EQ(periods,
            (std::vector<std::chrono::milliseconds>{100ms, 200ms, 400ms, 800ms, 1000ms, 1000ms}));
}

TEST(OutlierStateTest, LevelDecaysByOneForEveryMaxEjectionServedWell) {
  OutlierState state;
  Clock::time_point now{};
  state.Eject(now, Options());
  state.Readmit();
  state.Eject(now, Options());  // probe failed: level 2
  state.Readmit();
  state.Restore(now);  // probe succeeded
  EXPECT_EQ(state.phase(), Phase::kServing);
  // Failing again soon: one level up from 2.
  EXPECT_EQ(state.Eject(now + 500ms, Options()), 400ms);
  state.Readmit();
  state.Restore(now);
  // After 2 s of service (two max_ejection periods) level 3 has decayed to 1: next is 200 ms.
  EXPECT_EQ(state.Eject(now + 2s, Options()), 200ms);
}

TEST(OutlierStateTest, OneProbeAtATime) {
  OutlierState state;
  state.Eject(Clock::time_point{}, Options());
  state.Readmit();
  EXPECT_TRUE(state.ClaimProbe());
  EXPECT_FALSE(state.ClaimProbe());
  state.ReleaseProbe();
  EXPECT_TRUE(state.ClaimProbe());
}

TEST(OutlierStateTest, HugeBaseDoesNotOverflow) {
  OutlierState state;
  OutlierOptions options = Options();
  options.base_ejection = std::chrono::milliseconds(int64_t{1} << 50);
  options.max_ejection = std::chrono::milliseconds(int64_t{1} << 52);
  for (int i = 0; i < 70; ++i) {
    const auto period = state.Eject(Clock::time_point{}, options);
    EXPECT_GE(period, options.base_ejection);
    EXPECT_LE(period, options.max_ejection);
    state.Readmit();
  }
}

}  // namespace
}  // namespace ferry::cluster
