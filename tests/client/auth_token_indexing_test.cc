// The client's half of auth token indexing (docs/protocol.md): what it puts on the wire, seen
// by a fake server that records each request's meta.
#include <gtest/gtest.h>

#include <string>

#include "channel_test_util.h"
#include "client/auth_token_index.h"
#include "fake_server.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::testing {
namespace {

CallOptions WithToken(const std::string& token) {
  CallOptions options;
  options.auth_token = token;
  return options;
}

// Sends one call with `token` and returns the meta the server got.
wire::RpcMeta SendWith(Channel& channel, FakeServer& server, const std::string& token) {
  const EchoResult result = Echo(channel, "x", WithToken(token));
  EXPECT_TRUE(result.status.ok()) << result.status;
  return server.last_request_meta();
}

TEST(AuthTokenIndexingTest, SendsATokenOnceThenOnlyItsIndex) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));

  const wire::RpcMeta first = SendWith(*channel, server, "v2:1:token-a");
  EXPECT_EQ(first.auth_token(), "v2:1:token-a");
  EXPECT_NE(first.auth_token_index(), 0u);

  // The answer to the first call said the server speaks 1.1: from now on, the index alone.
  const wire::RpcMeta second = SendWith(*channel, server, "v2:1:token-a");
  EXPECT_EQ(second.auth_token(), "");
  EXPECT_EQ(second.auth_token_index(), first.auth_token_index());

  const wire::RpcMeta other = SendWith(*channel, server, "v2:2:token-b");
  EXPECT_EQ(other.auth_token(), "v2:2:token-b");
  EXPECT_NE(other.auth_token_index(), 0u);
  EXPECT_NE(other.auth_token_index(), first.auth_token_index());

  const wire::RpcMeta back = SendWith(*channel, server, "v2:1:token-a");
  EXPECT_EQ(back.auth_token(), "");
  EXPECT_EQ(back.auth_token_index(), first.auth_token_index());
}

TEST(AuthTokenIndexingTest, ACallWithoutATokenCarriesNoIndex) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  SendWith(*channel, server, "v2:1:token-a");
  const wire::RpcMeta plain = SendWith(*channel, server, "");
  EXPECT_EQ(plain.auth_token(), "");
  EXPECT_EQ(plain.auth_token_index(), 0u);
}

TEST(AuthTokenIndexingTest, AServerOfProtocol1Point0AlwaysGetsTheWholeToken) {
  FakeServer server(FakeServer::Mode::kEcho);
  server.AnswerAsVersionMinor(0);
  auto channel = MakeChannel(TestOptions(server.target()));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(SendWith(*channel, server, "v2:1:token-a").auth_token(), "v2:1:token-a") << i;
  }
}

TEST(AuthTokenIndexingTest, ANewConnectionDefinesItsTokensAgain) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  SendWith(*channel, server, "v2:1:token-a");
  ASSERT_EQ(SendWith(*channel, server, "v2:1:token-a").auth_token(), "");

  server.CloseConnections();
  // The first calls after the close may fail with the old connection; the one that gets
  // through is on the new connection, whose server holds nothing yet.
  ASSERT_TRUE(
      WaitUntil([&] { return Echo(*channel, "x", WithToken("v2:1:token-a")).status.ok(); }));
  EXPECT_EQ(server.connections_accepted(), 2u);
  const wire::RpcMeta meta = server.last_request_meta();
  EXPECT_EQ(meta.auth_token(), "v2:1:token-a");
  EXPECT_NE(meta.auth_token_index(), 0u);
}

// The index alone: a client that defines tokens without a server at all.
TEST(AuthTokenIndexTest, ReferencesOnlyWhatItDefinedOnTheSameLink) {
  client::AuthTokenIndex index;
  client::AuthTokenIndex::Reference reference;
  EXPECT_FALSE(index.Refer("tok", /*link=*/0, /*peer_resolves=*/true, &reference));
  std::string fields;
  index.Define("tok", &fields);
  wire::RpcMeta defined;
  ASSERT_TRUE(defined.ParseFromString(fields));
  EXPECT_EQ(defined.auth_token(), "tok");

  EXPECT_FALSE(index.Refer("tok", 0, /*peer_resolves=*/false, &reference));
  ASSERT_TRUE(index.Refer("tok", 0, true, &reference));
  wire::RpcMeta referred;
  ASSERT_TRUE(referred.ParseFromArray(reference.bytes.data(), static_cast<int>(reference.size)));
  EXPECT_EQ(referred.auth_token(), "");
  EXPECT_EQ(referred.auth_token_index(), defined.auth_token_index());

  EXPECT_FALSE(index.Refer("tok", /*link=*/1, true, &reference));
}

TEST(AuthTokenIndexTest, NeverIndexesATokenTooLongToIndex) {
  client::AuthTokenIndex index;
  const std::string token(codec::kMaxIndexedAuthTokenBytes + 1, 't');
  std::string fields;
  index.Define(token, &fields);
  wire::RpcMeta sent;
  ASSERT_TRUE(sent.ParseFromString(fields));
  EXPECT_EQ(sent.auth_token(), token);
  EXPECT_EQ(sent.auth_token_index(), 0u);
  client::AuthTokenIndex::Reference reference;
  EXPECT_FALSE(index.Refer(token, 0, /*peer_resolves=*/true, &reference));

  const std::string longest(codec::kMaxIndexedAuthTokenBytes, 't');
  fields.clear();
  index.Define(longest, &fields);
  ASSERT_TRUE(sent.ParseFromString(fields));
  EXPECT_NE(sent.auth_token_index(), 0u);
  EXPECT_TRUE(index.Refer(longest, 0, true, &reference));
}

}  // namespace
}  // namespace ferry::testing
