// The JSON codec (codec/src/json_*, the gateway's and the json serializer's) on arbitrary request
// bodies for a few request types: it must never crash; it refuses with INVALID_ARGUMENT and a
// reason; what it accepts prints and reads back as the same message, and prints the same text
// again; and it agrees with protobuf 3.21's converter, which docs/http.md says it equals, on what
// it accepts, what it makes of it and the bytes it prints, but for what docs/http.md says it
// refuses and protobuf does not.
//
// Input: one byte choosing the request type, then the body.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "echo.pb.h"
#include "ferry/codec/json_codec.h"
#include "ferry/codec/status.h"
#include "fuzz_check.h"
#include "json_codec_test.pb.h"
#include "json_plan.h"
#include "seckill.pb.h"

namespace {

using google::protobuf::Message;

// The echo and seckill services' requests, and the codec test's types: every shape the codec
// handles itself, and one it hands to protobuf (a well-known type inside).
const Message* RequestType(uint8_t choice) {
  static const Message* const kTypes[] = {
      &ferry::demo::EchoRequest::default_instance(),
      &ferry::demo::DelayRequest::default_instance(),
      &ferry::seckill::CreateActivityRequest::default_instance(),
      &ferry::seckill::PurchaseRequest::default_instance(),
      &ferry::seckill::ChannelNotification::default_instance(),
      &ferry::seckill::GetResultRequest::default_instance(),
      &ferry::json_test::Everything::default_instance(),
      &ferry::json_test::Scalars::default_instance(),
      &ferry::json_test::Repeated::default_instance(),
      &ferry::json_test::Maps::default_instance(),
      &ferry::json_test::HoldsTimestamp::default_instance(),
  };
  return kTypes[choice % std::size(kTypes)];
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

// NaNs equal. `equivalent`: a field holding its default (-0.0 included) equals an unset one.
bool Equal(const Message& a, const Message& b, bool equivalent, std::string* differences) {
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  if (equivalent) {
    differencer.set_message_field_comparison(
        google::protobuf::util::MessageDifferencer::EQUIVALENT);
  }
  differencer.ReportDifferencesToString(differences);
  if (!differencer.Compare(a, b)) return false;
  return equivalent || CanonicalBytes(a) == CanonicalBytes(b);
}

// The limits protobuf 3.21 does not have: RFC 8259 syntax (protobuf's reader is laxer), arrays
// counted towards the nesting, a field or map key given twice (protobuf merges or keeps the last).
bool StricterThanProtobuf(const std::string& refusal) {
  for (const char* reason : {"invalid JSON at offset", "nested deeper than 100 objects and arrays",
                             "the field is given twice", "the key is given twice"}) {
    if (refusal.find(reason) != std::string::npos) return true;
  }
  return false;
}

bool ProtobufParse(std::string_view json, Message* message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  return google::protobuf::util::JsonStringToMessage(
             google::protobuf::StringPiece(json.data(), json.size()), message, options)
      .ok();
}

// Printed and parsed again: the same message; printed, parsed and printed again: the same text.
void CheckRoundTrip(const Message& parsed) {
  std::string printed;
  const ferry::Status status = ferry::codec::ToJson(parsed, &printed);
  if (!status.ok()) {
    // The one refusal: nesting the parser takes (100 levels) and the printer does not (64
    // messages).
    FERRY_FUZZ_CHECK(status.code() == ferry::StatusCode::INTERNAL &&
                         status.message().find("deeper than 64") != std::string::npos,
                     "cannot print what was parsed: %s", status.ToString().c_str());
    return;
  }
  std::unique_ptr<Message> again(parsed.New());
  const ferry::Status reparsed = ferry::codec::ParseJson(printed, again.get());
  // The printer writes a list where the text gave a lone value, which nests the text deeper.
  if (reparsed.message().find("nested deeper than 100 objects and arrays") != std::string::npos) {
    return;
  }
  FERRY_FUZZ_CHECK(reparsed.ok(), "cannot parse what was printed: %s\n%s",
                   reparsed.ToString().c_str(), printed.c_str());
  std::string differences;
  FERRY_FUZZ_CHECK(Equal(parsed, *again, /*equivalent=*/true, &differences),
                   "printed and parsed back differently:\n%s\n%s", printed.c_str(),
                   differences.c_str());
  // -0.0 prints as "-0", which reads back as the integer 0 (protobuf reads it so too): the text
  // is the same from the second print on.
  std::string reprinted;
  FERRY_FUZZ_CHECK(ferry::codec::ToJson(*again, &reprinted).ok(), "cannot print it again");
  std::unique_ptr<Message> third(parsed.New());
  std::string third_text;
  FERRY_FUZZ_CHECK(ferry::codec::ParseJson(reprinted, third.get()).ok() &&
                       ferry::codec::ToJson(*third, &third_text).ok() && third_text == reprinted,
                   "printed differently the third time:\n%s\n%s", reprinted.c_str(),
                   third_text.c_str());
  if (!ferry::codec::json::PlanFor(parsed.GetDescriptor()).fast) return;
  // Both print a map in its iteration order, which is the order entries were added only while
  // its last change came through reflection, as the parser's do; protobuf prints from the hash
  // map whatever the last change. A copy's maps are filled through the map, as a handler fills
  // its response's, which is what the gateway prints.
  std::unique_ptr<Message> copy(parsed.New());
  copy->CopyFrom(parsed);
  std::string ours;
  std::string by_protobuf;
  FERRY_FUZZ_CHECK(ferry::codec::ToJson(*copy, &ours).ok() &&
                       google::protobuf::util::MessageToJsonString(*copy, &by_protobuf).ok() &&
                       by_protobuf == ours,
                   "protobuf prints it otherwise:\n%s\n%s", ours.c_str(), by_protobuf.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // protobuf logs each string it serializes that is not UTF-8 (its lenient reader lets some in).
  static const auto* const quiet = new google::protobuf::LogSilencer();
  static_cast<void>(quiet);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Message* type = RequestType(data[0]);
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::unique_ptr<Message> parsed(type->New());
  const ferry::Status status = ferry::codec::ParseJson(body, parsed.get());
  std::unique_ptr<Message> by_protobuf(type->New());
  const bool protobuf_accepts = ProtobufParse(body, by_protobuf.get());
  if (!status.ok()) {
    FERRY_FUZZ_CHECK(
        status.code() == ferry::StatusCode::INVALID_ARGUMENT && !status.message().empty(),
        "refused as %s", status.ToString().c_str());
    FERRY_FUZZ_CHECK(!protobuf_accepts || StricterThanProtobuf(status.message()),
                     "protobuf accepts what the gateway refuses (%s): %s", status.message().c_str(),
                     by_protobuf->ShortDebugString().c_str());
    return 0;
  }
  FERRY_FUZZ_CHECK(protobuf_accepts, "protobuf refuses what the gateway accepts: %s",
                   parsed->ShortDebugString().c_str());
  std::string differences;
  FERRY_FUZZ_CHECK(Equal(*by_protobuf, *parsed, /*equivalent=*/false, &differences),
                   "protobuf reads it otherwise:\n%s", differences.c_str());
  CheckRoundTrip(*parsed);
  return 0;
}
