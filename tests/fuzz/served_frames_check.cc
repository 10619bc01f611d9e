#include "served_frames_check.h"

#include <google/protobuf/message.h>
#include <cstdio>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "echo.pb.h"
#include "expected_ids.h"
#include "ferry/codec/compressor.h"
#include "ferry/codec/frame_header.h"
#include "ferry/codec/message_codec.h"
#include "ferry/codec/serializer.h"
#include "ferry/codec/status.h"
#include "ferry/rpc_meta.pb.h"
#include "frame_client.h"
#include "fuzz_check.h"
#include "fuzz_server.h"

namespace ferry::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxRequests = 8;
constexpr size_t kMaxBodyBytes = 16u << 20;  // the server's max_frame_bytes bounds bodies
constexpr std::chrono::milliseconds kAnswerWait{5000};

// Protocol 1.1's auth token indices, as docs/protocol.md describes them: 16 slots per
// connection, a definition replacing its slot's token, a reference naming what its slot holds.
class TokenSlots {
 public:
  // False when the server must refuse the meta (INVALID_ARGUMENT).
  bool Resolve(wire::RpcMeta* meta) {
    const uint64_t index = meta->auth_token_index();
    if (index == 0) return true;
    if (meta->auth_token().size() > codec::kMaxIndexedAuthTokenBytes) return false;
    auto& [held_index, token] = slots_[index % slots_.size()];
    if (!meta->auth_token().empty()) {
      held_index = index;
      token = meta->auth_token();
      return true;
    }
    if (held_index != index) return false;
    meta->set_auth_token(token);
    return true;
  }

 private:
  std::array<std::pair<uint64_t, std::string>, 16> slots_{};
};

// What the server owes one request.
struct Expectation {
  StatusCode code = StatusCode::OK;
  wire::RpcMeta meta;  // as parsed, its token resolved
  std::string payload;
  // The meta named a method, so the answer hangs on the body, which is decoded only once the
  // call left the pool: a deadline may pass before that.
  bool body_decides = false;
};

Expectation Expect(const codec::FrameHeader& header, const std::string& meta,
                   const std::string& body, TokenSlots* tokens) {
  Expectation expected;
  if (!expected.meta.ParseFromString(meta) || !tokens->Resolve(&expected.meta)) {
    expected.code = StatusCode::INVALID_ARGUMENT;
    return expected;
  }
  std::unique_ptr<google::protobuf::Message> request;
  if (expected.meta.service() == "ferry.demo.EchoService" && expected.meta.method() == "Echo") {
    request = std::make_unique<demo::EchoRequest>();
  } else if (expected.meta.service() == "ferry.demo.EchoService" &&
             expected.meta.method() == "Delay") {
    request = std::make_unique<demo::DelayRequest>();
  } else {
    expected.code = StatusCode::UNIMPLEMENTED;
    return expected;
  }
  // The body is not what this fuzzer is after: the codec's own reading of it is the reference.
  const Status parsed = codec::ParseBody(header, body, kMaxBodyBytes, request.get());
  expected.code = parsed.code();
  expected.body_decides = true;
  const auto* field = request->GetDescriptor()->FindFieldByName("payload");
  expected.payload = request->GetReflection()->GetString(*request, field);
  return expected;
}

void CheckSeen(const SeenCall& seen, const Expectation& expected, Clock::time_point sent,
               Clock::time_point answered) {
  const wire::RpcMeta& meta = expected.meta;
  FERRY_FUZZ_CHECK(seen.method == meta.method(), "method '%s'", seen.method.c_str());
  FERRY_FUZZ_CHECK(seen.payload == expected.payload, "payload of %zu bytes, sent %zu",
                   seen.payload.size(), expected.payload.size());
  // A W3C trace id is kept, with the parent span; anything else starts a trace of its own.
  const bool trace_id = IsLowerHex(meta.trace_id(), 32) && !AllZeros(meta.trace_id());
  FERRY_FUZZ_CHECK(trace_id ? seen.trace_id == meta.trace_id()
                            : IsLowerHex(seen.trace_id, 32) && !AllZeros(seen.trace_id),
                   "trace id '%s'", seen.trace_id.c_str());
  FERRY_FUZZ_CHECK(seen.span_id == SpanIdText(meta.span_id()), "span id '%s'",
                   seen.span_id.c_str());
  FERRY_FUZZ_CHECK(seen.parent_span_id == (trace_id ? SpanIdText(meta.parent_span_id()) : ""),
                   "parent span id '%s'", seen.parent_span_id.c_str());
  FERRY_FUZZ_CHECK(seen.sampled == meta.sampled(), "sampled %d", seen.sampled);
  FERRY_FUZZ_CHECK(seen.request_id == meta.call_id(), "call id %llu",
                   static_cast<unsigned long long>(seen.request_id));
  FERRY_FUZZ_CHECK(seen.auth_token == meta.auth_token(), "auth token of %zu bytes, sent %zu",
                   seen.auth_token.size(), meta.auth_token().size());
  const Attachments sent_attachments(meta.attachments().begin(), meta.attachments().end());
  FERRY_FUZZ_CHECK(seen.attachments == sent_attachments, "%zu attachments, sent %zu",
                   seen.attachments.size(), sent_attachments.size());
  const uint64_t budget = meta.timeout_us();
  if (budget == 0 || budget > kMaxTimeoutUs) {
    FERRY_FUZZ_CHECK(seen.deadline == Clock::time_point::max(),
                     "a deadline from a budget of %llu us",
                     static_cast<unsigned long long>(budget));
  } else {
    FERRY_FUZZ_CHECK(
        DeadlineWithin(seen.deadline, sent, answered, std::chrono::microseconds(budget)),
        "the deadline is not %llu us after the request was read",
        static_cast<unsigned long long>(budget));
  }
}

