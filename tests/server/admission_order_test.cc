// Cheap checks first: a request is refused from its meta before its body is decompressed or
// parsed, and decoded only once the call starts.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "ferry/codec/compressor.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/rpc_meta.pb.h"
#include "frame_client.h"
#include "test_service.h"

namespace ferry::test {
namespace {

constexpr std::string_view kService = TestService::kName;

// Refuses requests that carry no token, from the meta; counts what it saw.
class TokenRequired final : public ServerFilter {
 public:
  static inline std::atomic<int> admissions{0};
  static inline std::atomic<int> calls{0};

  void Configure(config::ConfigReader&) override {}
  Status OnAdmit(const ServerAdmission& request) override {
    admissions.fetch_add(1);
    if (request.context.auth_token().empty()) {
      return Status(StatusCode::UNAUTHENTICATED, "token required");
    }
    return Status::Ok();
  }
  Status OnCall(ServerCall&) override {
    calls.fetch_add(1);
    return Status::Ok();
  }
};

TestServer& ServerWithTheFilter() {
  static const bool registered = [] {
    ExtensionRegistry::Instance().Register<ServerFilter>(
        "test_token_required", [] { return std::make_shared<TokenRequired>(); });
    return true;
  }();
  static_cast<void>(registered);
  ServerOptions options;
  options.filters = {FilterSpec::FromYaml("test_token_required", "{}")};
  static TestServer server(options);
  return server;
}

// A request whose body is no protobuf message at all.
bool SendUndecodable(FrameClient& client, uint64_t id, const std::string& token, bool zstd) {
  wire::RpcMeta meta;
  meta.set_service(std::string(kService));
  meta.set_method("Echo");
  meta.set_auth_token(token);
  codec::FrameHeader header;
  header.request_id = id;
  if (zstd) header.compression = codec::compression_id::kZstd;
  return client.SendFrame(header, meta.SerializeAsString(), "\xff\xff\xff\xff not a message");
}

TEST(AdmissionOrderTest, ARequestRefusedFromItsMetaIsNeverDecoded) {
  TestServer& server = ServerWithTheFilter();
  FrameClient client(server.port());
  const int calls = TokenRequired::calls.load();
  // Without a token the refusal comes first: the body, which no decoder could read, is not
  // looked at, neither as zstd nor as protobuf.
  for (const bool zstd : {false, true}) {
    ASSERT_TRUE(SendUndecodable(client, 1, "", zstd));
    const auto refused = client.ReadReply();
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, StatusCode::UNAUTHENTICATED) << refused->error;
  }
  EXPECT_EQ(TokenRequired::calls.load(), calls);
  // Admitted, the same body is decoded, on the worker, and found wanting.
  for (const bool zstd : {false, true}) {
    ASSERT_TRUE(SendUndecodable(client, 2, "a token", zstd));
    const auto decoded = client.ReadReply();
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->code, StatusCode::INVALID_ARGUMENT) << decoded->error;
  }
  // OnCall, which sees the request message, never ran for a body that is none.
  EXPECT_EQ(TokenRequired::calls.load(), calls);
}

// Verifies nothing: names the caller after a token "caller:<name>", as an authenticating
// filter names the caller its check proved.
class CallerFromToken final : public ServerFilter {
 public:
  void Configure(config::ConfigReader&) override {}
  Status OnAdmit(const ServerAdmission& request) override {
    const std::string& token = request.context.auth_token();
    if (token.starts_with("caller:")) request.context.set_verified_caller(token.substr(7));
    return Status::Ok();
  }
  Status OnCall(ServerCall&) override { return Status::Ok(); }
};

// What the Context methods answer for a request with `token`.
std::optional<Reply> ContextOf(FrameClient& client, std::string_view method,
                               const std::string& token) {
  wire::RpcMeta meta;
  meta.set_service(std::string(kService));
  meta.set_method(std::string(method));
  meta.set_auth_token(token);
  codec::FrameHeader header;
  header.request_id = 1;
  if (!client.SendFrame(header, meta.SerializeAsString(), "")) return std::nullopt;
  return client.ReadReply();
}

// A connection's inline calls share one context: a caller one call's filter verified must not
// be the next call's.
TEST(AdmissionOrderTest, AVerifiedCallerReachesTheHandlerOfItsCallOnly) {
  ExtensionRegistry::Instance().Register<ServerFilter>(
      "test_caller_from_token", [] { return std::make_shared<CallerFromToken>(); });
  ServerOptions options;
  options.filters = {FilterSpec::FromYaml("test_caller_from_token", "{}")};
  TestServer server(options);
  FrameClient client(server.port());
  for (const std::string_view method : {"InlineContext", "Context"}) {
    SCOPED_TRACE(std::string(method));
    const auto alice = ContextOf(client, method, "caller:alice");
    ASSERT_TRUE(alice);
    EXPECT_NE(alice->value.find(" caller=alice"), std::string::npos) << alice->value;
    const auto nobody = ContextOf(client, method, "unverified");
    ASSERT_TRUE(nobody);
    EXPECT_EQ(nobody->value.find(" caller="), std::string::npos) << nobody->value;
  }
}

}  // namespace
}  // namespace ferry::test
