#include "gateway_headers_check.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "echo.pb.h"
#include "expected_ids.h"
#include "ferry/codec/json_codec.h"
#include "ferry/codec/status.h"
#include "fuzz_check.h"
#include "fuzz_server.h"
#include "raw_http_client.h"

namespace ferry::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kAnswerWait{5000};

// A header's value as the server reads it: printable ASCII (what else HTTP allows is not what
// this fuzzer is after), without the whitespace HTTP strips at either end. nullopt: not sent.
std::optional<std::string> HeaderValue(RequestReader* input) {
  const uint8_t length = input->Byte();
  if (length == 255) return std::nullopt;
  std::string value;
  for (const char c : input->Bytes(length % 96)) {
    if (c >= 0x20 && c < 0x7f) value.push_back(c);
  }
  const size_t first = value.find_first_not_of(' ');
  if (first == std::string::npos) return std::string();
  return value.substr(first, value.find_last_not_of(' ') - first + 1);
}

template <typename Int>
bool ReadsWhole(std::string_view text, Int* value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

// docs/http.md: milliseconds from 1; the server takes up to a year.
bool ValidTimeout(std::string_view text, uint64_t* ms) {
  return ReadsWhole(text, ms) && *ms >= 1 && *ms <= kMaxTimeoutUs / 1000;
}

// W3C trace context: version-trace id-parent id-flags, lowercase hex, ids not all zeros,
// version ff invalid, a later version than 00 possibly followed by "-" and more.
bool ValidTraceParent(std::string_view header) {
  if (header.size() < 55 || (header.size() > 55 && header[55] != '-')) return false;
  const std::string_view version = header.substr(0, 2);
  if (!IsLowerHex(version, 2) || version == "ff" || (version == "00" && header.size() != 55)) {
    return false;
  }
  return header[2] == '-' && header[35] == '-' && header[52] == '-' &&
         IsLowerHex(header.substr(3, 32), 32) && !AllZeros(header.substr(3, 32)) &&
         IsLowerHex(header.substr(36, 16), 16) && !AllZeros(header.substr(36, 16)) &&
         IsLowerHex(header.substr(53, 2), 2);
}

struct Sent {
  std::string method;  // of EchoService
  std::string body;
  std::optional<std::string> timeout, call_id, traceparent, authorization;
};

void AppendHeader(std::string_view name, const std::optional<std::string>& value,
                  std::string* headers) {
  if (value) headers->append(name).append(": ").append(*value).append("\r\n");
}

// What the handler must have seen of a request the gateway served.
void CheckSeen(const SeenCall& seen, const Sent& sent, const demo::EchoRequest& request,
               Clock::time_point sent_at, Clock::time_point answered) {
  FERRY_FUZZ_CHECK(seen.method == sent.method, "method '%s'", seen.method.c_str());
  FERRY_FUZZ_CHECK(seen.payload == request.payload(), "payload of %zu bytes", seen.payload.size());
  uint64_t call_id = 0;
  if (sent.call_id && !sent.call_id->empty()) ReadsWhole(*sent.call_id, &call_id);
  FERRY_FUZZ_CHECK(seen.request_id == call_id, "call id %llu",
                   static_cast<unsigned long long>(seen.request_id));
  const std::string authorization = sent.authorization.value_or("");
  const std::string_view token = authorization.starts_with("Bearer ")
                                     ? std::string_view(authorization).substr(7)
                                     : std::string_view();
  FERRY_FUZZ_CHECK(seen.auth_token == token, "auth token '%s'", seen.auth_token.c_str());
  FERRY_FUZZ_CHECK(seen.attachments.empty(), "%zu attachments", seen.attachments.size());
  FERRY_FUZZ_CHECK(IsLowerHex(seen.span_id, 16) && !AllZeros(seen.span_id), "span id '%s'",
                   seen.span_id.c_str());
  const std::string traceparent = sent.traceparent.value_or("");
  if (ValidTraceParent(traceparent)) {
    FERRY_FUZZ_CHECK(
        seen.trace_id == std::string_view(traceparent).substr(3, 32) &&
            seen.parent_span_id == traceparent.substr(36, 16) &&
            seen.sampled ==
                ((std::stoi(std::string(traceparent.substr(53, 2)), nullptr, 16) & 1) != 0),
        "trace %s, parent %s from '%s'", seen.trace_id.c_str(), seen.parent_span_id.c_str(),
        std::string(traceparent).c_str());
  } else {
    FERRY_FUZZ_CHECK(IsLowerHex(seen.trace_id, 32) && !AllZeros(seen.trace_id) &&
                         seen.parent_span_id.empty() && seen.sampled,
                     "trace %s, parent %s without a valid traceparent", seen.trace_id.c_str(),
                     seen.parent_span_id.c_str());
  }
  uint64_t ms = 0;
  if (sent.timeout && !sent.timeout->empty() && ValidTimeout(*sent.timeout, &ms)) {
    FERRY_FUZZ_CHECK(
        DeadlineWithin(seen.deadline, sent_at, answered, std::chrono::milliseconds(ms)),
        "the deadline is not %llu ms after the request was read",
        static_cast<unsigned long long>(ms));
  } else {
    FERRY_FUZZ_CHECK(seen.deadline == Clock::time_point::max(), "a deadline without a timeout");
  }
}

// The HTTP status docs/http.md gives the request; `expires`: 504 is right too.
int ExpectedStatus(const Sent& sent, demo::EchoRequest* request, bool* expires) {
  *expires = false;
  if (sent.method != "Echo" && sent.method != "Delay") return 404;
  // The headers are read when the request arrives; the body only once the call left the pool,
  // after its deadline was checked: from a valid timeout on, a deadline may pass first.
  uint64_t number = 0;
  const bool timed = sent.timeout && !sent.timeout->empty();
  if (timed && !ValidTimeout(*sent.timeout, &number)) return 400;
  if (sent.call_id && !sent.call_id->empty() && !ReadsWhole(*sent.call_id, &number)) return 400;
  *expires = timed;
  // Delay's request holds Echo's payload as field 1 and more: read what is common as Echo's.
  demo::DelayRequest delay;
  google::protobuf::Message* parsed = request;
  if (sent.method == "Delay") parsed = &delay;
  if (!codec::ParseJson(sent.body.empty() ? "{}" : sent.body, parsed).ok()) return 400;
  if (sent.method == "Delay") request->set_payload(delay.payload());
  return 200;
}

}  // namespace

