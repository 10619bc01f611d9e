// Writes tests/fuzz/corpus/: valid inputs of each fuzzer, made by the code they feed (the codec
// writes the frames and metas, the gateway's printer the JSON, the registry the records), plus
// a few broken ones. Its output is committed; run it again after changing an input format:
//   build-fuzz/bin/ferry-fuzz-seeds tests/fuzz/corpus
#include <google/protobuf/message.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "echo.pb.h"
#include "ferry/codec/compressor.h"
#include "ferry/codec/encoded_request.h"
#include "ferry/codec/frame_header.h"
#include "ferry/codec/json_codec.h"
#include "ferry/codec/message_codec.h"
#include "ferry/codec/serializer.h"
#include "ferry/plugins/auth_token.h"
#include "ferry/plugins/user_token.h"
#include "ferry/rpc_meta.pb.h"
#include "json_codec_test.pb.h"
#include "provider_record.h"
#include "seckill.pb.h"

namespace {

namespace codec = ferry::codec;
using ferry::wire::RpcMeta;

std::filesystem::path root;

// A seed that could not be made would be no seed at all: the writer stops instead.
void Must(const ferry::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "cannot make a seed: %s\n", status.ToString().c_str());
  std::exit(1);
}

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  const std::filesystem::path dir = root / target;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

std::string Length16(size_t n) { return {static_cast<char>(n >> 8), static_cast<char>(n & 0xff)}; }

RpcMeta EchoMeta(const std::string& method) {
  RpcMeta meta;
  meta.set_service("ferry.demo.EchoService");
  meta.set_method(method);
  return meta;
}

std::string Frame(codec::FrameHeader header, const RpcMeta* meta,
                  const google::protobuf::Message* body, codec::BodyOptions options = {}) {
  std::string frame;
  Must(codec::AppendFrame(header, meta, body, options, &frame));
  return frame;
}

