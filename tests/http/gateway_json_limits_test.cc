// The JSON codec's limits at the gateway: hostile bodies are answered 400 before the handler
// runs, whether the codec reads the request type itself or leaves it to protobuf's converter.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <string_view>

#include "ferry/framework/config.h"
#include "ferry/framework/server.h"
#include "gateway_limits.ferry.h"
#include "raw_http_client.h"

namespace ferry::http_test {
namespace {

class CountingLists final : public gateway_test::ListsBase {
 public:
  Status Count(ServerContext&, const gateway_test::Numbers& request,
               gateway_test::Numbers* response) override {
    ++calls;
    response->add_ids(request.ids_size());
    return Status::Ok();
  }
  Status CountStamped(ServerContext&, const gateway_test::Stamped& request,
                      gateway_test::Numbers* response) override {
    ++calls;
    response->add_ids(request.ids_size());
    return Status::Ok();
  }

  std::atomic<int> calls{0};
};

// `open` `depth` times, then `inner`, then `close` as many times.
std::string Nested(const std::string& open, const std::string& close, int depth,
                   const std::string& inner) {
  std::string json;
  for (int i = 0; i < depth; ++i) json += open;
  json += inner;
  for (int i = 0; i < depth; ++i) json += close;
  return json;
}

class GatewayJsonLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Config config;
    const Status parsed = ParseConfig("server:\n  listen: 127.0.0.1:0\n", "http.yaml", &config);
    ASSERT_TRUE(parsed.ok()) << parsed;
    server_.emplace(config.server);
    ASSERT_TRUE(server_->AddService(&lists_).ok());
    const Status started = server_->Start();
    ASSERT_TRUE(started.ok()) << started;
  }

  RawResponse Post(std::string_view method, const std::string& body) {
    RawHttpClient client(server_->port());
    EXPECT_TRUE(
        client.Send(Request("POST", "/ferry.gateway_test.Lists/" + std::string(method), body)));
    std::optional<RawResponse> response = client.Read();
    EXPECT_TRUE(response);
    return response.value_or(RawResponse{});
  }

  CountingLists lists_;
  std::optional<Server> server_;
};

TEST_F(GatewayJsonLimitsTest, FourMebibytesOfOpenArraysAre400AndTheHandlerNeverRuns) {
  // Unclosed, as an attacker would send it: the refusal comes at the 100th bracket.
  std::string body = R"({"ids":)" + std::string((4u << 20) - 1024, '[');
  for (const char* method : {"Count", "CountStamped"}) {
    SCOPED_TRACE(method);
    const RawResponse answer = Post(method, body);
    EXPECT_EQ(answer.status, 400);
    EXPECT_NE(answer.body.find(R"("code":"INVALID_ARGUMENT")"), std::string::npos) << answer.body;
    EXPECT_NE(answer.body.find("nested deeper than 100 objects and arrays"), std::string::npos)
        << answer.body;
  }
  EXPECT_EQ(lists_.calls, 0);
}

TEST_F(GatewayJsonLimitsTest, ObjectsAndArraysCountTogetherUpTo100) {
  // The root object and 99 arrays: 100 levels.
  for (const char* method : {"Count", "CountStamped"}) {
    SCOPED_TRACE(method);
    const RawResponse at_limit = Post(method, "{\"ids\":" + Nested("[", "]", 99, "7") + "}");
    EXPECT_EQ(at_limit.status, 200) << at_limit.body;
    EXPECT_EQ(at_limit.body, R"({"ids":["1"]})");
    const RawResponse beyond = Post(method, "{\"ids\":" + Nested("[", "]", 100, "7") + "}");
    EXPECT_EQ(beyond.status, 400) << beyond.body;
  }
  // Messages and lists mixed: 99 objects and an array are 100 levels, a second array is not.
  EXPECT_EQ(Post("Count", Nested(R"({"child":)", "}", 98, R"({"ids":[1]})")).status, 200);
  EXPECT_EQ(Post("Count", Nested(R"({"child":)", "}", 98, R"({"ids":[[1]]})")).status, 400);
  EXPECT_EQ(lists_.calls, 3);
}

TEST_F(GatewayJsonLimitsTest, AFieldGivenTwiceIs400NamingIt) {
  const RawResponse twice = Post("Count", R"({"child":{"ids":[1]},"child":{}})");
  EXPECT_EQ(twice.status, 400);
  EXPECT_NE(twice.body.find("child: the field is given twice"), std::string::npos) << twice.body;
  const RawResponse scalar_twice = Post("Count", R"({"note":"a","note":"b"})");
  EXPECT_EQ(scalar_twice.status, 400);
  EXPECT_NE(scalar_twice.body.find("note: the field is given twice"), std::string::npos)
      << scalar_twice.body;
  const RawResponse stamped = Post("CountStamped", R"({"ids":[1],"ids":[2]})");
  EXPECT_EQ(stamped.status, 400);
  EXPECT_NE(stamped.body.find("ids: the key is given twice"), std::string::npos) << stamped.body;
  EXPECT_EQ(lists_.calls, 0);
}

TEST_F(GatewayJsonLimitsTest, TextOnlyProtobufsLenientReaderTakesIs400) {
  // Bare keys, single quotes and trailing commas: protobuf 3.21 reads them, the gateway does not
  // hand them to it.
  for (const char* body : {"{ids:[1]}", "{'ids':[1]}", R"({"ids":[1,],})"}) {
    SCOPED_TRACE(body);
    for (const char* method : {"Count", "CountStamped"}) {
      const RawResponse answer = Post(method, body);
      EXPECT_EQ(answer.status, 400);
      EXPECT_NE(answer.body.find("invalid JSON at offset"), std::string::npos) << answer.body;
    }
  }
  EXPECT_EQ(lists_.calls, 0);
}

TEST_F(GatewayJsonLimitsTest, AControlCharacterInAKeyIsEscapedInTheError) {
  // The body's JSON escaping would hide a raw newline: the message itself holds `\n` as two
  // characters, which the body then writes as `\\n`.
  const RawResponse answer = Post("Count", R"({"\nFORGED":1})");
  EXPECT_EQ(answer.status, 400);
  EXPECT_NE(answer.body.find(R"(\\nFORGED: no such field)"), std::string::npos) << answer.body;
}

}  // namespace
}  // namespace ferry::http_test
