#include "hmac_sha256.h"

#include "hmac_sha256_key.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace ferry::plugins {
namespace {

std::string Bytes(size_t count, char value) { return std::string(count, value); }

std::string Hex(const Sha256Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : digest) {
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

struct Rfc4231Case {
  const char* name;
  std::string key;
  std::string data;
  const char* hmac_sha256;

  friend void PrintTo(const Rfc4231Case& c, std::ostream* os) { *os << c.name; }
};

// RFC 4231 section 4; case 5 (a truncated output) does not apply to a full digest.
class HmacSha256Rfc4231Test : public ::testing::TestWithParam<Rfc4231Case> {};

TEST_P(HmacSha256Rfc4231Test, MatchesTheRfc) {
  const std::optional<Sha256Digest> digest = HmacSha256(GetParam().key, {GetParam().data});
  ASSERT_TRUE(digest.has_value());
  EXPECT_EQ(Hex(*digest), GetParam().hmac_sha256);
}

TEST_P(HmacSha256Rfc4231Test, AKeyKeyedOnceMatchesTheRfc) {
  const HmacSha256Key key(GetParam().key);
  ASSERT_TRUE(key.ok());
  const std::string& data = GetParam().data;
  // Twice, split: each MAC starts from the keyed state, whatever the one before it hashed.
  for (int i = 0; i < 2; ++i) {
    const std::optional<Sha256Digest> digest =
        key.Mac({std::string_view(data).substr(0, data.size() / 2),
                 std::string_view(data).substr(data.size() / 2)});
    ASSERT_TRUE(digest.has_value());
    EXPECT_EQ(Hex(*digest), GetParam().hmac_sha256);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rfc4231, HmacSha256Rfc4231Test,
    ::testing::Values(
        Rfc4231Case{"case1", Bytes(20, '\x0b'), "Hi There",
                    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        Rfc4231Case{"case2", "Jefe", "what do ya want for nothing?",
                    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        Rfc4231Case{"case3", Bytes(20, '\xaa'), Bytes(50, '\xdd'),
                    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
        Rfc4231Case{"case4", FromHex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
                    Bytes(50, '\xcd'),
                    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
        Rfc4231Case{"case6", Bytes(131, '\xaa'),
                    "Test Using Larger Than Block-Size Key - Hash Key First",
                    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
        Rfc4231Case{"case7", Bytes(131, '\xaa'),
                    "This is a test using a larger than block-size key and a larger than "
                    "block-size data. The key needs to be hashed before being used by the HMAC "
                    "algorithm.",
                    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(HmacSha256Test, PartsAreHashedAsTheirConcatenation) {
  EXPECT_EQ(HmacSha256("Jefe", {"what do ya ", "", "want for nothing?"}),
            HmacSha256("Jefe", {"what do ya want for nothing?"}));
}

TEST(HmacSha256Test, AKeyChangeBetweenCallsIsHonoured) {
  // The per-thread context is re-keyed on every call; a stale key would repeat the digest.
  const auto first = HmacSha256("key one", {"message"});
  const auto second = HmacSha256("key two", {"message"});
  ASSERT_TRUE(first && second);
  EXPECT_NE(*first, *second);
  EXPECT_EQ(HmacSha256("key one", {"message"}), first);
}

}  // namespace
}  // namespace ferry::plugins