std::string Control(codec::MessageType type, uint8_t flags) {
  codec::FrameHeader header;
  header.type = type;
  header.flags = flags;
  header.request_id = 42;
  const auto bytes = codec::WriteHeader(header);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Frame decoder: a stream, then the mode byte (limits, feeding, chunking) and the chunk seed.
void FrameDecoderSeeds() {
  ferry::demo::EchoRequest echo;
  echo.set_payload("hello, ferry");
  RpcMeta meta = EchoMeta("Echo");
  meta.set_timeout_us(250000);
  meta.set_trace_id("4bf92f3577b34da6a3ce929d0e0e4736");
  (*meta.mutable_attachments())["tenant"] = "blue";
  codec::FrameHeader request;
  request.request_id = 1;
  const std::string plain = Frame(request, &meta, &echo);

  ferry::demo::EchoRequest big;
  big.set_payload(std::string(3000, 'z'));
  const std::string zstd = Frame(
      request, &meta, &big, {.compression = codec::compression_id::kZstd, .compress_threshold = 0});
  const std::string json =
      Frame(request, &meta, &echo, {.serializer = codec::serializer_id::kJson});

  codec::EncodedRequest encoded;
  Must(encoded.Encode(EchoMeta("Delay"), echo, {}));
  std::string retried;
  encoded.AppendFrame(7, 1000, &retried);
  encoded.AppendFrame(8, 0, &retried);

  codec::FrameHeader ok;
  ok.type = codec::MessageType::kResponse;
  ok.request_id = 1;
  ferry::demo::EchoResponse reply;
  reply.set_payload("hello, ferry");
  const std::string response = Frame(ok, nullptr, &reply);
  codec::FrameHeader failed = ok;
  failed.status = static_cast<uint16_t>(ferry::StatusCode::UNIMPLEMENTED);
  RpcMeta error;
  error.set_error_message("unknown method 'Nope' of service 'ferry.demo.EchoService'");
  const std::string refusal = Frame(failed, &error, nullptr);

  const std::string heartbeat =
      Control(codec::MessageType::kHeartbeat, 0) +
      Control(codec::MessageType::kHeartbeat, codec::flags::kHeartbeatReply);
  const std::string cancel = Control(codec::MessageType::kCancel, 0);
  const std::string goaway = Control(codec::MessageType::kGoAway, 0) +
                             Control(codec::MessageType::kGoAway, codec::flags::kGoAwayAck);

  // Mode: bits 0-1 meta limit, 2-3 frame limit, 4 PrepareWrite, 5-7 chunking.
  const auto seed = [](const std::string& stream, uint8_t mode) {
    return stream + static_cast<char>(mode) + static_cast<char>(0x5a);
  };
  Write("frame_decoder", "request", seed(plain, 0x00));
  Write("frame_decoder", "request-bytewise", seed(plain, 0x20));
  Write("frame_decoder", "request-zstd", seed(zstd, 0x50));
  Write("frame_decoder", "request-json", seed(json, 0x60));
  Write("frame_decoder", "retried-requests", seed(retried, 0x80));
  Write("frame_decoder", "responses", seed(response + refusal, 0xa0));
  Write("frame_decoder", "control-frames", seed(heartbeat + cancel + goaway, 0xd0));
  Write("frame_decoder", "everything", seed(plain + response + heartbeat + retried + goaway, 0xe0));
  Write("frame_decoder", "cut-short", seed(plain.substr(0, plain.size() - 3), 0x40));
  Write("frame_decoder", "meta-over-limit", seed(plain, 0x02));
  Write("frame_decoder", "frame-over-limit", seed(plain + response, 0x0c));
  std::string wrong_version = plain;
  wrong_version[2] = 2;
  Write("frame_decoder", "wrong-version", seed(response + wrong_version, 0x20));
  Write("frame_decoder", "bad-magic", seed(cancel + "GET / HTTP/1.1\r\n\r\n", 0x00));
}

// Meta fuzzer, binary: 0, then per request a control byte, the meta and the body.
std::string Request(uint8_t control, const RpcMeta& meta, const std::string& body) {
  const std::string bytes = meta.SerializeAsString();
  return static_cast<char>(control) + Length16(bytes.size()) + bytes + Length16(body.size()) + body;
}

std::string Body(const google::protobuf::Message& message, codec::BodyOptions options = {}) {
  codec::FrameHeader header;
  const std::string frame = Frame(header, nullptr, &message, options);
  return frame.substr(codec::kHeaderSize);
}

// Meta fuzzer, HTTP: 1, the method, four headers (255: absent) and the body.
std::string HttpRequest(uint8_t method, const std::vector<std::string>& headers,
                        const std::string& body) {
  std::string input = "\x01";
  input += static_cast<char>(method);
  for (const std::string& value : headers) {
    input += value == "-" ? std::string("\xff") : static_cast<char>(value.size()) + value;
  }
  return input + body;
}

void MetaSeeds() {
  ferry::demo::EchoRequest echo;
  echo.set_payload("ping");
  RpcMeta full = EchoMeta("Echo");
  full.set_timeout_us(2000000);
  full.set_trace_id("4bf92f3577b34da6a3ce929d0e0e4736");
  full.set_span_id(0x00f067aa0ba902b7);
  full.set_parent_span_id(0x53ce929d0e0e4736);
  full.set_sampled(true);
  full.set_call_id(99);
  full.set_auth_token("secret");
  (*full.mutable_attachments())["tenant"] = "blue";
  (*full.mutable_attachments())["region"] = "eu";
  Write("meta", "echo-every-field", '\0' + Request(0, full, Body(echo)));

  ferry::demo::DelayRequest delay;
  delay.set_payload("later");
  delay.set_sleep_ms(5);
  Write("meta", "delay", '\0' + Request(0, EchoMeta("Delay"), Body(delay)));
  Write(
      "meta", "echo-json",
      '\0' + Request(1, EchoMeta("Echo"), Body(echo, {.serializer = codec::serializer_id::kJson})));
  ferry::demo::EchoRequest big;
  big.set_payload(std::string(2000, 'q'));
  Write("meta", "echo-zstd",
        '\0' + Request(4, EchoMeta("Echo"),
                       Body(big, {.compression = codec::compression_id::kZstd,
                                  .compress_threshold = 0})));
  RpcMeta unknown = EchoMeta("Nope");
  RpcMeta other;
  other.set_service("ferry.demo.Other");
  other.set_method("Echo");
  Write("meta", "unknown-method-and-service",
        '\0' + Request(0, unknown, Body(echo)) + Request(0, other, Body(echo)));

  RpcMeta define = EchoMeta("Echo");
  define.set_auth_token("token-of-index-3");
  define.set_auth_token_index(3);
  RpcMeta refer = EchoMeta("Echo");
  refer.set_auth_token_index(3);
  RpcMeta replace = EchoMeta("Echo");
  replace.set_auth_token("token-of-index-19");
  replace.set_auth_token_index(19);
  Write("meta", "auth-token-indices",
        '\0' + Request(0, define, Body(echo)) + Request(0, refer, Body(echo)) +
            Request(0, replace, Body(echo)) + Request(0, refer, Body(echo)));

  RpcMeta tiny = EchoMeta("Delay");
  tiny.set_timeout_us(1);
  RpcMeta beyond = EchoMeta("Echo");
  beyond.set_timeout_us(uint64_t{400} * 24 * 3600 * 1000 * 1000);
  Write("meta", "timeouts", '\0' + Request(0, tiny, Body(delay)) + Request(0, beyond, Body(echo)));

  // As a retried call sends it: the encoded meta, then a timeout_us of its own appended.
  codec::EncodedRequest encoded;
  RpcMeta timed = EchoMeta("Echo");
  timed.set_timeout_us(5000);
  Must(encoded.Encode(timed, echo, {}));
  std::string frame;
  encoded.AppendFrame(1, 3000, &frame);
  codec::FrameHeader header;
  codec::ReadHeader(reinterpret_cast<const uint8_t*>(frame.data()), &header);
  const std::string meta_bytes = frame.substr(codec::kHeaderSize, header.meta_length);
  const std::string body = frame.substr(codec::kHeaderSize + header.meta_length);
  Write("meta", "retried-meta",
        std::string(1, '\0') + '\0' + Length16(meta_bytes.size()) + meta_bytes +
            Length16(body.size()) + body);

  const std::string json = R"({"payload":"cGluZw=="})";
  Write("meta", "http-every-header",
        HttpRequest(0,
                    {"250", "42", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                     "Bearer secret"},
                    json));
  Write("meta", "http-no-header", HttpRequest(1, {"-", "-", "-", "-"}, json));
  Write("meta", "http-bad-headers",
        HttpRequest(0,
                    {"soon", "-1", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-x",
                     "Basic abc"},
                    json));
  Write("meta", "http-unknown-method", HttpRequest(2, {"-", "-", "-", "-"}, "{}"));
  Write("meta", "http-bad-body", HttpRequest(0, {"1", "-", "-", "-"}, R"({"payload":1})"));
}

void JsonSeed(uint8_t type, const std::string& name, const google::protobuf::Message& message) {
  std::string json;
  Must(ferry::codec::ToJson(message, &json));
  Write("json_gateway", name, static_cast<char>(type) + json);
}

void JsonSeeds() {
  ferry::demo::EchoRequest echo;
  echo.set_payload(std::string("\0\x01\xfe\xff bytes", 10));
  JsonSeed(0, "echo", echo);
  ferry::demo::DelayRequest delay;
  delay.set_payload("x");
  delay.set_sleep_ms(10);
  delay.set_fail_code(5);
  delay.set_fail_message("not found <\u00e9\u2028>");
  delay.set_throw_exception(true);
  JsonSeed(1, "delay", delay);
  ferry::seckill::CreateActivityRequest create;
  auto* activity = create.mutable_activity();
  activity->set_sku_id(7);
  activity->set_name("flash sale");
  activity->set_stock(100);
  activity->set_start_time_ms(1732900000000);
  activity->set_end_time_ms(1732903600000);
  activity->set_price_cents(-1);
  activity->set_pay_timeout_s(900);
  JsonSeed(2, "create-activity", create);
  ferry::seckill::PurchaseRequest purchase;
  purchase.set_activity_id(1);
  purchase.set_sku_id(7);
  purchase.set_user_id("user-1");
  purchase.set_request_id("r-1");
  JsonSeed(3, "purchase", purchase);
  ferry::seckill::ChannelNotification notification;
  notification.set_channel("sim");
  notification.set_payload(std::string("\x08\x00\xff payload", 11));
  notification.set_signature("00ff");
  JsonSeed(4, "notification", notification);
  ferry::seckill::GetResultRequest result;
  result.set_request_id("r-1");
  result.set_activity_id(1);
  JsonSeed(5, "get-result", result);

  ferry::json_test::Everything everything;
  everything.set_declared_first(1);
  auto* scalars = everything.mutable_scalars();
  scalars->set_f_double(-0.0);
  scalars->set_f_float(1.17549435e-38f);
  scalars->set_f_int32(-2147483647 - 1);
  scalars->set_f_int64(-9223372036854775807 - 1);
  scalars->set_f_uint64(18446744073709551615u);
  scalars->set_f_sint32(-5);
  scalars->set_f_fixed64(1);
  scalars->set_f_bool(true);
  scalars->set_f_string("tab\there \"quoted\" \xf0\x9f\x9a\xa2");
  scalars->set_f_bytes("\xff\xfe");
  scalars->set_f_enum(ferry::json_test::INFRARED);
  scalars->mutable_f_item()->set_name("item");
  auto* repeated = everything.mutable_repeated();
  repeated->add_r_double(1e300);
  repeated->add_r_float(0.1f);
  repeated->add_r_int64(-1);
  repeated->add_r_bool(false);
  repeated->add_r_string("");
  repeated->add_r_bytes("b");
  repeated->add_r_enum(static_cast<ferry::json_test::Color>(42));
  repeated->add_items()->set_count(3);
  auto* maps = everything.mutable_maps();
  (*maps->mutable_by_string())["k"] = 1;
  (*maps->mutable_by_int32())[-1] = "minus one";
  (*maps->mutable_by_int64())[5].set_name("five");
  (*maps->mutable_by_uint64())[7] = 2.5;
  (*maps->mutable_by_sint32())[1] = ferry::json_test::GREEN;
  (*maps->mutable_by_bool())[true] = "yes";
  everything.set_choice_number(12);
  everything.set_maybe_int32(0);
  everything.set_maybe_string("");
  everything.mutable_child()->set_custom_name("renamed");
  everything.set_a_1b_c(1);
  everything.set_x__y(2);
  everything.add_children()->set_last_number(3);
  (*everything.mutable_named())["inner"].set_choice_text("t");
  JsonSeed(6, "everything", everything);
  JsonSeed(7, "scalars", *scalars);
  JsonSeed(8, "repeated", *repeated);
  JsonSeed(9, "maps", *maps);
  ferry::json_test::HoldsTimestamp holds;
  holds.set_label("l");
  holds.mutable_inner()->mutable_at()->set_seconds(1732900000);
  holds.mutable_inner()->set_note("n");
  JsonSeed(10, "holds-timestamp", holds);

  // What protobuf's lenient reader takes and RapidJSON does not, and text both refuse.
  Write("json_gateway", "lenient", std::string(1, '\7') + "{'fString': 'single', fInt32: 1,}");
  Write("json_gateway", "strings-for-numbers",
        std::string(1, '\7') +
            R"({"fInt64":"-12","fUint32":"1e3","fDouble":"NaN","fFloat":"-Infinity","fBool":"y"})");
  Write("json_gateway", "broken", std::string(1, '\6') + R"({"scalars":{"fInt32":1.5},)");
}

// Provider record: the address's length, the address, the record.
void ProviderRecordSeeds() {
  ferry::ProviderInfo provider{.address = "10.0.0.7:7001",
                               .weight = 100,
                               .version = "1.2.0",
                               .group = "blue",
                               .zone = "az-1",
                               .start_time_ms = 1732900000000,
                               .methods = {"Echo", "Delay"}};
  const auto seed = [](const ferry::ProviderInfo& info) {
    std::string record;
    Must(ferry::registry::EncodeProviderRecord(info, &record));
    return static_cast<char>(info.address.size()) + info.address + record;
  };
  Write("provider_record", "full", seed(provider));
  Write("provider_record", "defaults", seed(ferry::ProviderInfo{.address = "[::1]:65535"}));
  std::string extended = seed(provider) + "future_key=anything\n";
  Write("provider_record", "unknown-key", extended);
  const auto raw = [](const std::string& address, const std::string& record) {
    return static_cast<char>(address.size()) + address + record;
  };
  Write("provider_record", "header-only", raw("provider:7001", "ferry-provider 1"));
  Write("provider_record", "version-2", raw("provider:7001", "ferry-provider 2\nweight=1\n"));
  Write("provider_record", "bad-values",
        raw("provider:7001", "ferry-provider 1\nweight=-1\nstart_time_ms=x\nmethods=a,,b\n"));
  Write("provider_record", "bad-address", raw("provider", "ferry-provider 1\n"));
}

}  // namespace

