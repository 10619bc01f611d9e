// The JSON codec's limits, where it is stricter than protobuf 3.21's converter: one nesting
// limit for objects and arrays together, a field or map key given once per object, RFC 8259
// syntax only, and error messages that quote keys and values escaped and cut short. Text the
// limits refuse is refused whatever protobuf would make of it, for the types the codec reads
// itself and for those it leaves to protobuf alike.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ferry/codec/json_codec.h"
#include "json_codec_test.pb.h"

namespace ferry::codec_test {
namespace {

using json_test::Everything;
using json_test::Repeated;
using json_test::WithTimestamp;

bool ProtobufAccepts(const std::string& json, google::protobuf::Message* message) {
  return google::protobuf::util::JsonStringToMessage(json, message).ok();
}

std::string Nested(const std::string& open, const std::string& close, int depth,
                   const std::string& inner) {
  std::string json;
  for (int i = 0; i < depth; ++i) json += open;
  json += inner;
  for (int i = 0; i < depth; ++i) json += close;
  return json;
}

TEST(JsonLimitsTest, ObjectsAndArraysCountTowardsOneLimitOf100) {
  Repeated repeated;
  // The root object and 99 arrays.
  const Status at_limit =
      codec::ParseJson(R"({"rInt64":)" + Nested("[", "]", 99, "1") + "}", &repeated);
  ASSERT_TRUE(at_limit.ok()) << at_limit;
  EXPECT_EQ(repeated.r_int64_size(), 1);
  const Status beyond =
      codec::ParseJson(R"({"rInt64":)" + Nested("[", "]", 100, "1") + "}", &repeated);
  EXPECT_EQ(beyond.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(beyond.message(),
            "rInt64" + Nested("[0]", "", 99, "") + ": nested deeper than 100 objects and arrays");

  // A message in a list in a message: two levels a step.
  Everything everything;
  EXPECT_TRUE(codec::ParseJson(Nested(R"({"children":[)", "]}", 49, "{}"), &everything).ok());
  const Status mixed = codec::ParseJson(Nested(R"({"children":[)", "]}", 50, "{}"), &everything);
  EXPECT_NE(mixed.message().find("nested deeper than 100 objects and arrays"), std::string::npos)
      << mixed;
  // Map values are objects too.
  EXPECT_TRUE(codec::ParseJson(Nested(R"({"named":{"k":)", "}}", 49, "{}"), &everything).ok());
  EXPECT_FALSE(codec::ParseJson(Nested(R"({"named":{"k":)", "}}", 50, "{}"), &everything).ok());
}

TEST(JsonLimitsTest, ADeepTextIsRefusedWhereItPassesTheLimitNotAtItsEnd) {
  // Unclosed: had the parser gone on to the end, the refusal would be the syntax error there.
  const std::string hostile = R"({"rInt64":)" + std::string((4u << 20) - 16, '[');
  Repeated repeated;
  const Status refused = codec::ParseJson(hostile, &repeated);
  EXPECT_EQ(refused.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.message().find("nested deeper than 100 objects and arrays"), std::string::npos);
  EXPECT_EQ(refused.message().find("invalid JSON"), std::string::npos) << refused;
  EXPECT_EQ(repeated.r_int64_size(), 0);
  // The same for text handed to protobuf's converter, and for an unknown field's value skipped.
  WithTimestamp stamped;
  const Status stamped_refused =
      codec::ParseJson(R"({"ids":)" + std::string(4u << 20, '['), &stamped);
  EXPECT_NE(stamped_refused.message().find("nested deeper than 100"), std::string::npos)
      << stamped_refused;
  const Status skipped = codec::ParseJson(R"({"later":)" + std::string(4u << 20, '['), &repeated,
                                          {.ignore_unknown_fields = true});
  EXPECT_NE(skipped.message().find("nested deeper than 100"), std::string::npos) << skipped;
}

TEST(JsonLimitsTest, WhatProtobufTakesButTheLimitsRefuseIsRefused) {
  struct Case {
    std::string json;
    std::string error;
  };
  const std::vector<Case> cases = {
      // protobuf's reader is laxer than RFC 8259.
      {R"({'scalars':{'fString':'single'}})", "invalid JSON at offset 1: "},
      {R"({scalars:{fInt32:1}})", "invalid JSON at offset 1: "},
      {R"({"repeated":{"rInt32":[1,2,]},})", "invalid JSON at offset 27: "},
      // protobuf counts objects only.
      {R"({"repeated":{"rInt32":)" + Nested("[", "]", 1000, "1") + "}}",
       "repeated.rInt32" + Nested("[0]", "", 98, "") + ": nested deeper than 100"},
      {Nested(R"({"children":[)", "]}", 60, "{}"), "children[0].children[0]."},
      // protobuf merges a message given twice, and takes the last value of anything else.
      {R"({"child":{"choiceText":"a"},"child":{"choiceNumber":1}})",
       "child: the field is given twice"},
      {R"({"scalars":{"fItem":{"name":"a"}},"scalars":{"fItem":{"count":2}}})",
       "scalars: the field is given twice"},
      {R"({"maps":{"byString":{"a":1}},"maps":{"byString":{"a":2,"b":3}}})",
       "maps: the field is given twice"},
      {R"({"repeated":{"rInt32":[1],"r_int32":[2]}})", "repeated.rInt32: the field is given twice"},
      {R"({"declaredFirst":1,"declared_first":2})", "declaredFirst: the field is given twice"},
      {R"({"maybeInt32":null,"maybe_int32":5})", "maybeInt32: the field is given twice"},
      {R"({"child":null,"child":{}})", "child: the field is given twice"},
      // protobuf compares map keys as written.
      {R"({"maps":{"byInt32":{"1":"a","01":"b"}}})", R"(maps.byInt32["01"]: the key is given)"},
      {R"({"maps":{"byBool":{"1":"x","T":"z"}}})", R"(maps.byBool["T"]: the key is given twice)"},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(test.json.substr(0, 200));
    Everything theirs;
    EXPECT_TRUE(ProtobufAccepts(test.json, &theirs));
    Everything ours;
    const Status refused = codec::ParseJson(test.json, &ours);
    EXPECT_EQ(refused.code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(refused.message().find(test.error), 0u) << refused.message();
  }
}

TEST(JsonLimitsTest, TextForProtobufsConverterPassesTheSameLimitsFirst) {
  // protobuf would read all of these; within the limits, it still decides.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"{note:'x'}", "invalid JSON at offset 1: "},
      {R"({"note":"x",})", "invalid JSON at offset 12: "},
      {R"({"ids":)" + Nested("[", "]", 100, "1") + "}",
       "nested deeper than 100 objects and arrays"},
      {R"({"note":"a","note":"b"})", "note: the key is given twice"},
  };
  for (const auto& [json, error] : refused) {
    SCOPED_TRACE(json.substr(0, 200));
    WithTimestamp theirs;
    EXPECT_TRUE(ProtobufAccepts(json, &theirs));
    WithTimestamp ours;
    const Status status = codec::ParseJson(json, &ours);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.message().find(error), 0u) << status.message();
  }
  WithTimestamp stamped;
  const Status at_limit =
      codec::ParseJson(R"({"ids":)" + Nested("[", "]", 99, "1") + R"(,"note":"n"})", &stamped);
  ASSERT_TRUE(at_limit.ok()) << at_limit;
  EXPECT_EQ(stamped.ids_size(), 1);
  EXPECT_EQ(stamped.note(), "n");
  // A well-known type's own JSON form need not be an object.
  google::protobuf::Timestamp at;
  ASSERT_TRUE(codec::ParseJson(R"("2024-05-01T12:00:00Z")", &at).ok());
  EXPECT_EQ(at.seconds(), 1714564800);
}

TEST(JsonLimitsTest, KeysAndValuesInErrorsAreEscapedAndCutShort) {
  const auto message = [](const std::string& json, google::protobuf::Message* type) {
    return codec::ParseJson(json, type).message();
  };
  Everything everything;
  WithTimestamp stamped;
  EXPECT_EQ(message(R"({"\nFORGED":1})", &everything),
            R"(\nFORGED: no such field in ferry.json_test.Everything)");
  EXPECT_EQ(message(R"({"scalars":{"a\"b\\c\u001b[0m\u2028":1}})", &everything),
            R"(scalars.a\"b\\c\u001b[0m\u2028: no such field in ferry.json_test.Scalars)");
  EXPECT_EQ(message(R"({"maps":{"byInt32":{"\r\n":"v"}}})", &everything),
            R"(maps.byInt32["\r\n"]: expected an integer as the key)");
  EXPECT_EQ(message(R"({"scalars":{"fInt32":"1\n2"}})", &everything),
            R"(scalars.fInt32: expected an integer, got '1\n2')");
  // protobuf's own words about text it reads.
  const std::string theirs = message(R"({"\nFORGED":1})", &stamped);
  EXPECT_EQ(theirs.find('\n'), std::string::npos) << theirs;
  EXPECT_NE(theirs.find(R"(\nFORGED)"), std::string::npos) << theirs;

  const std::string long_key(1u << 20, 'k');
  const std::string cut = message("{\"" + long_key + "\":1}", &everything);
  EXPECT_EQ(cut, std::string(64, 'k') + "...: no such field in ferry.json_test.Everything");
  const std::string long_value =
      message(R"({"maps":{"byInt32":{")" + long_key + R"(":"v"}}})", &everything);
  EXPECT_EQ(long_value, R"(maps.byInt32[")" + std::string(64, 'k') +
                            R"(..."]: expected an integer as the key)");
}

}  // namespace
}  // namespace ferry::codec_test
