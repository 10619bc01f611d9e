// The JSON codec against protobuf's own converter, which it must equal within its limits: random
// messages both ways round, each parser on the other's output, the printed bytes, hand-written
// inputs both read alike, inputs both refuse (ours naming the field), and the types it leaves
// to protobuf. What the limits refuse and protobuf takes is json_limits_test's.
#include "ferry/codec/json_codec.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "json_codec_test.pb.h"
#include "json_plan.h"
#include "random_message.h"

namespace ferry::codec_test {
namespace {

using google::protobuf::Message;
using json_test::Everything;

bool ProtobufParse(std::string_view json, Message* message, std::string* error = nullptr) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), message, options);
  if (error != nullptr) *error = std::string(status.message());
  return status.ok();
}

bool ProtobufPrint(const Message& message, std::string* json) {
  return google::protobuf::util::MessageToJsonString(message, json).ok();
}

std::string Print(const Message& message) {
  std::string json;
  const Status printed = codec::ToJson(message, &json);
  EXPECT_TRUE(printed.ok()) << printed;
  return json;
}

std::string CanonicalBytes(const Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

// Equal as MessageDifferencer has it, NaNs equal.
::testing::AssertionResult Equivalent(const Message& expected, const Message& actual) {
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  std::string differences;
  differencer.ReportDifferencesToString(&differences);
  if (!differencer.Compare(expected, actual)) return ::testing::AssertionFailure() << differences;
  return ::testing::AssertionSuccess();
}

// Equivalent, and equal to the bit: what the two parsers make of one text.
::testing::AssertionResult Same(const Message& expected, const Message& actual) {
  if (auto equivalent = Equivalent(expected, actual); !equivalent) return equivalent;
  if (CanonicalBytes(expected) != CanonicalBytes(actual)) {
    return ::testing::AssertionFailure() << "equal but for a zero's sign:\n"
                                         << expected.ShortDebugString() << "\nvs\n"
                                         << actual.ShortDebugString();
  }
  return ::testing::AssertionSuccess();
}

// Whether a map with two or more entries sits inside a map's value. Through reflection a map
// reads as a list of entries holding copies of its values, and a copied map iterates in an
// order of its own (protobuf seeds each map's hash afresh), so only there the codec's key order
// may differ from protobuf's.
bool MapInMapValue(const Message& message, bool in_value) {
  const auto* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const auto* field : fields) {
    if (field->is_map() && in_value && reflection->FieldSize(message, field) > 1) return true;
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!field->is_repeated()) {
      if (MapInMapValue(reflection->GetMessage(message, field), in_value)) return true;
      continue;
    }
    for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
      const Message& element = reflection->GetRepeatedMessage(message, field, i);
      if (MapInMapValue(element, in_value || field->is_map())) return true;
    }
  }
  return false;
}

// What reading a message's JSON can give back at best: protobuf prints -0.0 as -0, which its
// reader (and so the codec) takes for the integer 0.
void UnsignZeros(Message* message) {
  using google::protobuf::FieldDescriptor;
  const auto* reflection = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(*message, &fields);
  for (const FieldDescriptor* field : fields) {
    const int size = field->is_repeated() ? reflection->FieldSize(*message, field) : 1;
    for (int i = 0; i < size; ++i) {
      const bool one = !field->is_repeated();
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_DOUBLE:
          if (one && reflection->GetDouble(*message, field) == 0) {
            reflection->SetDouble(message, field, 0.0);
          } else if (!one && reflection->GetRepeatedDouble(*message, field, i) == 0) {
            reflection->SetRepeatedDouble(message, field, i, 0.0);
          }
          break;
        case FieldDescriptor::CPPTYPE_FLOAT:
          if (one && reflection->GetFloat(*message, field) == 0) {
            reflection->SetFloat(message, field, 0.0f);
          } else if (!one && reflection->GetRepeatedFloat(*message, field, i) == 0) {
            reflection->SetRepeatedFloat(message, field, i, 0.0f);
          }
          break;
        case FieldDescriptor::CPPTYPE_MESSAGE:
          UnsignZeros(one ? reflection->MutableMessage(message, field)
                          : reflection->MutableRepeatedMessage(message, field, i));
          break;
        default:
          break;
      }
    }
  }
}

void DropMapsOfMessages(Everything* message) {
  message->clear_named();
  if (message->has_child()) DropMapsOfMessages(message->mutable_child());
  for (Everything& child : *message->mutable_children()) DropMapsOfMessages(&child);
}

// Equal texts; otherwise both from a little before where they part, to keep failures readable.
::testing::AssertionResult SameText(const std::string& ours, const std::string& theirs) {
  if (ours == theirs) return ::testing::AssertionSuccess();
  size_t at = 0;
  while (at < ours.size() && at < theirs.size() && ours[at] == theirs[at]) ++at;
  const size_t from = at < 60 ? 0 : at - 60;
  return ::testing::AssertionFailure()
         << "they part at byte " << at << "\nours:     " << ours.substr(from, 120)
         << "\nprotobuf: " << theirs.substr(from, 120);
}

