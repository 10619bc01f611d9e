// The client's half of auth token indexing (docs/protocol.md): what it puts on the wire, seen
// by a fake server that records each request's meta.
#include <gtest/gtest.h>

#include <array>
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
  std::array<char, client::AuthTokenIndex::kPlaceholderSize> reference =
      client::AuthTokenIndex::kPlaceholder;
  EXPECT_FALSE(index.Refer("tok", /*link=*/0, /*peer_resolves=*/true, reference.data()));
  std::string fields;
  index.Define("tok", &fields);
  wire::RpcMeta defined;
  ASSERT_TRUE(defined.ParseFromString(fields));
  EXPECT_EQ(defined.auth_token(), "tok");

  EXPECT_FALSE(index.Refer("tok", 0, /*peer_resolves=*/false, reference.data()));
  ASSERT_TRUE(index.Refer("tok", 0, true, reference.data()));
  wire::RpcMeta referred;
  ASSERT_TRUE(referred.ParseFromArray(reference.data(), static_cast<int>(reference.size())));
  EXPECT_EQ(referred.auth_token(), "");
  EXPECT_EQ(referred.auth_token_index(), defined.auth_token_index());

  EXPECT_FALSE(index.Refer("tok", /*link=*/1, true, reference.data()));
}

// Unreferenced, the placeholder a request is encoded with stands for no token at all.
TEST(AuthTokenIndexTest, ThePlaceholderIsAnIndexOfNoToken) {
  wire::RpcMeta meta;
  ASSERT_TRUE(meta.ParseFromArray(client::AuthTokenIndex::kPlaceholder.data(),
                                  static_cast<int>(client::AuthTokenIndex::kPlaceholderSize)));
  EXPECT_EQ(meta.auth_token_index(), 0u);
  EXPECT_EQ(meta.ByteSizeLong(), 0u);
}

// Indices stay small enough for the placeholder's padded varint: past the largest, they start
// over, and references keep naming the index their token was last defined under.
TEST(AuthTokenIndexTest, IndicesWrapWithinThePlaceholder) {
  using Index = client::AuthTokenIndex;
  Index index(/*generation=*/Index::kMaxIndex / Index::kSlots - 4);
  bool wrapped = false;
  uint64_t previous = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string token = "v2:" + std::to_string(1000 + i) + ":signature-" + std::to_string(i);
    std::string fields;
    index.Define(token, &fields);
    wire::RpcMeta defined;
    ASSERT_TRUE(defined.ParseFromString(fields));
    ASSERT_NE(defined.auth_token_index(), 0u);
    ASSERT_LE(defined.auth_token_index(), Index::kMaxIndex);
    if (defined.auth_token_index() < previous) wrapped = true;
    previous = defined.auth_token_index();
    std::array<char, Index::kPlaceholderSize> reference = Index::kPlaceholder;
    ASSERT_TRUE(index.Refer(token, /*link=*/0, /*peer_resolves=*/true, reference.data()));
    wire::RpcMeta referred;
    ASSERT_TRUE(referred.ParseFromArray(reference.data(), static_cast<int>(reference.size())));
    EXPECT_EQ(referred.auth_token_index(), defined.auth_token_index()) << "token " << i;
  }
  EXPECT_TRUE(wrapped);
  EXPECT_LT(previous, 64 * Index::kSlots);
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
  std::array<char, client::AuthTokenIndex::kPlaceholderSize> reference;
  EXPECT_FALSE(index.Refer(token, 0, /*peer_resolves=*/true, reference.data()));

  const std::string longest(codec::kMaxIndexedAuthTokenBytes, 't');
  fields.clear();
  index.Define(longest, &fields);
  ASSERT_TRUE(sent.ParseFromString(fields));
  EXPECT_NE(sent.auth_token_index(), 0u);
  EXPECT_TRUE(index.Refer(longest, 0, true, reference.data()));
}

}  // namespace
}  // namespace ferry::testing
