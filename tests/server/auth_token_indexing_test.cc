// The server's half of auth token indexing (docs/protocol.md): its table alone, the table fed
// by the client's index, and requests that define and refer to tokens over a real connection.
#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "client/auth_token_index.h"
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

TEST(AuthTokenTableTest, ResolvesAReferenceToWhatWasDefined) {
  server::AuthTokenTable table;
  const server::AuthTokenTable::Token* token = nullptr;
  ASSERT_TRUE(table.Resolve(Defining("tok", 17), &token).ok());
  ASSERT_NE(token, nullptr);
  EXPECT_EQ(token->token, "tok");
  const uint64_t id = token->id;
  EXPECT_NE(id, 0u);

  ASSERT_TRUE(table.Resolve(Referring(17), &token).ok());
  ASSERT_NE(token, nullptr);
  EXPECT_EQ(token->token, "tok");
  EXPECT_EQ(token->id, id);

  // Defined again with the same bytes, as a client does before it knows the server resolves.
  ASSERT_TRUE(table.Resolve(Defining("tok", 17), &token).ok());
  EXPECT_EQ(token->id, id);
}

TEST(AuthTokenTableTest, AMetaWithoutAnIndexResolvesToNothing) {
  server::AuthTokenTable table;
  const server::AuthTokenTable::Token* token = nullptr;
  wire::RpcMeta meta;
  meta.set_auth_token("plain");
  ASSERT_TRUE(table.Resolve(meta, &token).ok());
  EXPECT_EQ(token, nullptr);
}

TEST(AuthTokenTableTest, RefusesAnIndexNeverDefinedOrSinceReplaced) {
  server::AuthTokenTable table;
  const server::AuthTokenTable::Token* token = nullptr;
  Status status = table.Resolve(Referring(17), &token);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("auth_token_index 17"), std::string::npos) << status;

  // 33 takes 17's slot: 17 is gone, and cannot resolve to 33's token.
  ASSERT_TRUE(table.Resolve(Defining("first", 17), &token).ok());
  const uint64_t first_id = token->id;
  ASSERT_TRUE(table.Resolve(Defining("second", 33), &token).ok());
  EXPECT_NE(token->id, first_id);
  EXPECT_EQ(table.Resolve(Referring(17), &token).code(), StatusCode::INVALID_ARGUMENT);
}

TEST(AuthTokenTableTest, RefusesToHoldATokenTooLongToIndex) {
  server::AuthTokenTable table;
  const server::AuthTokenTable::Token* token = nullptr;
  const std::string too_long(codec::kMaxIndexedAuthTokenBytes + 1, 't');
  const Status status = table.Resolve(Defining(too_long, 17), &token);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("too long to index"), std::string::npos) << status;
  EXPECT_EQ(table.Resolve(Referring(17), &token).code(), StatusCode::INVALID_ARGUMENT);
  // Sent whole without an index, it is simply the request's token.
  wire::RpcMeta plain;
  plain.set_auth_token(too_long);
  EXPECT_TRUE(table.Resolve(plain, &token).ok());
  EXPECT_EQ(token, nullptr);
}

TEST(AuthTokenTableTest, TokenIdsDifferAcrossTables) {
  server::AuthTokenTable a;
  server::AuthTokenTable b;
  const server::AuthTokenTable::Token* in_a = nullptr;
  const server::AuthTokenTable::Token* in_b = nullptr;
  ASSERT_TRUE(a.Resolve(Defining("tok", 17), &in_a).ok());
  ASSERT_TRUE(b.Resolve(Defining("tok", 17), &in_b).ok());
  EXPECT_NE(in_a->id, in_b->id);
}

// The client's mirror and the server's table, fed many more tokens than they have slots in a
// random order, from the first index on and across the wrap of indices: every request resolves
// to exactly the token its caller gave.
class AuthTokenMirrorTest : public ::testing::TestWithParam<uint64_t> {};

INSTANTIATE_TEST_SUITE_P(
    FirstGeneration, AuthTokenMirrorTest,
    ::testing::Values(0, client::AuthTokenIndex::kMaxIndex / client::AuthTokenIndex::kSlots - 100));

TEST_P(AuthTokenMirrorTest, FollowsTheClientIndexThroughAnyTokenSequence) {
  std::vector<std::string> tokens;
  for (int i = 0; i < 40; ++i)
    tokens.push_back("v2:" + std::to_string(1000 + i) + ":sig" + std::to_string(i * 7919));
  std::mt19937 random(12345);
  std::uniform_int_distribution<size_t> pick(0, tokens.size() - 1);
  client::AuthTokenIndex index(/*generation=*/GetParam());
  server::AuthTokenTable table;
  int referenced = 0;
  for (int call = 0; call < 5000; ++call) {
    const std::string& sent = tokens[pick(random)];
    const bool peer_resolves = call >= 10;  // the first answers are still on their way
    std::string fields;
    std::array<char, client::AuthTokenIndex::kPlaceholderSize> reference;
    if (index.Refer(sent, /*link=*/0, peer_resolves, reference.data())) {
      fields.assign(reference.data(), reference.size());
      ++referenced;
    } else {
      index.Define(sent, &fields);
    }
    wire::RpcMeta meta;
    ASSERT_TRUE(meta.ParseFromString(fields));
    const server::AuthTokenTable::Token* resolved = nullptr;
    ASSERT_TRUE(table.Resolve(meta, &resolved).ok()) << "call " << call;
    ASSERT_NE(resolved, nullptr);
    ASSERT_EQ(resolved->token, sent) << "call " << call;
  }
  EXPECT_GT(referenced, 0);
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

// The " token=... token_id=..." part of what the Context methods answer.
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
    EXPECT_EQ(TokenPart(*defined).rfind(" token=v2:1:sig token_id=", 0), 0u) << defined->value;

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
  EXPECT_EQ(TokenPart(*referred).rfind(" token=v2:1:sig ", 0), 0u) << referred->value;
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
