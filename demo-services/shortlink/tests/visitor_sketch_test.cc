#include "storage/visitor_sketch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace ferry::shortlink {
namespace {

// Well-mixed 64-bit values, as SHA-256-derived visitor hashes are (SplitMix64).
class Hashes {
 public:
  explicit Hashes(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

VisitorSketch Distinct(int n, uint64_t seed) {
  VisitorSketch sketch;
  Hashes hashes(seed);
  for (int i = 0; i < n; ++i) sketch.Add(hashes.Next());
  return sketch;
}

VisitorSketch RoundTrip(const VisitorSketch& sketch) {
  VisitorSketch back;
  std::string error;
  EXPECT_TRUE(VisitorSketch::Parse(sketch.Serialize(), &back, &error)) << error;
  return back;
}

TEST(VisitorSketchTest, CountsExactlyUpToTheLimitAndIgnoresRepeats) {
  VisitorSketch sketch;
  EXPECT_EQ(sketch.Count(), 0);
  EXPECT_EQ(sketch.Serialize(), "");
  Hashes hashes(7);
  std::vector<uint64_t> seen;
  for (size_t i = 0; i < VisitorSketch::kExactLimit; ++i) seen.push_back(hashes.Next());
  for (int pass = 0; pass < 3; ++pass) {
    for (uint64_t v : seen) sketch.Add(v);
  }
  EXPECT_TRUE(sketch.exact());
  EXPECT_EQ(sketch.Count(), static_cast<int64_t>(VisitorSketch::kExactLimit));
  const VisitorSketch back = RoundTrip(sketch);
  EXPECT_TRUE(back.exact());
  EXPECT_EQ(back.Count(), sketch.Count());
  EXPECT_EQ(back.Serialize(), sketch.Serialize());
}

TEST(VisitorSketchTest, PastTheLimitItEstimatesInAFixedSize) {
  VisitorSketch sketch = Distinct(VisitorSketch::kExactLimit + 1, 11);
  EXPECT_FALSE(sketch.exact());
  EXPECT_NEAR(sketch.Count(), 1025, 1025 * 0.03);
  const VisitorSketch big = Distinct(1'000'000, 13);
  EXPECT_EQ(big.Serialize().size(), 1 + VisitorSketch::kRegisters);
  const VisitorSketch back = RoundTrip(big);
  EXPECT_EQ(back.Count(), big.Count());
}

// Within three standard errors (3 x 1.04 / sqrt(2^14) = 2.4%) across the range, including
// where plain HyperLogLog switches estimators and is biased (a few times 2^14).
TEST(VisitorSketchTest, EstimatesWithinThreeStandardErrors) {
  for (int n : {2'000, 10'000, 40'000, 80'000, 300'000, 2'000'000}) {
    const VisitorSketch sketch = Distinct(n, 1000 + n);
    EXPECT_NEAR(static_cast<double>(sketch.Count()), n, n * 0.024) << n << " visitors";
  }
}

TEST(VisitorSketchTest, MergingTheSameVisitorsAgainChangesNothing) {
  VisitorSketch sketch = Distinct(50'000, 21);
  const std::string before = sketch.Serialize();
  Hashes again(21);
  for (int i = 0; i < 50'000; ++i) sketch.Add(again.Next());
  EXPECT_EQ(sketch.Serialize(), before);
}

TEST(VisitorSketchTest, RefusesBytesItDidNotWrite) {
  VisitorSketch sketch;
  std::string error;
  EXPECT_FALSE(VisitorSketch::Parse("X123", &sketch, &error));
  EXPECT_NE(error.find("unknown format"), std::string::npos) << error;
  EXPECT_FALSE(VisitorSketch::Parse("E1234567", &sketch, &error));  // not whole hashes
  EXPECT_NE(error.find("bytes of hashes"), std::string::npos) << error;
  std::string descending = "E";
  descending += std::string("\x02\0\0\0\0\0\0\0", 8);
  descending += std::string("\x01\0\0\0\0\0\0\0", 8);
  EXPECT_FALSE(VisitorSketch::Parse(descending, &sketch, &error));
  EXPECT_NE(error.find("ascending"), std::string::npos) << error;
  EXPECT_FALSE(VisitorSketch::Parse("H" + std::string(100, '\0'), &sketch, &error));
  EXPECT_NE(error.find("registers"), std::string::npos) << error;
  std::string high = "H" + std::string(VisitorSketch::kRegisters, '\0');
  high[5] = 52;
  EXPECT_FALSE(VisitorSketch::Parse(high, &sketch, &error));
  EXPECT_NE(error.find("above 51"), std::string::npos) << error;
}

TEST(VisitorSketchTest, VisitorsAreSixteenHexDigits) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseVisitor("0123456789abcdef", &v));
  EXPECT_EQ(v, 0x0123456789abcdefULL);
  EXPECT_FALSE(ParseVisitor("0123456789abcde", &v));
  EXPECT_FALSE(ParseVisitor("0123456789abcdeg", &v));
  EXPECT_FALSE(ParseVisitor("-123456789abcdef", &v));
}

}  // namespace
}  // namespace ferry::shortlink