// Both parsers read `json` alike: both refuse it, or both take it to the same message. Returns
// whether they took it.
bool ExpectReadAlike(const std::string& json) {
  SCOPED_TRACE(json);
  Everything ours;
  Everything theirs;
  const Status parsed = codec::ParseJson(json, &ours);
  std::string error;
  const bool accepted = ProtobufParse(json, &theirs, &error);
  EXPECT_EQ(parsed.ok(), accepted) << "ours: " << parsed << "\nprotobuf: " << error;
  if (accepted && parsed.ok()) {
    EXPECT_TRUE(Same(theirs, ours));
  }
  return accepted;
}

TEST(JsonCodecTest, RandomMessagesMatchProtobufBothWays) {
  RandomMessage random(20240601);
  int compared_as_bytes = 0;
  for (int i = 0; i < 400; ++i) {
    SCOPED_TRACE("message " + std::to_string(i));
    Everything message;
    random.Fill(&message, 3);
    const std::string ours = Print(message);
    std::string theirs;
    ASSERT_TRUE(ProtobufPrint(message, &theirs));
    // Floats included: the codec prints them with protobuf's %.15g/%.17g rule.
    if (!MapInMapValue(message, false)) {
      EXPECT_TRUE(SameText(ours, theirs));
      ++compared_as_bytes;
    }
    Everything flat = message;
    DropMapsOfMessages(&flat);
    std::string flat_theirs;
    ASSERT_TRUE(ProtobufPrint(flat, &flat_theirs));
    EXPECT_TRUE(SameText(Print(flat), flat_theirs));

    Everything expected = message;
    UnsignZeros(&expected);
    Everything ours_of_ours;
    ASSERT_TRUE(codec::ParseJson(ours, &ours_of_ours).ok());
    EXPECT_TRUE(Equivalent(expected, ours_of_ours));
    Everything theirs_of_ours;
    ASSERT_TRUE(ProtobufParse(ours, &theirs_of_ours));
    EXPECT_TRUE(Equivalent(expected, theirs_of_ours));
    EXPECT_TRUE(Same(theirs_of_ours, ours_of_ours));
    Everything ours_of_theirs;
    ASSERT_TRUE(codec::ParseJson(theirs, &ours_of_theirs).ok());
    EXPECT_TRUE(Equivalent(expected, ours_of_theirs));
    Everything theirs_of_theirs;
    ASSERT_TRUE(ProtobufParse(theirs, &theirs_of_theirs));
    EXPECT_TRUE(Same(theirs_of_theirs, ours_of_theirs));
  }
  EXPECT_GT(compared_as_bytes, 100);
}

TEST(JsonCodecTest, PrintsFieldsByNumberAsProtobufDoes) {
  Everything message;
  message.set_declared_first(7);  // field 99, declared first
  message.set_last_number(3);
  message.set_custom_name("<tag> & \"quote\"\n");
  message.mutable_scalars()->set_f_int64(-5);
  message.mutable_scalars()->set_f_uint64(18446744073709551615u);
  message.mutable_scalars()->set_f_bytes(std::string("\0\xff\x10", 3));
  message.mutable_scalars()->set_f_enum(static_cast<json_test::Color>(42));
  message.mutable_scalars()->mutable_f_item();
  message.mutable_repeated()->add_r_enum(json_test::INFRARED);
  message.mutable_repeated()->add_r_sint64(-1);
  (*message.mutable_maps()->mutable_by_bool())[true] = "yes";
  (*message.mutable_maps()->mutable_by_int64())[-1].set_count(1);
  for (int i = 0; i < 12; ++i) (*message.mutable_maps()->mutable_by_int32())[i * 37] = "v";
  message.set_choice_number(0);
  message.set_maybe_int32(0);
  message.set_maybe_string("");
  std::string theirs;
  ASSERT_TRUE(ProtobufPrint(message, &theirs));
  EXPECT_TRUE(SameText(Print(message), theirs));
  EXPECT_EQ(theirs.find("{\"scalars\":{\"fInt64\":\"-5\",\"fUint64\":\"18446744073709551615\","
                        "\"fBytes\":\"AP8Q\",\"fEnum\":42,\"fItem\":{}},"),
            0u)
      << theirs;
  EXPECT_NE(theirs.find("\"choiceNumber\":\"0\",\"maybeInt32\":0,\"maybeString\":\"\","
                        "\"renamed\":\"\\u003ctag\\u003e & \\\"quote\\\"\\n\","
                        "\"lastNumber\":3,\"declaredFirst\":7}"),
            std::string::npos)
      << theirs;
  EXPECT_EQ(Print(Everything()), "{}");
}

TEST(JsonCodecTest, InvalidUtf8InAStringIsPrintedAsProtobufPrintsIt) {
  // A handler may put any bytes in a string field; protobuf drops a broken sequence together with
  // the byte that broke it, and takes an overlong form for its code point.
  const std::string texts[] = {"\xff",         "a\xc3(b",       "\xc0\x80",
                               "\xc1\x81",     "\xed\xa0\x80",  "\xf4\x90\x80\x80",
                               "\xe4\xb8",     "x\x80y",        "\xf8\x88\x80\x80\x80",
                               "\xe0\x80\xaf", "ok\xc2\x80\xc2"};
  google::protobuf::LogSilencer quiet;  // protobuf logs each invalid string it serializes
  for (const std::string& text : texts) {
    SCOPED_TRACE(::testing::PrintToString(text));
    Everything message;
    message.set_custom_name(text);
    (*message.mutable_maps()->mutable_by_string())[text] = 1;
    std::string theirs;
    ASSERT_TRUE(ProtobufPrint(message, &theirs));
    EXPECT_TRUE(SameText(Print(message), theirs));
  }
}

