#include "trace/trace_ids.h"

#include <gtest/gtest.h>

#include <string>

namespace ferry::trace {
namespace {

TEST(TraceIdsTest, IdsAreLowercaseHexOfW3CLengthsAndRandom) {
  std::string trace = "previous content that is longer than any id, to be replaced";
  std::string other;
  FillRandomTraceId(&trace);
  FillRandomTraceId(&other);
  ASSERT_EQ(trace.size(), kTraceIdLength);
  EXPECT_EQ(trace.find_first_not_of("0123456789abcdef"), std::string::npos) << trace;
  EXPECT_NE(trace, other);
}

TEST(TraceIdsTest, ATraceIdIs32LowercaseHexDigitsNotAllZero) {
  std::string fresh;
  FillRandomTraceId(&fresh);
  EXPECT_TRUE(IsTraceId(fresh));
  EXPECT_TRUE(IsTraceId("4bf92f3577b34da6a3ce929d0e0e4736"));
  for (const std::string& id :
       {std::string(), std::string("a\nb"), std::string("4bf92f3577b34da6"),
        std::string("4bf92f3577b34da6a3ce929d0e0e473"),
        std::string("4bf92f3577b34da6a3ce929d0e0e47360"),
        std::string("4BF92F3577B34DA6A3CE929D0E0E4736"),
        std::string("4bf92f3577b34da6a3ce929d0e0e473g"), std::string(32, '0'),
        std::string("4bf92f3577b34da6a3ce929d0e0e47\n6")}) {
    EXPECT_FALSE(IsTraceId(id)) << id;
  }
}

TEST(TraceIdsTest, SpanIdsAreNonZeroAndReadBackFromTheirHexDigits) {
  const uint64_t span = RandomSpanId();
  EXPECT_NE(span, 0u);
  EXPECT_NE(span, RandomSpanId());
  std::string hex = "previous content";
  FormatSpanId(0x00f067aa0ba902b7ull, &hex);
  EXPECT_EQ(hex, "00f067aa0ba902b7");  // most significant digit first, as in a traceparent
  FormatSpanId(0xfedcba9876543210ull, &hex);
  EXPECT_EQ(hex, "fedcba9876543210");
  EXPECT_EQ(ParseSpanId(hex), 0xfedcba9876543210ull);
  FormatSpanId(span, &hex);
  EXPECT_EQ(ParseSpanId(hex), span);
  FormatSpanId(0, &hex);
  EXPECT_EQ(hex, "");
}

TEST(TraceIdsTest, SpanIdsOfAnyOtherShapeReadAsNone) {
  EXPECT_EQ(ParseSpanId(""), 0u);
  EXPECT_EQ(ParseSpanId("00f067aa0ba902b"), 0u);    // 15 digits
  EXPECT_EQ(ParseSpanId("00f067aa0ba902b77"), 0u);  // 17
  EXPECT_EQ(ParseSpanId("00F067AA0BA902B7"), 0u);   // W3C ids are lowercase
  EXPECT_EQ(ParseSpanId("00f067aa0ba902g7"), 0u);
}

TEST(TraceIdsTest, ParsesTheTraceParentOfTheW3CSpecification) {
  TraceParent parent;
  ASSERT_TRUE(ParseTraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &parent));
  EXPECT_EQ(parent.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(parent.parent_span_id, "00f067aa0ba902b7");
  EXPECT_TRUE(parent.sampled);
  ASSERT_TRUE(ParseTraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", &parent));
  EXPECT_FALSE(parent.sampled);
  // A later version may add fields after a dash; it is read as version 00 reads it.
  EXPECT_TRUE(ParseTraceParent(
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next", &parent));
}

TEST(TraceIdsTest, RefusesMalformedTraceParents) {
  TraceParent parent;
  for (const char* header : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",       // no flags
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",    // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",    // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",    // zero parent
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // version ff
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // 00 with more
           "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",    // separators
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",    // not hex
       }) {
    EXPECT_FALSE(ParseTraceParent(header, &parent)) << header;
  }
}

TEST(TraceIdsTest, FormatsWhatItParses) {
  const std::string header =
      FormatTraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true);
  EXPECT_EQ(header, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  TraceParent parent;
  EXPECT_TRUE(ParseTraceParent(header, &parent));
}

}  // namespace
}  // namespace ferry::trace
