// The binary protocol's json serializer reads bodies with the gateway's JSON codec and limits,
// plain and zstd-compressed, and skips what a newer peer may add.
#include <gtest/gtest.h>

#include <string>

#include "ferry/codec/compressor.h"
#include "ferry/codec/frame_header.h"
#include "ferry/codec/json_codec.h"
#include "ferry/codec/message_codec.h"
#include "ferry/codec/serializer.h"
#include "json_codec_test.pb.h"

namespace ferry::codec {
namespace {

using json_test::Repeated;
using json_test::WithTimestamp;

constexpr size_t kMaxBody = 16u << 20;

std::string Nested(int depth, const std::string& inner) {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

// `json` as a request body of serializer json, compressed with zstd when `zstd`.
struct Body {
  FrameHeader header;
  std::string bytes;
};
Body JsonBody(const std::string& json, bool zstd) {
  Body body;
  body.header.serializer = serializer_id::kJson;
  if (!zstd) {
    body.bytes = json;
    return body;
  }
  body.header.compression = compression_id::kZstd;
  const Compressor* compressor = FindCompressor(compression_id::kZstd);
  EXPECT_NE(compressor, nullptr);
  if (compressor != nullptr) {
    EXPECT_TRUE(compressor->Compress(json, 1, &body.bytes));
  }
  return body;
}

class JsonBodyTest : public ::testing::TestWithParam<bool> {
 protected:
  Status Parse(const std::string& json, google::protobuf::Message* message) {
    const Body body = JsonBody(json, GetParam());
    return ParseBody(body.header, body.bytes, kMaxBody, message);
  }
};

TEST_P(JsonBodyTest, DeepArraysAreRefusedAtTheLimitWhateverFollows) {
  // 16 MiB of brackets inflate from a few kilobytes; the parse stops at the 100th.
  const std::string hostile = R"({"rInt64":)" + std::string((16u << 20) - 64, '[');
  if (GetParam()) {
    EXPECT_LT(JsonBody(hostile, true).bytes.size(), 4096u);
  }
  Repeated repeated;
  const Status refused = Parse(hostile, &repeated);
  EXPECT_EQ(refused.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.message().find("rInt64[0]"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("nested deeper than 100 objects and arrays"), std::string::npos)
      << refused;
  // A type the codec leaves to protobuf's converter is held to the same limit first.
  WithTimestamp stamped;
  const Status stamped_refused = Parse(R"({"ids":)" + std::string(1u << 20, '['), &stamped);
  EXPECT_EQ(stamped_refused.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(stamped_refused.message().find("nested deeper than 100"), std::string::npos)
      << stamped_refused;
}

TEST_P(JsonBodyTest, TheRootAnd99ArraysAreTheLimit) {
  Repeated repeated;
  ASSERT_TRUE(Parse(R"({"rInt64":)" + Nested(99, "5") + "}", &repeated).ok());
  ASSERT_EQ(repeated.r_int64_size(), 1);
  EXPECT_EQ(repeated.r_int64(0), 5);
  EXPECT_EQ(Parse(R"({"rInt64":)" + Nested(100, "5") + "}", &repeated).code(),
            StatusCode::INVALID_ARGUMENT);
  WithTimestamp stamped;
  ASSERT_TRUE(Parse(R"({"ids":)" + Nested(99, "5") + "}", &stamped).ok());
  EXPECT_EQ(stamped.ids_size(), 1);
  EXPECT_EQ(Parse(R"({"ids":)" + Nested(100, "5") + "}", &stamped).code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST_P(JsonBodyTest, AFieldGivenTwiceIsRefused) {
  json_test::Everything everything;
  const Status refused = Parse(R"({"child":{"lastNumber":1},"child":{}})", &everything);
  EXPECT_EQ(refused.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.message().find("child: the field is given twice"), std::string::npos)
      << refused;
}

TEST_P(JsonBodyTest, UnknownFieldsAndEnumNamesAreSkippedWithinTheLimit) {
  json_test::Everything everything;
  const Status parsed =
      Parse(R"({"lastNumber":3,"later":{"a":[1,{"b":null}],"c":"x"},"latest":[[2]],)"
            R"("scalars":{"fEnum":"ULTRAVIOLET"},"repeated":{"rEnum":["RED","ULTRAVIOLET",2]}})",
            &everything);
  ASSERT_TRUE(parsed.ok()) << parsed;
  EXPECT_EQ(everything.last_number(), 3);
  EXPECT_TRUE(everything.has_scalars());
  EXPECT_EQ(everything.scalars().f_enum(), json_test::COLOR_UNSPECIFIED);
  ASSERT_EQ(everything.repeated().r_enum_size(), 2);
  EXPECT_EQ(everything.repeated().r_enum(1), json_test::GREEN);
  // A number that is no integer is still wrong; so is nesting beyond the limit inside a value
  // that is skipped.
  EXPECT_EQ(Parse(R"({"scalars":{"fEnum":1.5}})", &everything).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Parse(R"({"later":)" + Nested(100, "1") + "}", &everything).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(Parse(R"({"later":)" + Nested(99, "1") + "}", &everything).ok());
}

TEST_P(JsonBodyTest, WhatTheSerializerWritesIsWhatTheGatewayPrints) {
  json_test::Everything everything;
  everything.set_last_number(7);
  everything.mutable_repeated()->add_r_int64(-1);
  (*everything.mutable_maps()->mutable_by_string())["k"] = 2;
  std::string printed;
  ASSERT_TRUE(ToJson(everything, &printed).ok());
  std::string serialized;
  ASSERT_TRUE(FindSerializer(serializer_id::kJson)->Serialize(everything, &serialized));
  EXPECT_EQ(serialized, printed);
  json_test::Everything back;
  ASSERT_TRUE(Parse(serialized, &back).ok());
  EXPECT_EQ(back.SerializeAsString(), everything.SerializeAsString());
}

INSTANTIATE_TEST_SUITE_P(PlainAndZstd, JsonBodyTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Zstd" : "Plain";
                         });

}  // namespace
}  // namespace ferry::codec
