// The bit layout and the decode helper.
#include "ferry/idgen/id_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ferry::idgen {
namespace {

TEST(IdLayoutTest, FieldsFillSixtyThreeBitsBelowTheSignBit) {
  static_assert(kTimestampBits + kWorkerIdBits + kSequenceBits == 63);
  EXPECT_EQ(kMaxWorkerId, 1023u);
  EXPECT_EQ(kMaxSequence, 4095u);
  // Every field at its maximum is the largest positive int64: nothing spills into the sign.
  EXPECT_EQ(ComposeId(kMaxTimestamp, kMaxWorkerId, kMaxSequence),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ComposeId(0, 0, 0), 0);
  EXPECT_EQ(ComposeId(1, 0, 0), int64_t{1} << 22);
  EXPECT_EQ(ComposeId(0, 1, 0), int64_t{1} << 12);
  EXPECT_EQ(ComposeId(0, 0, 1), 1);
}

TEST(IdLayoutTest, DefaultEpochIsTheStartOf2026) {
  // 2026-01-01T00:00:00Z: 56 years of 365 days plus 14 leap days after 1970-01-01.
  EXPECT_EQ(kDefaultEpochMs, (56LL * 365 + 14) * 86400 * 1000);
}

TEST(IdLayoutTest, DecodeRoundTripsEveryField) {
  const struct {
    int64_t timestamp;
    uint32_t worker;
    uint32_t sequence;
  } cases[] = {{0, 0, 0},
               {1, 2, 3},
               {123456789, 1023, 0},
               {kMaxTimestamp, 0, kMaxSequence},
               {kMaxTimestamp, kMaxWorkerId, kMaxSequence},
               {42, 512, 2048}};
  for (const auto& c : cases) {
    const int64_t id = ComposeId(c.timestamp, c.worker, c.sequence);
    ASSERT_GE(id, 0);
    const auto decoded = DecodeId(id);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->timestamp_ms, c.timestamp);
    EXPECT_EQ(decoded->unix_ms, c.timestamp + kDefaultEpochMs);
    EXPECT_EQ(decoded->worker_id, c.worker);
    EXPECT_EQ(decoded->sequence, c.sequence);
  }
}

TEST(IdLayoutTest, DecodeUsesTheGivenEpochAndRejectsNegativeIds) {
  const auto decoded = DecodeId(ComposeId(1000, 7, 9), /*epoch_ms=*/5000);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded,
            (DecodedId{.timestamp_ms = 1000, .unix_ms = 6000, .worker_id = 7, .sequence = 9}));
  EXPECT_FALSE(DecodeId(-1));
  EXPECT_FALSE(DecodeId(std::numeric_limits<int64_t>::min()));
}

}  // namespace
}  // namespace ferry::idgen
