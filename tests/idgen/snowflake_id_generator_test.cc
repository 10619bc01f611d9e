// SnowflakeIdGenerator: uniqueness across threads on the real clock, and the clock rules
// (sequence exhaustion, small and large steps back) on a fake one.
#include "ferry/idgen/snowflake_id_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "fake_clock.h"
#include "log_capture.h"

namespace ferry::idgen {
namespace {

using testsupport::LogCapture;
using testutil::FakeClock;

constexpr int64_t kStart = kDefaultEpochMs + 1'000'000;  // the fake clock's first reading

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<SnowflakeIdGenerator> MakeGenerator(
    std::shared_ptr<Clock> clock, uint32_t worker_id = 3,
    std::chrono::milliseconds tolerance = std::chrono::milliseconds(5)) {
  std::unique_ptr<SnowflakeIdGenerator> generator;
  const Status status = SnowflakeIdGenerator::Create(
      worker_id, {.max_clock_step_back = tolerance, .clock = std::move(clock)}, &generator);
  EXPECT_TRUE(status.ok()) << status;
  return generator;
}

int64_t Next(SnowflakeIdGenerator& generator) {
  int64_t id = -1;
  const Status status = generator.NextId(&id);
  EXPECT_TRUE(status.ok()) << status;
  return id;
}

DecodedId Decode(const SnowflakeIdGenerator& generator, int64_t id) {
  const auto decoded = generator.Decode(id);
  EXPECT_TRUE(decoded) << id;
  return decoded.value_or(DecodedId{});
}

TEST(SnowflakeIdGeneratorTest, IdsAreUniqueAndIncreasingAcrossThreads) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50'000;
  auto generator = MakeGenerator(SystemClock(), /*worker_id=*/517);
  ASSERT_TRUE(generator);
  const int64_t before = NowMs();
  std::vector<std::vector<int64_t>> ids(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ids[t].reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) {
        int64_t id = 0;
        if (!generator->NextId(&id).ok()) {
          ++failures;
          return;
        }
        ids[t].push_back(id);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const int64_t after = NowMs();
  ASSERT_EQ(failures.load(), 0);

  std::vector<int64_t> all;
  for (const auto& mine : ids) {
    ASSERT_EQ(mine.size(), static_cast<size_t>(kPerThread));
    // What one thread sees is strictly increasing: each id is issued after the previous.
    EXPECT_TRUE(std::adjacent_find(mine.begin(), mine.end(), std::greater_equal<>()) == mine.end());
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_TRUE(std::adjacent_find(all.begin(), all.end()) == all.end()) << "duplicate ids";
  EXPECT_GT(all.front(), 0);
  for (int64_t id : {all.front(), all.back()}) {
    const DecodedId decoded = Decode(*generator, id);
    EXPECT_EQ(decoded.worker_id, 517u);
    EXPECT_GE(decoded.unix_ms, before);
    EXPECT_LE(decoded.unix_ms, after);
  }
}

TEST(SnowflakeIdGeneratorTest, SequenceCountsUpWithinAMillisecondAndRestartsInTheNext) {
  auto clock = std::make_shared<FakeClock>(kStart);
  auto generator = MakeGenerator(clock);
  const DecodedId first = Decode(*generator, Next(*generator));
  const DecodedId second = Decode(*generator, Next(*generator));
  EXPECT_EQ(first, (DecodedId{.timestamp_ms = kStart - kDefaultEpochMs,
                              .unix_ms = kStart,
                              .worker_id = 3,
                              .sequence = 0}));
  EXPECT_EQ(second.unix_ms, kStart);
  EXPECT_EQ(second.sequence, 1u);
  clock->Advance(7);
  const DecodedId third = Decode(*generator, Next(*generator));
  EXPECT_EQ(third.unix_ms, kStart + 7);
  EXPECT_EQ(third.sequence, 0u);
  EXPECT_EQ(clock->sleeps(), 0);
}

TEST(SnowflakeIdGeneratorTest, SequenceExhaustionWaitsForTheNextMillisecond) {
  auto clock = std::make_shared<FakeClock>(kStart);
  auto generator = MakeGenerator(clock);
  int64_t last = -1;
  for (uint32_t i = 0; i <= kMaxSequence; ++i) {
    const int64_t id = Next(*generator);
    ASSERT_GT(id, last);
    last = id;
    const DecodedId decoded = Decode(*generator, id);
    ASSERT_EQ(decoded.unix_ms, kStart);
    ASSERT_EQ(decoded.sequence, i);
  }
  EXPECT_EQ(clock->sleeps(), 0);
  // The 4097th id of the millisecond waits for the next one rather than wrap around.
  const int64_t id = Next(*generator);
  EXPECT_GT(id, last);
  EXPECT_EQ(clock->sleeps(), 1);
  EXPECT_EQ(clock->NowMs(), kStart + 1);
  const DecodedId decoded = Decode(*generator, id);
  EXPECT_EQ(decoded.unix_ms, kStart + 1);
  EXPECT_EQ(decoded.sequence, 0u);
}

TEST(SnowflakeIdGeneratorTest, SmallStepBackIsWaitedOut) {
  LogCapture log;
  auto clock = std::make_shared<FakeClock>(kStart);
  auto generator = MakeGenerator(clock, 3, std::chrono::milliseconds(5));
  int64_t last = Next(*generator);
  for (int64_t back : {1, 3, 5}) {
    clock->Set(kStart - back);
    const int64_t id = Next(*generator);
    EXPECT_GT(id, last);
    last = id;
    const DecodedId decoded = Decode(*generator, id);
    // Waited until the clock was back at the last issued millisecond, then went on counting.
    EXPECT_EQ(clock->NowMs(), kStart);
    EXPECT_EQ(decoded.unix_ms, kStart);
  }
  EXPECT_EQ(clock->sleeps(), 3);
  EXPECT_EQ(log.Count(spdlog::level::warn, "the clock stepped back 5 ms (tolerance 5 ms)"), 1u);
  EXPECT_EQ(log.Count(spdlog::level::err, "refusing"), 0u);
}

TEST(SnowflakeIdGeneratorTest, LargeStepBackRefusesWithUnavailableUntilTheClockCatchesUp) {
  LogCapture log;
  auto clock = std::make_shared<FakeClock>(kStart);
  auto generator = MakeGenerator(clock, 3, std::chrono::milliseconds(5));
  const int64_t before = Next(*generator);

  clock->Set(kStart - 6);  // just beyond the tolerance
  int64_t id = -1;
  Status status = generator->NextId(&id);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(status.message().find("the clock stepped back 6 ms, beyond the 5 ms tolerance"),
            std::string::npos)
      << status;
  EXPECT_EQ(id, -1);

  clock->Set(kStart - 60'000);  // a minute back, e.g. an operator's mistake
  for (int i = 0; i < 3; ++i) {
    status = generator->NextId(&id);
    EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
    EXPECT_NE(status.message().find("stepped back 60000 ms"), std::string::npos) << status;
  }
  EXPECT_EQ(id, -1);
  EXPECT_EQ(clock->sleeps(), 0);  // refused at once, not slept on
  // One error for the whole episode, not one per refused call.
  EXPECT_EQ(log.Count(spdlog::level::err, "idgen: refusing to issue ids"), 1u);

  // Once the clock is back at the last issued millisecond, ids continue above the last one.
  clock->Set(kStart);
  const int64_t after = Next(*generator);
  EXPECT_GT(after, before);
  EXPECT_EQ(log.Count(spdlog::level::warn, "issuing ids after 4 refusals"), 1u);
}

TEST(SnowflakeIdGeneratorTest, ZeroToleranceRefusesAnyStepBack) {
  auto clock = std::make_shared<FakeClock>(kStart);
  auto generator = MakeGenerator(clock, 3, std::chrono::milliseconds(0));
  Next(*generator);
  clock->Set(kStart - 1);
  int64_t id = 0;
  EXPECT_EQ(generator->NextId(&id).code(), StatusCode::UNAVAILABLE);
  clock->Set(kStart + 1);
  EXPECT_TRUE(generator->NextId(&id).ok());
}

TEST(SnowflakeIdGeneratorTest, ClockOutsideTheEpochsRangeIsRefused) {
  auto clock = std::make_shared<FakeClock>(kDefaultEpochMs - 1);
  auto generator = MakeGenerator(clock);
  int64_t id = 0;
  Status status = generator->NextId(&id);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(status.message().find("before the id epoch"), std::string::npos) << status;

  clock->Set(kDefaultEpochMs + kMaxTimestamp);  // the very last millisecond is still fine
  EXPECT_TRUE(generator->NextId(&id).ok());
  EXPECT_EQ(id >> kTimestampShift, kMaxTimestamp);
  clock->Set(kDefaultEpochMs + kMaxTimestamp + 1);
  status = generator->NextId(&id);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(status.message().find("beyond the 41-bit range"), std::string::npos) << status;
}

TEST(SnowflakeIdGeneratorTest, CustomEpochIsUsedForIdsAndDecoding) {
  constexpr int64_t kEpoch = 1'600'000'000'000;
  auto clock = std::make_shared<FakeClock>(kEpoch + 1234);
  std::unique_ptr<SnowflakeIdGenerator> generator;
  ASSERT_TRUE(
      SnowflakeIdGenerator::Create(9, {.epoch_ms = kEpoch, .clock = clock}, &generator).ok());
  EXPECT_EQ(generator->epoch_ms(), kEpoch);
  const int64_t id = Next(*generator);
  EXPECT_EQ(id, ComposeId(1234, 9, 0));
  EXPECT_EQ(Decode(*generator, id).unix_ms, kEpoch + 1234);
}

TEST(SnowflakeIdGeneratorTest, OutOfRangeWorkerIdAndOptionsAreRejected) {
  std::unique_ptr<SnowflakeIdGenerator> generator;
  Status status = SnowflakeIdGenerator::Create(kMaxWorkerId + 1, {}, &generator);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.message(), "idgen worker id 1024 is out of range 0..1023");
  EXPECT_FALSE(generator);
  EXPECT_EQ(SnowflakeIdGenerator::Create(70000, {}, &generator).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(SnowflakeIdGenerator::Create(1, {.epoch_ms = -1}, &generator).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(SnowflakeIdGenerator::Create(1, {.max_clock_step_back = std::chrono::milliseconds(-1)},
                                         &generator)
                .code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(
      SnowflakeIdGenerator::Create(std::shared_ptr<const WorkerIdLease>(), {}, &generator).code(),
      StatusCode::INVALID_ARGUMENT);
  EXPECT_FALSE(generator);
  ASSERT_TRUE(SnowflakeIdGenerator::Create(kMaxWorkerId, {}, &generator).ok());
  EXPECT_EQ(Decode(*generator, Next(*generator)).worker_id, kMaxWorkerId);
}

// A lease the test hands ids to and takes them away from.
class FakeLease final : public WorkerIdLease {
 public:
  Status Current(uint32_t* worker_id) const override {
    const int64_t id = id_.load();
    if (id < 0) return Status(StatusCode::UNAVAILABLE, "fake lease not held");
    *worker_id = static_cast<uint32_t>(id);
    return Status::Ok();
  }
  void Set(int64_t id) { id_.store(id); }

 private:
  std::atomic<int64_t> id_{-1};
};

TEST(SnowflakeIdGeneratorTest, LeasedWorkerIdIsAskedForEveryId) {
  auto clock = std::make_shared<FakeClock>(kStart);
  auto lease = std::make_shared<FakeLease>();
  std::unique_ptr<SnowflakeIdGenerator> generator;
  ASSERT_TRUE(SnowflakeIdGenerator::Create(lease, {.clock = clock}, &generator).ok());

  int64_t id = -1;
  Status status = generator->NextId(&id);
  EXPECT_EQ(status, Status(StatusCode::UNAVAILABLE, "fake lease not held"));
  EXPECT_EQ(id, -1);

  lease->Set(800);
  const int64_t first = Next(*generator);
  EXPECT_EQ(Decode(*generator, first).worker_id, 800u);
  // Re-leased under a lower id within the same millisecond: the next id waits for the next
  // millisecond, so ids stay strictly increasing.
  lease->Set(2);
  const int64_t second = Next(*generator);
  EXPECT_GT(second, first);
  EXPECT_EQ(Decode(*generator, second), (DecodedId{.timestamp_ms = kStart + 1 - kDefaultEpochMs,
                                                   .unix_ms = kStart + 1,
                                                   .worker_id = 2,
                                                   .sequence = 0}));

  lease->Set(kMaxWorkerId + 1);  // a broken lease is reported, not encoded
  EXPECT_EQ(generator->NextId(&id).code(), StatusCode::INTERNAL);
}

}  // namespace
}  // namespace ferry::idgen