// HTTP as clients send it: one request, pipelined ones, chunked bodies with extensions and
// trailers, the gateway, admin pages, and a few that are refused.
void HttpSessionSeeds() {
  const std::string echo =
      "POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: localhost\r\n"
      "Content-Type: application/json\r\nContent-Length: 15\r\n\r\n"
      R"({"payload":"x"})";
  Write("http_session", "gateway-echo", echo);
  Write("http_session", "pipelined",
        echo + "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n" + echo +
            "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  Write("http_session", "chunked",
        "POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: localhost\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5;ext=1\r\n{\"pay\r\na\r\nload\":\"y\"}\r\n0\r\nTrailer: t\r\n\r\n");
  Write("http_session", "http10-keepalive",
        "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /ready HTTP/1.0\r\n\r\n");
  Write("http_session", "gzip-coding",
        "POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: localhost\r\n"
        "Transfer-Encoding: gzip\r\n\r\nxyz");
  Write("http_session", "bad-content-type",
        "POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: localhost\r\n"
        "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}");
  Write("http_session", "unknown-and-expect",
        "GET /nowhere?x=%zz HTTP/1.1\r\nHost: localhost\r\n\r\n"
        "POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: localhost\r\n"
        "Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
}

// The forwarded-for walk: trusted networks, peer, then header lines (forwarded_for_fuzzer.cc).
void ForwardedForSeeds() {
  Write("forwarded_for", "one-proxy", std::string("\x01\x00\x01", 3) + "203.0.113.5, 127.0.0.1\n");
  Write(
      "forwarded_for", "proxies-in-two-headers",
      std::string("\x03\x01") + "\x01" + "198.51.100.1, 10.0.0.2\n\x02ignored\n\x03 10.9.8.7 ,\n");
  Write("forwarded_for", "ipv6-and-mapped",
        std::string("\x0c\x03") + "\x01" + "2001:db8::1, fd00::9\n\x01::ffff:10.1.1.1\n");
  Write("forwarded_for", "malformed-entry",
        std::string("\x21\x05") + "\x01" + "198.51.100.7, bogus, 192.0.2.7\n");
}

void UserTokenSeeds() {
  Write("user_token", "u1",
        ferry::plugins::MakeUserToken("k1", "s", "alice", 1700000000, 1800000000));
  Write("user_token", "u2",
        ferry::plugins::MakeUserToken("k1", "s",
                                      {.user = "bob",
                                       .audience = "seckill",
                                       .token_id = "AAAAAAAAAAAAAAAA",
                                       .issued_unix_s = 1700000000,
                                       .expires_unix_s = 1700003600}));
  Write("user_token", "u3",
        ferry::plugins::MakeUserToken("k1", "s",
                                      {.user = "ops",
                                       .audience = "seckill",
                                       .token_id = "BBBBBBBBBBBBBBBB",
                                       .issued_unix_s = 1700000000,
                                       .expires_unix_s = 1700003600,
                                       .roles = {"auditor", "operator"}}));
  Write("user_token", "truncated", "u3:k1:ops:seckill:BBBB:operator:17000");
}

void AuthTokenSeeds() {
  const ferry::plugins::AuthRequest request{
      .service = "ferry.demo.EchoService", .method = "Echo", .body = "\x0a\x02hi"};
  Write("auth_token", "v4",
        ferry::plugins::MakeAuthToken("bench", "secret", request, "billing", 1700000000000,
                                      "AAAAAAAAAAAAAAAAAAAAAA"));
  ferry::plugins::AuthRequest budgeted = request;
  budgeted.framing.timeout_us = 250000;
  Write("auth_token", "v4-budget",
        ferry::plugins::MakeAuthToken("bench", "secret", budgeted, "", 1700000000000,
                                      "BBBBBBBBBBBBBBBB"));
  Write("auth_token", "v3", "v3:bench:1700000000000:CCCCCCCCCCCCCCCC:billing:c2lnbmF0dXJl");
  Write("auth_token", "v4-bad-nonce", "v4:bench:1700000000000:short:billing:0:AAAA");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus directory>\n", argv[0]);
    return 2;
  }
  root = argv[1];
  FrameDecoderSeeds();
  MetaSeeds();
  JsonSeeds();
  ProviderRecordSeeds();
  HttpSessionSeeds();
  ForwardedForSeeds();
  UserTokenSeeds();
  AuthTokenSeeds();
  return 0;
}