TEST(JsonCodecTest, AppendsToWhatTheStringHolds) {
  Everything message;
  message.set_last_number(1);
  std::string json = "prefix:";
  ASSERT_TRUE(codec::ToJson(message, &json).ok());
  std::string theirs = "prefix:";
  ASSERT_TRUE(ProtobufPrint(message, &theirs));
  EXPECT_EQ(json, theirs);
}

TEST(JsonCodecTest, HandWrittenInputsAreReadAsProtobufReadsThem) {
  const std::string inputs[] = {
      R"({})",
      // Names in both styles, 64-bit integers as strings and as numbers.
      R"({"scalars":{"fInt32":1,"f_int64":"2","fUint32":"3","f_uint64":4,"fSint32":-5,)"
      R"("fSint64":"-6","fFixed32":7,"fFixed64":"8","fSfixed32":"-9","fSfixed64":-10}})",
      R"({"scalars":{"fInt32":1e2,"fInt64":1.0,"fUint64":1e19,"fSint32":"+7","fFixed32":"007"}})",
      R"({"scalars":{"fInt32":-0.0,"fInt64":-9223372036854775808,)"
      R"("fUint64":"18446744073709551615","fSfixed64":-9.2233720368547758e18}})",
      R"({"scalars":{"fInt64":-9223372036854775809,"fUint32":4294967295,"fInt32":"-2147483648"}})",
      R"({"scalars":{"fInt64":9007199254740993.0,"fFixed64":1E2}})",
      R"({"scalars":{"fDouble":"NaN","fFloat":"-Infinity"}})",
      R"({"scalars":{"fDouble":"Infinity","fFloat":"1.5"}})",
      R"({"scalars":{"fDouble":1e-400,"fFloat":3.4028235e38}})",
      R"({"scalars":{"fDouble":-0.0,"fFloat":-0}})",
      R"({"scalars":{"fDouble":"-0","fFloat":"0x1p3"}})",
      R"({"scalars":{"fDouble":18446744073709551616,"fFloat":16777217}})",
      R"({"scalars":{"fDouble":"\t1.5","fFloat":".5"}})",
      R"({"scalars":{"fDouble":1.7976931348623157e308,"fFloat":1.17549435e-38}})",
      R"({"scalars":{"fDouble":4.9e-324,"fFloat":1e-50}})",
      R"({"scalars":{"fBool":"true"}})",
      R"({"scalars":{"fBool":"YES"}})",
      R"({"scalars":{"fBool":"0","fString":"x"}})",
      R"({"scalars":{"fBytes":"-_-_"}})",
      R"({"scalars":{"fBytes":"+/+/"}})",
      R"({"scalars":{"fBytes":"AQI"}})",
      R"({"scalars":{"fBytes":"AQ=="}})",
      R"({"scalars":{"fBytes":"_w"}})",
      R"({"scalars":{"fBytes":""}})",
      R"({"scalars":{"fEnum":2}})",
      R"({"scalars":{"fEnum":"-7"}})",
      R"({"scalars":{"fEnum":"INFRARED"}})",
      R"({"scalars":{"fEnum":12345}})",
      R"({"scalars":{"fEnum":1.0}})",
      R"({"scalars":{"fEnum":"COLOR_UNSPECIFIED"}})",
      R"({"scalars":{"fString":"\u00e9\ud83d\ude00\u0000\"\\\/\b\f\n\r\t"}})",
      "{\"scalars\":{\"fString\":\"raw \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\"}}",
      R"({"scalars":{"fItem":{}}})",
      // null is the default, wherever it is.
      R"({"scalars":null,"repeated":null,"maps":null,"child":null})",
      R"({"scalars":{"fInt32":null,"fString":null,"fItem":null,"fEnum":null,"fBytes":null}})",
      R"({"repeated":{"rInt32":[1,null,"2",3.0],"rString":["a",null],"items":[{},null,{}]}})",
      R"({"repeated":{"rInt32":null,"items":null},"maps":{"byString":null}})",
      // A lone value for a list, lists in lists.
      R"({"repeated":{"rInt32":7,"items":{"count":1}}})",
      R"({"repeated":{"rInt32":[[1,[2]],3],"items":[[{"count":1}],{"count":2}]}})",
      R"({"repeated":{"rEnum":["RED",2,"1",9],"rBytes":["AQ==","_w"],"rBool":[true,"false"]}})",
      R"({"repeated":{"rFloat":["NaN",1,"1.5"],"rDouble":[-0.0,"Infinity"],"rUint64":["1",2]}})",
      R"({"maps":{"byString":{"a":1,"b":"2","":null}}})",
      R"({"maps":{"byInt32":{"1":"x","-2":"y","+3":"z","04":"w"}}})",
      R"({"maps":{"byInt64":{"-9223372036854775808":{"name":"a"},"1":null,"2":{}}}})",
      R"({"maps":{"byUint64":{"18446744073709551615":"NaN"},"bySint32":{"-1":"RED","2":1,"3":99}}})",
      R"({"maps":{"byBool":{"true":"x","false":"y"}}})",
      R"({"maps":{"byBool":{"1":"x","no":"y"}}})",
      R"({"maps":{"byFixed32":{"1":true},"byFixed64":{"1":"5"},"bySfixed32":{"-1":5}}})",
      R"({"maps":{"bySfixed64":{"-1":"x"},"byUint32":{"4294967295":"AQ=="},"bySint64":{"1":"-0"}}})",
      R"({"maps":{"byString":{"\u00e9":1,"<>":2}}})",
      R"({"choiceText":""})",
      R"({"choiceNumber":"0"})",
      R"({"choiceItem":{}})",
      R"({"choiceColor":"COLOR_UNSPECIFIED"})",
      R"({"choiceDouble":-0.0})",
      R"({"choiceBytes":""})",
      R"({"choiceText":null,"choiceNumber":1})",
      R"({"choiceNumber":1,"choiceText":null})",
      R"({"maybeInt32":0,"maybeString":"","maybeColor":0,"maybeDouble":0,"maybeBool":false,)"
      R"("maybeBytes":"","maybeUint64":"0"})",
      R"({"renamed":"x"})",
      R"({"custom_name":"x"})",
      R"({"a1bC":1,"xY":2})",
      R"({"a_1b_c":1,"x__y":2})",
      R"({"children":[{"child":{}},{}],"named":{"k":{"renamed":"v"}}})",
      " \t\r\n {\"scalars\" : { \"fInt32\" : 1 } } \n",
      R"({"scalars":{"f\u0049nt32":5}})",
  };
  for (const std::string& json : inputs) {
    SCOPED_TRACE(json);
    Everything theirs;
    std::string error;
    ASSERT_TRUE(ProtobufParse(json, &theirs, &error)) << error;
    Everything ours;
    const Status parsed = codec::ParseJson(json, &ours);
    ASSERT_TRUE(parsed.ok()) << parsed;
    EXPECT_TRUE(Same(theirs, ours));
  }
}

