#include "ferry/framework/hash_key.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <string>

namespace ferry {
namespace {

TEST(HashKeyTest, DependsOnlyOnTheBytes) {
  // Fixed values: every client, on every architecture and release, must place keys alike.
  EXPECT_EQ(HashKey(""), 0x7d6e4ac38b2b1be2ULL);
  EXPECT_EQ(HashKey("user-42"), 0x07cedda536335c36ULL);
  EXPECT_EQ(HashKey("a key longer than sixteen bytes"), 0xba63c46fa2fa6a9cULL);
}

TEST(HashKeyTest, LengthAndEveryByteMatter) {
  EXPECT_NE(HashKey("a"), HashKey(std::string("a\0", 2)));
  EXPECT_NE(HashKey(""), HashKey(std::string("\0", 1)));
  EXPECT_NE(HashKey("0123456789abcdef"), HashKey("0123456789abcdeg"));
  EXPECT_NE(HashKey("0123456789abcdef"), HashKey("1123456789abcdef"));
}

TEST(HashKeyTest, SpreadsSequentialKeysEvenly) {
  constexpr int kKeys = 100'000;
  constexpr int kBuckets = 16;
  std::array<int, kBuckets> low_bits{};
  std::array<int, kBuckets> high_bits{};
  for (int i = 0; i < kKeys; ++i) {
    const uint64_t hash = HashKey("user-" + std::to_string(i));
    ++low_bits[hash % kBuckets];
    ++high_bits[hash >> 60];
  }
  // Expected 6250 per bucket with a standard deviation of ~77.
  for (int b = 0; b < kBuckets; ++b) {
    EXPECT_NEAR(low_bits[b], kKeys / kBuckets, 500) << "bucket " << b;
    EXPECT_NEAR(high_bits[b], kKeys / kBuckets, 500) << "bucket " << b;
  }
}

TEST(HashKeyTest, OneFlippedInputBitFlipsAboutHalfTheOutput) {
  constexpr int kKeys = 200;
  long flipped = 0;
  long trials = 0;
  for (int i = 0; i < kKeys; ++i) {
    std::string key = "order-" + std::to_string(i * 7919);
    const uint64_t hash = HashKey(key);
    for (size_t byte = 0; byte < key.size(); ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string changed = key;
        changed[byte] = static_cast<char>(changed[byte] ^ (1 << bit));
        flipped += std::popcount(hash ^ HashKey(changed));
        ++trials;
      }
    }
  }
  EXPECT_NEAR(static_cast<double>(flipped) / trials, 32.0, 0.5);
}

}  // namespace
}  // namespace ferry
