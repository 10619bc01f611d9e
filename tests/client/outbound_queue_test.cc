#include "transport/outbound_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace ferry::transport {
namespace {

TEST(OutboundQueueTest, OnlyTheFirstAppendOfAnIdleQueueStartsAFlush) {
  OutboundQueue queue;
  EXPECT_TRUE(queue.Append("a"));
  EXPECT_FALSE(queue.Append("b"));
  std::string taken;
  ASSERT_TRUE(queue.TakeAll(&taken));
  EXPECT_EQ(taken, "ab");
  EXPECT_FALSE(queue.TakeAll(&taken));  // ends the flush
  EXPECT_TRUE(queue.Append("c"));
}

using Appended = OutboundQueue::Appended;
constexpr size_t kNoLimit = SIZE_MAX;

TEST(OutboundQueueTest, BytesOfAnEndedLinkAreRefusedNotCarriedToTheNext) {
  OutboundQueue queue;
  bool must_flush = false;
  ASSERT_EQ(queue.AppendToLink("call-1", 0, kNoLimit, &must_flush), Appended::kQueued);
  EXPECT_TRUE(must_flush);
  queue.ClearForLink(1);  // link 0 went down: its bytes go, and so does any late caller's
  EXPECT_EQ(queue.pending_bytes(), 0u);
  EXPECT_EQ(queue.AppendToLink("call-2", 0, kNoLimit, &must_flush), Appended::kStaleLink);
  EXPECT_FALSE(must_flush);
  EXPECT_EQ(queue.pending_bytes(), 0u);
  ASSERT_EQ(queue.AppendToLink("call-3", 1, kNoLimit, &must_flush), Appended::kQueued);
  EXPECT_TRUE(must_flush);
  std::string taken;
  ASSERT_TRUE(queue.TakeAll(&taken));
  EXPECT_EQ(taken, "call-3");
}

TEST(OutboundQueueTest, BytesBeyondTheLimitAreRefusedWhole) {
  OutboundQueue queue;
  bool must_flush = false;
  ASSERT_EQ(queue.AppendToLink("12345", 0, 8, &must_flush), Appended::kQueued);
  EXPECT_EQ(queue.AppendToLink("6789", 0, 8, &must_flush), Appended::kFull);
  EXPECT_FALSE(must_flush);
  EXPECT_EQ(queue.pending_bytes(), 5u);
  EXPECT_EQ(queue.AppendToLink("678", 0, 8, &must_flush), Appended::kQueued);
  EXPECT_EQ(queue.pending_bytes(), 8u);
}

}  // namespace
}  // namespace ferry::transport