TEST(JsonCodecTest, InputsProtobufRefusesAreRefusedNamingTheField) {
  struct Case {
    std::string json;
    std::string error;  // ours, or a part of it
  };
  const Case cases[] = {
      {"", "invalid JSON at offset 0: "},
      {"  ", "invalid JSON at offset 2: "},
      {"[]", "expected a JSON object, got an array"},
      {"1", "expected a JSON object, got 1"},
      {"null", "expected a JSON object, got null"},
      {R"("x")", "expected a JSON object, got 'x'"},
      {"{} {}", "invalid JSON at offset 3: "},
      {"{}x", "invalid JSON at offset 2: "},
      {std::string("{}\0", 3), "invalid JSON at offset 2: "},
      {R"({"scalars":{"fInt32":1)", "invalid JSON at offset 22: "},
      {"\xef\xbb\xbf{}", "invalid JSON at offset 0: "},
      {R"({"scalars":{"fString":"\ud800"}})", "invalid JSON at offset "},
      {R"({"scalars":{"fString":"\ud800\u0041"}})", "invalid JSON at offset "},
      {R"({"scalars":{"fString":"\udc00"}})",
       "scalars.fString: invalid JSON, a \\u escape is a lone low surrogate"},
      {R"({"scalars":{"f\udc00":1}})", "scalars: invalid JSON, a \\u escape is a lone low"},
      {"{\"scalars\":{\"fString\":\"\xff\"}}", "invalid JSON at offset 23: "},
      {"{\"scalars\":{\"fString\":\"a\xc3\"}}", "invalid JSON at offset "},
      {"{\"scalars\":{\"fString\":\"\xc0\x80\"}}", "invalid JSON at offset "},
      {"{\"scalars\":{\"fString\":\"\xed\xa0\x80\"}}", "invalid JSON at offset "},
      {R"({"nope":1})", "nope: no such field in ferry.json_test.Everything"},
      {R"({"scalars":{"nope":1}})", "scalars.nope: no such field in ferry.json_test.Scalars"},
      {R"({"customName":"x"})", "customName: no such field"},
      {R"({"a1BC":1})", "a1BC: no such field"},
      {R"({"scalars":{"fInt32":1.5}})", "scalars.fInt32: expected an integer, got 1.5"},
      {R"({"scalars":{"fInt32":2147483648}})",
       "scalars.fInt32: expected an integer that fits int32, got 2147483648"},
      {R"({"scalars":{"fInt32":-2147483649}})", "scalars.fInt32: expected an integer that fits"},
      {R"({"scalars":{"fInt32":2147483647.5}})", "scalars.fInt32: expected an integer, got"},
      {R"({"scalars":{"fInt32":1e-300}})", "scalars.fInt32: expected an integer, got 1e-300"},
      {R"({"scalars":{"fInt32":1e10}})", "scalars.fInt32: expected an integer that fits int32"},
      {R"({"scalars":{"fInt32":"1e2"}})", "scalars.fInt32: expected an integer, got '1e2'"},
      {R"({"scalars":{"fInt32":"1.0"}})", "scalars.fInt32: expected an integer, got '1.0'"},
      {R"({"scalars":{"fInt32":" 12"}})", "scalars.fInt32: expected an integer, got ' 12'"},
      {R"({"scalars":{"fInt32":"12 "}})", "scalars.fInt32: expected an integer"},
      {R"({"scalars":{"fInt32":"\t12"}})", "scalars.fInt32: expected an integer"},
      {R"({"scalars":{"fInt32":""}})", "scalars.fInt32: expected an integer, got ''"},
      {R"({"scalars":{"fInt32":"0x10"}})", "scalars.fInt32: expected an integer"},
      {R"({"scalars":{"fInt32":"+"}})", "scalars.fInt32: expected an integer"},
      {R"({"scalars":{"fInt32":"+-1"}})", "scalars.fInt32: expected an integer"},
      {R"({"scalars":{"fInt32":true}})", "scalars.fInt32: expected an integer, got true"},
      {R"({"scalars":{"fInt32":[1]}})", "scalars.fInt32: expected an integer, got an array"},
      {R"({"scalars":{"fInt32":{}}})", "scalars.fInt32: expected an integer, got an object"},
      {R"({"scalars":{"fUint32":-1}})", "scalars.fUint32: expected an integer that fits uint32"},
      {R"({"scalars":{"fUint32":4294967296}})", "scalars.fUint32: expected an integer that fits"},
      {R"({"scalars":{"fUint32":"-0"}})", "scalars.fUint32: expected an integer, got '-0'"},
      {R"({"scalars":{"fUint64":-1}})", "scalars.fUint64: expected an integer that fits uint64"},
      {R"({"scalars":{"fUint64":18446744073709551616}})", "scalars.fUint64: expected an integer"},
      {R"({"scalars":{"fUint64":1.8446744073709552e19}})", "scalars.fUint64: expected an integer"},
      {R"({"scalars":{"fInt64":9223372036854775808}})", "scalars.fInt64: expected an integer"},
      {R"({"scalars":{"fInt64":"-9223372036854775809"}})", "scalars.fInt64: expected an integer"},
      {R"({"scalars":{"fInt64":9.2233720368547758e18}})", "scalars.fInt64: expected an integer"},
      {R"({"scalars":{"fInt64":"1e2"}})", "scalars.fInt64: expected an integer, got '1e2'"},
      {R"({"scalars":{"fSfixed32":"2147483648"}})", "scalars.fSfixed32: expected an integer"},
      {R"({"scalars":{"fDouble":"inf"}})", "scalars.fDouble: expected a number, got 'inf'"},
      {R"({"scalars":{"fDouble":"nan"}})", "scalars.fDouble: expected a number, got 'nan'"},
      {R"({"scalars":{"fDouble":"infinity"}})", "scalars.fDouble: expected a number"},
      {R"({"scalars":{"fDouble":" 1.5"}})", "scalars.fDouble: expected a number, got ' 1.5'"},
      {R"({"scalars":{"fDouble":"1.5 "}})", "scalars.fDouble: expected a number"},
      {R"({"scalars":{"fDouble":"Infinity "}})", "scalars.fDouble: expected a number"},
      {R"({"scalars":{"fDouble":"1e400"}})", "scalars.fDouble: expected a number that fits double"},
      {R"({"scalars":{"fDouble":1e400}})", "invalid JSON at offset 22: "},
      {R"({"scalars":{"fDouble":-1e400}})", "invalid JSON at offset 22: "},
      {R"({"scalars":{"fDouble":""}})", "scalars.fDouble: expected a number, got ''"},
      {R"({"scalars":{"fDouble":"1.5x"}})", "scalars.fDouble: expected a number"},
      {R"({"scalars":{"fDouble":"1_0"}})", "scalars.fDouble: expected a number"},
      {R"({"scalars":{"fDouble":true}})", "scalars.fDouble: expected a number, got true"},
      {R"({"scalars":{"fFloat":3.4028236e38}})",
       "scalars.fFloat: expected a number that fits float, got 3.4028236e38"},
      {R"({"scalars":{"fFloat":3.4028235677973366e38}})", "scalars.fFloat: expected a number"},
      {R"({"scalars":{"fFloat":"3.40282347e+38"}})", "scalars.fFloat: expected a number that fits"},
      {R"({"scalars":{"fFloat":1e39}})", "scalars.fFloat: expected a number that fits float"},
      {R"({"scalars":{"fFloat":"1e39"}})", "scalars.fFloat: expected a number that fits float"},
      {R"({"scalars":{"fBool":1}})", "scalars.fBool: expected true or false, got 1"},
      {R"({"scalars":{"fBool":0}})", "scalars.fBool: expected true or false, got 0"},
      {R"({"scalars":{"fBool":"maybe"}})", "scalars.fBool: expected true or false, got 'maybe'"},
      {R"({"scalars":{"fBool":" true"}})", "scalars.fBool: expected true or false"},
      {R"({"scalars":{"fString":1}})", "scalars.fString: expected a string, got 1"},
      {R"({"scalars":{"fString":false}})", "scalars.fString: expected a string, got false"},
      {R"({"scalars":{"fString":{}}})", "scalars.fString: expected a string, got an object"},
      {R"({"scalars":{"fBytes":"***"}})", "scalars.fBytes: expected base64, got '***'"},
      {R"({"scalars":{"fBytes":"AQ="}})", "scalars.fBytes: expected base64, got 'AQ='"},
      {R"({"scalars":{"fBytes":"A"}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"A==="}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"AQI=="}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"AQID===="}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"QUJD="}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"+_+_"}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"AQ ID"}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"AQID\n"}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"AR=="}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"AQ==AQ=="}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":"===="}})", "scalars.fBytes: expected base64"},
      {R"({"scalars":{"fBytes":1}})", "scalars.fBytes: expected base64, got 1"},
      {R"({"scalars":{"fEnum":"red"}})",
       "scalars.fEnum: expected a ferry.json_test.Color name or number, got 'red'"},
      {R"({"scalars":{"fEnum":"BLUE"}})", "scalars.fEnum: expected a ferry.json_test.Color"},
      {R"({"scalars":{"fEnum":"5"}})", "scalars.fEnum: expected a ferry.json_test.Color"},
      {R"({"scalars":{"fEnum":" RED"}})", "scalars.fEnum: expected a ferry.json_test.Color"},
      {R"({"scalars":{"fEnum":1.5}})", "scalars.fEnum: expected a ferry.json_test.Color"},
      {R"({"scalars":{"fEnum":2147483648}})", "scalars.fEnum: expected a ferry.json_test.Color"},
      {R"({"scalars":{"fEnum":true}})", "scalars.fEnum: expected a ferry.json_test.Color"},
      {R"({"scalars":{"fItem":1}})", "scalars.fItem: expected an object, got 1"},
      {R"({"scalars":{"fItem":"x"}})", "scalars.fItem: expected an object, got 'x'"},
      {R"({"scalars":{"fItem":[]}})", "scalars.fItem: expected an object, got an array"},
      {R"({"scalars":{"fItem":{"name":"x","nope":1}}})",
       "scalars.fItem.nope: no such field in ferry.json_test.Item"},
      {R"({"repeated":{"items":[{"count":1},{"count":2},{"count":1.5}]}})",
       "repeated.items[2].count: expected an integer, got 1.5"},
      {R"({"repeated":{"items":[{},null,{"nope":1}]}})", "repeated.items[2].nope: no such field"},
      {R"({"repeated":{"rInt32":[1,[2,"x"]]}})",
       "repeated.rInt32[1][1]: expected an integer, got 'x'"},
      {R"({"repeated":{"rInt32":{}}})", "repeated.rInt32: expected an integer, got an object"},
      {R"({"repeated":{"rString":[1]}})", "repeated.rString[0]: expected a string, got 1"},
      {R"({"repeated":{"items":[1]}})", "repeated.items[0]: expected an object, got 1"},
      {R"({"maps":{"byString":{"a":1,"a":2}}})", R"(maps.byString["a"]: the key is given twice)"},
      {R"({"maps":{"bySint32":{"1":"RED","1":2}}})", R"(maps.bySint32["1"]: the key is given)"},
      {R"({"maps":{"byString":[]}})", "maps.byString: expected an object, got an array"},
      {R"({"maps":{"byString":[{"key":"a","value":1}]}})", "maps.byString: expected an object"},
      {R"({"maps":{"byString":1}})", "maps.byString: expected an object, got 1"},
      {R"({"maps":{"byInt32":{" 1":"x"}}})",
       R"(maps.byInt32[" 1"]: expected an integer as the key)"},
      {R"({"maps":{"byInt32":{"1.0":"x"}}})", R"(maps.byInt32["1.0"]: expected an integer)"},
      {R"({"maps":{"byInt32":{"1e2":"x"}}})", R"(maps.byInt32["1e2"]: expected an integer)"},
      {R"({"maps":{"byInt32":{"2147483648":"x"}}})",
       R"(maps.byInt32["2147483648"]: expected a key that fits int32)"},
      {R"({"maps":{"byInt32":{"x":"x"}}})", R"(maps.byInt32["x"]: expected an integer)"},
      {R"({"maps":{"byUint32":{"-1":"AQ=="}}})", R"(maps.byUint32["-1"]: expected an integer)"},
      {R"({"maps":{"byBool":{"maybe":"x"}}})",
       R"(maps.byBool["maybe"]: expected true or false as the key)"},
      {R"({"maps":{"byString":{"a":[1]}}})", R"(maps.byString["a"]: expected an integer, got an)"},
      {R"({"maps":{"byString":{"a":{}}}})", R"(maps.byString["a"]: expected an integer, got an)"},
      {R"({"maps":{"byInt64":{"1":[]}}})", R"(maps.byInt64["1"]: expected an object, got an)"},
      {R"({"maps":{"byInt64":{"1":5}}})", R"(maps.byInt64["1"]: expected an object, got 5)"},
      {R"({"maps":{"bySint32":{"1":"NOPE"}}})",
       R"(maps.bySint32["1"]: expected a ferry.json_test.Color name or number, got 'NOPE')"},
      {R"({"maps":{"byUint32":{"1":"***"}}})", R"(maps.byUint32["1"]: expected base64)"},
      {R"({"choiceText":"a","choiceNumber":1})", "choiceNumber: oneof choice already has a value"},
      {R"({"choiceText":"a","choiceText":"b"})", "choiceText: the field is given twice"},
      {R"({"choiceItem":{},"choiceColor":1})", "choiceColor: oneof choice already has a value"},
      {R"({"maybeInt32":1,"maybe_int32":2})", "maybeInt32: the field is given twice"},
      {R"({"child":{"maybeString":"","maybeString":null,"maybeString":"x"}})",
       "child.maybeString: the field is given twice"},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(test.json);
    Everything theirs;
    EXPECT_FALSE(ProtobufParse(test.json, &theirs));
    Everything ours;
    const Status parsed = codec::ParseJson(test.json, &ours);
    EXPECT_EQ(parsed.code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(parsed.message().find(test.error), 0u) << parsed.message();
  }
}

// RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
bool IsJsonNumber(std::string_view text) {
  size_t at = 0;
  const auto digits = [&] {
    const size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    return at > start;
  };
  if (at < text.size() && text[at] == '-') ++at;
  if (at < text.size() && text[at] == '0') {
    ++at;
  } else if (at >= text.size() || text[at] == '0' || !digits()) {
    return false;
  }
  if (at < text.size() && text[at] == '.' && (++at, !digits())) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
    if (!digits()) return false;
  }
  return at == text.size();
}

TEST(JsonCodecTest, ScalarTextsAreReadAsProtobufReadsThem) {
  const std::vector<std::string> pieces = {"0",
                                           "1",
                                           "7",
                                           "9",
                                           "00",
                                           "-",
                                           "+",
                                           ".",
                                           "e",
                                           "E",
                                           "5",
                                           " ",
                                           "\t",
                                           "x",
                                           "_",
                                           "=",
                                           "==",
                                           "/",
                                           "A",
                                           "Q",
                                           "w",
                                           "AQ",
                                           "AQI",
                                           "QUJD",
                                           "1e2",
                                           "1.5",
                                           "NaN",
                                           "Infinity",
                                           "inf",
                                           "0x1",
                                           "true",
                                           "TRUE",
                                           "yes",
                                           "n",
                                           "RED",
                                           "GREEN",
                                           "-7",
                                           "2147483647",
                                           "2147483648",
                                           "4294967295",
                                           "4294967296",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "18446744073709551615",
                                           "18446744073709551616",
                                           "3.4028235e38",
                                           "3.4028236e38",
                                           "1e-400",
                                           "1e400"};
  const std::vector<std::string> fields = {"fInt32",  "fInt64",  "fUint32", "fUint64",
                                           "fSint32", "fDouble", "fFloat",  "fBool",
                                           "fEnum",   "fBytes",  "fFixed64"};
  for (const char* number : {"0", "-0", "1.5", "1e2", "-12E+3", "0.0e-1"}) {
    EXPECT_TRUE(IsJsonNumber(number)) << number;
  }
  for (const char* other : {"", "-", "01", "1.", ".5", "1e", "+1", "1e+", "0x1", "1 "}) {
    EXPECT_FALSE(IsJsonNumber(other)) << other;
  }
  std::mt19937 engine(7);
  int accepted = 0;
  int refused = 0;
  const auto tally = [&](bool taken) { ++(taken ? accepted : refused); };
  for (int i = 0; i < 1500; ++i) {
    std::string token;
    const int count = 1 + static_cast<int>(engine() % 3);
    for (int k = 0; k < count; ++k) token += pieces[engine() % pieces.size()];
    std::string escaped;
    for (const char c : token) escaped += c == '\t' ? std::string("\\t") : std::string(1, c);
    for (const std::string& field : fields) {
      tally(ExpectReadAlike(R"({"scalars":{")" + field + R"(":")" + escaped + R"("}})"));
      if (IsJsonNumber(token)) {
        tally(ExpectReadAlike(R"({"scalars":{")" + field + R"(":)" + token + "}}"));
      }
    }
    tally(ExpectReadAlike(R"({"maps":{"byInt32":{")" + escaped + R"(":"v"}}})"));
    tally(ExpectReadAlike(R"({"maps":{"byBool":{")" + escaped + R"(":"v"}}})"));
    tally(ExpectReadAlike(R"({"maps":{"byUint64":{")" + escaped + R"(":1}}})"));
  }
  // Both outcomes well represented, or the comparison proves little.
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(refused, 2000);
}

