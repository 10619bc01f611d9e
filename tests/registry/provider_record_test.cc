#include "provider_record.h"

#include <gtest/gtest.h>

namespace ferry::registry {
namespace {

ProviderInfo FullProvider() {
  ProviderInfo provider;
  provider.address = "10.1.2.3:7001";
  provider.weight = 250;
  provider.version = "1.4.2";
  provider.group = "blue";
  provider.zone = "az-1";
  provider.start_time_ms = 1732900000123;
  provider.methods = {"Echo", "Delay"};
  return provider;
}

TEST(ProviderRecordTest, RoundTripsEveryField) {
  const ProviderInfo provider = FullProvider();
  std::string record;
  ASSERT_TRUE(EncodeProviderRecord(provider, &record).ok());
  ProviderInfo decoded;
  Status status = DecodeProviderRecord(provider.address, record, &decoded);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(decoded, provider);
}

TEST(ProviderRecordTest, IsHumanReadableKeyValueLines) {
  std::string record;
  ASSERT_TRUE(EncodeProviderRecord(FullProvider(), &record).ok());
  EXPECT_EQ(record,
            "ferry-provider 1\nweight=250\nversion=1.4.2\ngroup=blue\nzone=az-1\n"
            "start_time_ms=1732900000123\nmethods=Echo,Delay\n");
}

TEST(ProviderRecordTest, DefaultsRoundTripWithEmptyFields) {
  ProviderInfo provider;
  provider.address = "[::1]:80";
  std::string record;
  ASSERT_TRUE(EncodeProviderRecord(provider, &record).ok());
  ProviderInfo decoded;
  ASSERT_TRUE(DecodeProviderRecord(provider.address, record, &decoded).ok());
  EXPECT_EQ(decoded, provider);
  EXPECT_TRUE(decoded.methods.empty());
}

TEST(ProviderRecordTest, UnknownKeysAreIgnoredAndMissingKeysDefault) {
  ProviderInfo decoded;
  Status status = DecodeProviderRecord("h:1", "ferry-provider 1\nweight=7\nshard=3", &decoded);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(decoded.weight, 7u);
  EXPECT_EQ(decoded.address, "h:1");
  EXPECT_EQ(decoded.start_time_ms, 0);
  EXPECT_TRUE(decoded.version.empty());
}

TEST(ProviderRecordTest, MalformedRecordsAreRejectedWithAReason) {
  const struct {
    const char* address;
    const char* data;
    const char* reason;
  } cases[] = {
      {"h:1", "", "empty"},
      {"h:1", "{\"weight\":100}", "first line"},
      {"h:1", "ferry-provider 2\nweight=1\n", "first line"},
      {"h:1", "ferry-provider 1\nweight=heavy\n", "bad value"},
      {"h:1", "ferry-provider 1\nweight=99999999999999999999\n", "bad value"},
      {"h:1", "ferry-provider 1\nstart_time_ms=\n", "bad value"},
      {"h:1", "ferry-provider 1\nmethods=Echo,,Delay\n", "bad value"},
      {"h:1", "ferry-provider 1\nweight=1\nweight=2\n", "twice"},
      {"h:1", "ferry-provider 1\njust text\n", "not key=value"},
      {"h:1", "ferry-provider 1\n=value\n", "not key=value"},
      {"not-an-address", "ferry-provider 1\n", "host:port"},
      {"h:0", "ferry-provider 1\n", "host:port"},
  };
  for (const auto& c : cases) {
    ProviderInfo decoded;
    Status status = DecodeProviderRecord(c.address, c.data, &decoded);
    EXPECT_EQ(status.code(), StatusCode::DATA_LOSS) << c.data;
    EXPECT_NE(status.message().find(c.reason), std::string::npos) << status;
  }
}

TEST(ProviderRecordTest, AbsurdWeightsAreRefusedNamingTheProvider) {
  for (const char* weight : {"0", "-1", "-100", "100001", "99999999999"}) {
    ProviderInfo decoded;
    Status status = DecodeProviderRecord(
        "10.0.0.1:7001", std::string("ferry-provider 1\nweight=") + weight + "\n", &decoded);
    EXPECT_EQ(status.code(), StatusCode::DATA_LOSS) << weight;
    EXPECT_EQ(status.message(),
              std::string("malformed record of provider '10.0.0.1:7001': weight ") + weight +
                  " is outside 1..100000");
  }
  for (uint32_t weight : {1u, 100000u}) {
    ProviderInfo decoded;
    ASSERT_TRUE(
        DecodeProviderRecord("h:1", "ferry-provider 1\nweight=" + std::to_string(weight), &decoded)
            .ok());
    EXPECT_EQ(decoded.weight, weight);
  }
}

TEST(ProviderRecordTest, WeightsReadersWouldRefuseCannotBeEncoded) {
  std::string record;
  for (uint32_t weight : {0u, kMaxProviderWeight + 1}) {
    ProviderInfo provider = FullProvider();
    provider.weight = weight;
    Status status = EncodeProviderRecord(provider, &record);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << weight;
    EXPECT_NE(status.message().find("weight " + std::to_string(weight) + " (expected 1..100000)"),
              std::string::npos)
        << status;
  }
}

TEST(ProviderRecordTest, ValuesThatWouldBreakTheFormatCannotBeEncoded) {
  std::string record;
  ProviderInfo provider = FullProvider();
  provider.group = "blue\nweight=1";
  EXPECT_EQ(EncodeProviderRecord(provider, &record).code(), StatusCode::INVALID_ARGUMENT);
  provider = FullProvider();
  provider.methods = {"Echo,Delay"};
  EXPECT_EQ(EncodeProviderRecord(provider, &record).code(), StatusCode::INVALID_ARGUMENT);
  provider = FullProvider();
  provider.methods = {""};
  EXPECT_EQ(EncodeProviderRecord(provider, &record).code(), StatusCode::INVALID_ARGUMENT);
  provider = FullProvider();
  provider.address = "10.1.2.3";
  EXPECT_EQ(EncodeProviderRecord(provider, &record).code(), StatusCode::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace ferry::registry