void CheckAnswer(const codec::Frame& answer, const codec::FrameHeader& request,
                 const Expectation& expected, std::optional<SeenCall> seen, Clock::time_point sent,
                 Clock::time_point answered) {
  FERRY_FUZZ_CHECK(answer.header.type == codec::MessageType::kResponse &&
                       answer.header.request_id == request.request_id,
                   "%s frame with id %llu for request %llu",
                   std::string(codec::MessageTypeName(answer.header.type)).c_str(),
                   static_cast<unsigned long long>(answer.header.request_id),
                   static_cast<unsigned long long>(request.request_id));
  const auto code = static_cast<StatusCode>(answer.header.status);
  wire::RpcMeta meta;
  FERRY_FUZZ_CHECK(codec::ParseMeta(answer.meta, &meta).ok(), "an answer's meta does not parse");
  // A budget of a few microseconds may pass before the body is decoded and the handler runs.
  const bool expired = expected.body_decides && code == StatusCode::DEADLINE_EXCEEDED &&
                       expected.meta.timeout_us() != 0 &&
                       expected.meta.timeout_us() <= kMaxTimeoutUs;
  // A caller that reads at most max_response_bytes gets a status for a larger answer, whose
  // size the message gives: more than the limit, and at least a header and the payload.
  if (expected.code == StatusCode::OK && code == StatusCode::RESOURCE_EXHAUSTED &&
      expected.meta.max_response_bytes() != 0) {
    unsigned long long size = 0;
    FERRY_FUZZ_CHECK(
        std::sscanf(meta.error_message().c_str(), "the response (%llu bytes)", &size) == 1,
        "an oversized answer refused as '%s'", meta.error_message().c_str());
    FERRY_FUZZ_CHECK(size > expected.meta.max_response_bytes() &&
                         size >= codec::kHeaderSize + expected.payload.size(),
                     "a response of %llu bytes refused for a limit of %llu", size,
                     static_cast<unsigned long long>(expected.meta.max_response_bytes()));
    FERRY_FUZZ_CHECK(seen.has_value(), "an answer too large for the caller without a handler");
    return;
  }
  FERRY_FUZZ_CHECK(code == expected.code || expired, "answered %s (%s), expected %s",
                   std::string(StatusCodeName(code)).c_str(), meta.error_message().c_str(),
                   std::string(StatusCodeName(expected.code)).c_str());
  if (code != StatusCode::OK) {
    FERRY_FUZZ_CHECK(!meta.error_message().empty(), "%s without a message",
                     std::string(StatusCodeName(code)).c_str());
    FERRY_FUZZ_CHECK(!seen.has_value(), "the handler ran for a refused request");
    return;
  }
  FERRY_FUZZ_CHECK(answer.header.serializer == request.serializer,
                   "answered with serializer %u to a request with %u", answer.header.serializer,
                   request.serializer);
  demo::EchoResponse response;
  const Status parsed = codec::ParseBody(answer.header, answer.body, kMaxBodyBytes, &response);
  FERRY_FUZZ_CHECK(parsed.ok(), "the answer's body: %s", parsed.ToString().c_str());
  FERRY_FUZZ_CHECK(response.payload() == expected.payload, "echoed %zu bytes of %zu",
                   response.payload().size(), expected.payload.size());
  FERRY_FUZZ_CHECK(seen.has_value(), "answered OK without running the handler");
  CheckSeen(*seen, expected, sent, answered);
}

codec::FrameHeader RequestHeader(uint8_t control, uint64_t request_id) {
  static constexpr uint8_t kSerializers[] = {codec::serializer_id::kProtobuf,
                                             codec::serializer_id::kJson, 7,
                                             codec::serializer_id::kProtobuf};
  static constexpr uint8_t kCompressions[] = {
      codec::compression_id::kNone, codec::compression_id::kZstd, 9, codec::compression_id::kNone};
  codec::FrameHeader header;
  header.request_id = request_id;
  header.serializer = kSerializers[control & 3];
  header.compression = kCompressions[(control >> 2) & 3];
  return header;
}

}  // namespace

void CheckServedFrames(RequestReader* input) {
  const FuzzServer& server = TheServer();
  test::FrameClient client(server.port);
  FERRY_FUZZ_CHECK(client.connected(), "cannot connect to the fuzzed server: %s",
                   std::strerror(errno));
  client.ResetOnClose();
  TokenSlots tokens;
  for (int i = 0; i < kMaxRequests && !input->empty(); ++i) {
    const codec::FrameHeader header = RequestHeader(input->Byte(), i + 1);
    const std::string meta = input->Bytes(input->Length());
    const std::string body = input->Bytes(input->Length());
    const Expectation expected = Expect(header, meta, body, &tokens);
    server.service->Take();
    const Clock::time_point sent = Clock::now();
    FERRY_FUZZ_CHECK(client.SendFrame(header, meta, body), "cannot send request %d: %s", i + 1,
                     std::strerror(errno));
    const std::optional<codec::Frame> answer = client.ReadFrame(kAnswerWait);
    const Clock::time_point answered = Clock::now();
    FERRY_FUZZ_CHECK(
        answer.has_value(), "no answer to request %d (closed or unreadable) after %lld ms", i + 1,
        static_cast<long long>(
            std::chrono::duration_cast<std::chrono::milliseconds>(answered - sent).count()));
    CheckAnswer(*answer, header, expected, server.service->Take(), sent, answered);
  }
}

}  // namespace ferry::fuzz