std::string Nested(const std::string& open, const std::string& close, int depth,
                   const std::string& inner) {
  std::string json;
  for (int i = 0; i < depth; ++i) json += open;
  json += inner;
  for (int i = 0; i < depth; ++i) json += close;
  return json;
}

TEST(JsonCodecTest, NestingOfObjectsIsLimitedAsProtobufLimitsIt) {
  // Reading: 100 objects deep, maps counting as objects. Lists count too, which protobuf's do
  // not (json_limits_test).
  for (int depth = 96; depth <= 101; ++depth) {
    ExpectReadAlike(Nested(R"({"child":)", "}", depth, "{}"));
    ExpectReadAlike(Nested(R"({"child":)", "}", depth, R"({"maps":{"byString":{"a":1}}})"));
    ExpectReadAlike(Nested(R"({"child":)", "}", depth, R"({"maps":{"byInt64":{"1":{}}}})"));
    ExpectReadAlike(Nested(R"({"child":)", "}", depth, R"({"maps":{"byInt64":{"1":null}}})"));
    ExpectReadAlike(Nested(R"({"child":)", "}", depth, R"({"scalars":{"fItem":{}}})"));
  }
  for (int depth = 47; depth <= 51; ++depth) {
    ExpectReadAlike(Nested(R"({"named":{"k":)", "}}", depth, "{}"));
  }
  Everything too_deep;
  const Status refused = codec::ParseJson(Nested(R"({"child":)", "}", 100, "{}"), &too_deep);
  EXPECT_NE(refused.message().find("nested deeper than 100 objects and arrays"), std::string::npos)
      << refused;

  // Printing: 64 messages below the root, map entries not counted.
  for (int depth = 62; depth <= 66; ++depth) {
    SCOPED_TRACE(depth);
    Everything chain;
    Everything list;
    Everything map;
    Everything* child = &chain;
    Everything* element = &list;
    Everything* value = &map;
    for (int i = 0; i < depth; ++i) {
      child = child->mutable_child();
      element = element->add_children();
      value = &(*value->mutable_named())["k"];
    }
    child->mutable_scalars()->mutable_f_item();
    for (const Everything* message : {&chain, &list, &map}) {
      std::string ours;
      std::string theirs;
      const bool printed = codec::ToJson(*message, &ours).ok();
      ASSERT_EQ(printed, ProtobufPrint(*message, &theirs));
      EXPECT_EQ(ours, printed ? theirs : "");
    }
  }
}

