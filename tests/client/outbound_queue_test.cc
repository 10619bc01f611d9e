#include "transport/outbound_queue.h"

#include <gtest/gtest.h>

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

TEST(OutboundQueueTest, BytesOfAnEndedLinkAreRefusedNotCarriedToTheNext) {
  OutboundQueue queue;
  bool must_flush = false;
  ASSERT_TRUE(queue.AppendToLink("call-1", 0, &must_flush));
  EXPECT_TRUE(must_flush);
  queue.ClearForLink(1);  // link 0 went down: its bytes go, and so does any late caller's
  EXPECT_EQ(queue.pending_bytes(), 0u);
  EXPECT_FALSE(queue.AppendToLink("call-2", 0, &must_flush));
  EXPECT_FALSE(must_flush);
  EXPECT_EQ(queue.pending_bytes(), 0u);
  ASSERT_TRUE(queue.AppendToLink("call-3", 1, &must_flush));
  EXPECT_TRUE(must_flush);
  std::string taken;
  ASSERT_TRUE(queue.TakeAll(&taken));
  EXPECT_EQ(taken, "call-3");
}

}  // namespace
}  // namespace ferry::transport