void CheckGatewayHeaders(RequestReader* input) {
  static constexpr const char* kMethods[] = {"Echo", "Delay", "Missing", "Echo"};
  Sent sent;
  sent.method = kMethods[input->Byte() & 3];
  sent.timeout = HeaderValue(input);
  sent.call_id = HeaderValue(input);
  sent.traceparent = HeaderValue(input);
  sent.authorization = HeaderValue(input);
  sent.body = input->Rest();
  std::string headers;
  AppendHeader("X-Ferry-Timeout-Ms", sent.timeout, &headers);
  AppendHeader("X-Ferry-Call-Id", sent.call_id, &headers);
  AppendHeader("traceparent", sent.traceparent, &headers);
  AppendHeader("Authorization", sent.authorization, &headers);

  demo::EchoRequest request;
  bool expires = false;
  const int expected = ExpectedStatus(sent, &request, &expires);

  const FuzzServer& server = TheServer();
  http_test::RawHttpClient client(server.port);
  FERRY_FUZZ_CHECK(client.connected(), "cannot connect to the fuzzed server: %s",
                   std::strerror(errno));
  client.ResetOnClose();
  server.service->Take();
  const Clock::time_point sent_at = Clock::now();
  FERRY_FUZZ_CHECK(client.Send(http_test::Request("POST", "/ferry.demo.EchoService/" + sent.method,
                                                  sent.body, headers)),
                   "cannot send the request: %s", std::strerror(errno));
  const std::optional<http_test::RawResponse> answer = client.Read(kAnswerWait);
  const Clock::time_point answered = Clock::now();
  FERRY_FUZZ_CHECK(
      answer.has_value(), "no answer (closed or unreadable) after %lld ms",
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(answered - sent_at).count()));
  const std::optional<SeenCall> seen = server.service->Take();
  FERRY_FUZZ_CHECK(answer->status == expected || (expires && answer->status == 504),
                   "answered %d, expected %d: %s", answer->status, expected, answer->body.c_str());
  if (answer->status != 200) {
    // At the deadline the gateway answers 504 whether or not the handler ran meanwhile.
    FERRY_FUZZ_CHECK(!seen.has_value() || answer->status == 504,
                     "the handler ran for a request answered %d", answer->status);
    return;
  }
  demo::EchoResponse response;
  FERRY_FUZZ_CHECK(
      codec::ParseJson(answer->body, &response).ok() && response.payload() == request.payload(),
      "answered '%s'", answer->body.c_str());
  FERRY_FUZZ_CHECK(seen.has_value(), "answered 200 without running the handler");
  CheckSeen(*seen, sent, request, sent_at, answered);
}

}  // namespace ferry::fuzz