TEST(JsonCodecTest, WellKnownTypesAreLeftToProtobuf) {
  EXPECT_TRUE(codec::json::PlanFor(Everything::descriptor()).fast);
  EXPECT_TRUE(codec::json::PlanFor(json_test::Item::descriptor()).fast);
  EXPECT_FALSE(codec::json::PlanFor(json_test::WithTimestamp::descriptor()).fast);
  EXPECT_FALSE(codec::json::PlanFor(json_test::HoldsTimestamp::descriptor()).fast);
  EXPECT_FALSE(codec::json::PlanFor(google::protobuf::Timestamp::descriptor()).fast);

  const std::string json = R"({"label":"x","inner":{"at":"2024-05-01T12:00:00.250Z","note":"n"}})";
  json_test::HoldsTimestamp ours;
  ASSERT_TRUE(codec::ParseJson(json, &ours).ok());
  EXPECT_EQ(ours.inner().at().seconds(), 1714564800);
  EXPECT_EQ(ours.inner().at().nanos(), 250000000);
  std::string theirs;
  ASSERT_TRUE(ProtobufPrint(ours, &theirs));
  EXPECT_EQ(Print(ours), theirs);
  EXPECT_EQ(theirs, json);

  // protobuf's words, as the gateway gave them before.
  const Status refused = codec::ParseJson(R"({"inner":{"at":"yesterday"}})", &ours);
  std::string error;
  EXPECT_FALSE(ProtobufParse(R"({"inner":{"at":"yesterday"}})", &ours, &error));
  EXPECT_EQ(refused, Status(StatusCode::INVALID_ARGUMENT, error));
}

