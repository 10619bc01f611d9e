// What a server still does for clients of protocol 1.1, which index their auth tokens
// (docs/protocol.md): its table alone, and requests that define and refer to tokens over a real
// connection, sent as such a client sends them.
#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ferry/rpc_meta.pb.h"
#include "frame_client.h"
#include "server/auth_token_table.h"
#include "test_service.h"

namespace ferry::test {
namespace {

wire::RpcMeta Defining(const std::string& token, uint64_t index) {
  wire::RpcMeta meta;
  meta.set_auth_token(token);
  meta.set_auth_token_index(index);
  return meta;
}

wire::RpcMeta Referring(uint64_t index) {
  wire::RpcMeta meta;
  meta.set_auth_token_index(index);
  return meta;
}

// Resolve()s `meta` and returns the token the request then carries; "<error>" if refused.
std::string Resolved(server::AuthTokenTable& table, wire::RpcMeta meta) {
  if (!table.Resolve(&meta).ok()) return "<error>";
  return meta.auth_token();
}

TEST(AuthTokenTableTest, ResolvesAReferenceToWhatWasDefined) {
  server::AuthTokenTable table;
  EXPECT_EQ(Resolved(table, Defining("tok", 17)), "tok");
  EXPECT_EQ(Resolved(table, Referring(17)), "tok");
  // Defined again with the same bytes, as a 1.1 client does before it knows the server resolves.
  EXPECT_EQ(Resolved(table, Defining("tok", 17)), "tok");
  EXPECT_EQ(Resolved(table, Referring(17)), "tok");
}

TEST(AuthTokenTableTest, AMetaWithoutAnIndexKeepsItsOwnToken) {
  server::AuthTokenTable table;
  wire::RpcMeta meta;
  meta.set_auth_token("plain");
  EXPECT_EQ(Resolved(table, meta), "plain");
}

TEST(AuthTokenTableTest, RefusesAnIndexNeverDefinedOrSinceReplaced) {
  server::AuthTokenTable table;
  wire::RpcMeta meta = Referring(17);
  const Status status = table.Resolve(&meta);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("auth_token_index 17"), std::string::npos) << status;

  // 33 takes 17's slot: 17 is gone, and cannot resolve to 33's token.
  EXPECT_EQ(Resolved(table, Defining("first", 17)), "first");
  EXPECT_EQ(Resolved(table, Defining("second", 33)), "second");
  EXPECT_EQ(Resolved(table, Referring(17)), "<error>");
  EXPECT_EQ(Resolved(table, Referring(33)), "second");
}

TEST(AuthTokenTableTest, RefusesToHoldATokenTooLongToIndex) {
  server::AuthTokenTable table;
  const std::string too_long(codec::kMaxIndexedAuthTokenBytes + 1, 't');
  wire::RpcMeta meta = Defining(too_long, 17);
  const Status status = table.Resolve(&meta);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("too long to index"), std::string::npos) << status;
  EXPECT_EQ(Resolved(table, Referring(17)), "<error>");
  // Sent whole without an index, it is simply the request's token.
  wire::RpcMeta plain;
  plain.set_auth_token(too_long);
  EXPECT_EQ(Resolved(table, plain), too_long);
}

constexpr std::string_view kService = TestService::kName;

// A request for `method` of the test service whose meta is `meta` plus the method's names.
bool Send(FrameClient& client, uint64_t id, std::string_view method, wire::RpcMeta meta) {
  meta.set_service(std::string(kService));
  meta.set_method(std::string(method));
  codec::FrameHeader header;
  header.request_id = id;
  return client.SendFrame(header, meta.SerializeAsString(),
                          google::protobuf::StringValue().SerializeAsString());
}

// The " token=..." part of what the Context methods answer.
std::string TokenPart(const Reply& reply) {
  const size_t at = reply.value.find(" token=");
  return at == std::string::npos ? "" : reply.value.substr(at);
}

TEST(AuthTokenIndexingServerTest, HandlersSeeTheTokenAReferenceStandsFor) {
  TestServer server;
  FrameClient client(server.port());
  for (const std::string_view method : {"InlineContext", "Context"}) {
    SCOPED_TRACE(method);
    ASSERT_TRUE(Send(client, 1, method, Defining("v2:1:sig", 17)));
    auto defined = client.ReadReply();
    ASSERT_TRUE(defined);
    ASSERT_EQ(defined->code, StatusCode::OK) << defined->error;
    EXPECT_EQ(TokenPart(*defined), " token=v2:1:sig") << defined->value;

    ASSERT_TRUE(Send(client, 2, method, Referring(17)));
    auto referred = client.ReadReply();
    ASSERT_TRUE(referred);
    ASSERT_EQ(referred->code, StatusCode::OK) << referred->error;
    EXPECT_EQ(TokenPart(*referred), TokenPart(*defined));
  }
  // An inline call without a token after indexed ones: its context holds no stale token.
  ASSERT_TRUE(Send(client, 3, "InlineContext", wire::RpcMeta()));
  auto plain = client.ReadReply();
  ASSERT_TRUE(plain);
  EXPECT_EQ(TokenPart(*plain), "");
}

TEST(AuthTokenIndexingServerTest, AnUnknownIndexIsAnsweredInvalidArgument) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(Send(client, 1, "Context", Referring(17)));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(reply->error.find("auth_token_index 17"), std::string::npos) << reply->error;
}

TEST(AuthTokenIndexingServerTest, ADefinitionHoldsEvenWhenItsRequestIsRejected) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(Send(client, 1, "NoSuchMethod", Defining("v2:1:sig", 17)));
  auto rejected = client.ReadReply();
  ASSERT_TRUE(rejected);
  EXPECT_EQ(rejected->code, StatusCode::UNIMPLEMENTED);
  ASSERT_TRUE(Send(client, 2, "Context", Referring(17)));
  auto referred = client.ReadReply();
  ASSERT_TRUE(referred);
  ASSERT_EQ(referred->code, StatusCode::OK) << referred->error;
  EXPECT_EQ(TokenPart(*referred), " token=v2:1:sig") << referred->value;
}

TEST(AuthTokenIndexingServerTest, IndicesBelongToTheirConnection) {
  TestServer server;
  FrameClient defining(server.port());
  ASSERT_TRUE(Send(defining, 1, "Context", Defining("v2:1:sig", 17)));
  ASSERT_TRUE(defining.ReadReply());
  FrameClient other(server.port());
  ASSERT_TRUE(Send(other, 1, "Context", Referring(17)));
  auto reply = other.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace ferry::test