TEST(JsonCodecTest, FirstUseFromManyThreadsAtOnce) {
  RandomMessage random(99);
  std::vector<Everything> messages(16);
  std::vector<Everything> expected(messages.size());
  std::vector<std::string> printed(messages.size());
  for (size_t i = 0; i < messages.size(); ++i) {
    random.Fill(&messages[i], 3);
    DropMapsOfMessages(&messages[i]);
    ASSERT_TRUE(ProtobufPrint(messages[i], &printed[i]));
    expected[i] = messages[i];
    UnsignZeros(&expected[i]);
  }
  struct Failures {
    int parses = 0;
    int prints = 0;
    int readings = 0;
  };
  std::vector<Failures> failures(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < failures.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        const size_t i = (t + round) % messages.size();
        json_test::Repeated repeated;
        json_test::Maps maps;
        failures[t].parses += !codec::ParseJson(R"({"rInt32":[1]})", &repeated).ok();
        failures[t].parses += !codec::ParseJson(R"({"byBool":{"true":"x"}})", &maps).ok();
        std::string json;
        failures[t].prints += !codec::ToJson(messages[i], &json).ok() || json != printed[i];
        Everything parsed;
        failures[t].readings +=
            !codec::ParseJson(printed[i], &parsed).ok() || !Equivalent(expected[i], parsed);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const Failures& failed : failures) {
    EXPECT_EQ(failed.parses, 0);
    EXPECT_EQ(failed.prints, 0);
    EXPECT_EQ(failed.readings, 0);
  }
}

}  // namespace
}  // namespace ferry::codec_test
