#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_channel.h"
#include "likes.ferry.h"

extern char** environ;

namespace ferry::codegen_test::likes {
namespace {

using ferry::testing::FakeChannel;
using ::testing::HasSubstr;

SetLikeRequest SetLikeOf(std::string request_id) {
  SetLikeRequest request;
  request.set_content_id(7);
  request.set_liked(true);
  request.set_request_id(std::move(request_id));
  return request;
}

// (ferry.idempotency_key) leaves the method's static flag alone: only the request decides.
TEST(IdempotencyKeySpecTest, ACallIsIdempotentExactlyWhenItsKeyIsSet) {
  const MethodSpec& spec = LikesMethods::SetLike;
  EXPECT_FALSE(spec.idempotent);
  EXPECT_TRUE(spec.IsIdempotent(SetLikeOf("req-1")));
  EXPECT_FALSE(spec.IsIdempotent(SetLikeOf("")));
}

TEST(IdempotencyKeySpecTest, ABytesKeyNamedLikeACppKeywordWorksToo) {
  ClearLikesRequest request;
  request.set_content_id(7);
  EXPECT_FALSE(LikesMethods::ClearLikes.IsIdempotent(request));
  request.set_default_(std::string("\0", 1));  // one byte, even a zero, is a key
  EXPECT_TRUE(LikesMethods::ClearLikes.IsIdempotent(request));
}

TEST(IdempotencyKeySpecTest, AMethodWithoutOptionsIsNeverIdempotent) {
  EXPECT_EQ(LikesMethods::CountLikes.has_idempotency_key, nullptr);
  EXPECT_FALSE(LikesMethods::CountLikes.IsIdempotent(SetLikeOf("req-1")));
}

// Every proxy form hands the channel the method's one spec (per-method state is found by it)
// and the request it decides by.
TEST(IdempotencyKeySpecTest, EveryProxyFormSendsTheOneSpecAndTheKeyedRequest) {
  auto channel = std::make_shared<FakeChannel>();
  SetLikeResponse reply;
  channel->SetReply(Status::Ok(), &reply);
  LikesProxy proxy(channel);
  EXPECT_TRUE(proxy.SetLike(SetLikeOf("blocking")).ok());
  EXPECT_TRUE(proxy.SetLikeAsync(SetLikeOf("")).get().ok());
  std::promise<Status> callback;
  proxy.SetLikeWithCallback(SetLikeOf("callback"), [&](Result<SetLikeResponse> result) {
    callback.set_value(result.status());
  });
  EXPECT_TRUE(callback.get_future().get().ok());

  ASSERT_EQ(channel->calls().size(), 3u);
  const bool expected[] = {true, false, true};
  for (size_t i = 0; i < 3; ++i) {
    const FakeChannel::RecordedCall& call = channel->calls()[i];
    EXPECT_EQ(call.method, &LikesMethods::SetLike) << i;
    EXPECT_EQ(call.method->IsIdempotent(*call.request), expected[i]) << i;
  }
}

// protoc run with the plugin on a .proto of its own, as ferry_add_proto runs it.
struct ProtocRun {
  int exit_code = -1;
  std::string errors;  // protoc's stderr
  std::string header;  // the generated likes.ferry.h, if any
};

// `method_options` goes into the body of SetLike.
ProtocRun RunProtoc(const std::string& method_options) {
  std::string dir_template = ::testing::TempDir() + "ferry_idempotency_key_XXXXXX";
  EXPECT_NE(mkdtemp(dir_template.data()), nullptr);
  const std::filesystem::path dir = dir_template;
  std::ofstream(dir / "likes.proto") << R"(syntax = "proto3";
package test;
import "ferry/options.proto";
message Request {
  uint64 content_id = 1;
  string request_id = 2;
  bytes token = 3;
  repeated string tags = 4;
}
message Response {}
service Likes {
  rpc SetLike(Request) returns (Response) {
)" << method_options << R"(
  }
}
)";
  std::vector<std::string> args = {PROTOC_PATH,
                                   "--plugin=protoc-gen-ferry=" PROTOC_GEN_FERRY_PATH,
                                   "--ferry_out=" + dir.string(),
                                   "-I",
                                   dir.string(),
                                   "-I",
                                   FERRY_PROTO_ROOT,
                                   (dir / "likes.proto").string()};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const std::string errors_path = (dir / "stderr").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ProtocRun run;
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  std::stringstream errors, header;
  errors << std::ifstream(errors_path).rdbuf();
  run.errors = errors.str();
  if (std::ifstream generated(dir / "likes.ferry.h"); generated) {
    header << generated.rdbuf();
    run.header = header.str();
  }
  std::filesystem::remove_all(dir);
  return run;
}

// The harness itself works: a valid key compiles, so the rejections below are the plugin's.
TEST(IdempotencyKeyValidationTest, AcceptsASingularStringOrBytesKey) {
  for (const char* key : {"request_id", "token"}) {
    const ProtocRun run =
        RunProtoc(std::string("option (ferry.idempotency_key) = \"") + key + "\";");
    EXPECT_EQ(run.exit_code, 0) << run.errors;
    EXPECT_THAT(run.header, HasSubstr(std::string(".") + key + "().empty()"));
  }
}

TEST(IdempotencyKeyValidationTest, RejectsANameThatIsNoFieldOfTheRequest) {
  const ProtocRun run = RunProtoc(R"(option (ferry.idempotency_key) = "requestid";)");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.errors, HasSubstr("test.Likes.SetLike"));
  EXPECT_THAT(run.errors, HasSubstr("\"requestid\""));
  EXPECT_THAT(run.errors, HasSubstr("no such field in test.Request"));
}

TEST(IdempotencyKeyValidationTest, RejectsAFieldThatIsNotAStringOrBytes) {
  const ProtocRun run = RunProtoc(R"(option (ferry.idempotency_key) = "content_id";)");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.errors, HasSubstr("test.Likes.SetLike"));
  EXPECT_THAT(run.errors, HasSubstr("test.Request.content_id is uint64"));
}

TEST(IdempotencyKeyValidationTest, RejectsARepeatedField) {
  const ProtocRun run = RunProtoc(R"(option (ferry.idempotency_key) = "tags";)");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.errors, HasSubstr("test.Likes.SetLike"));
  EXPECT_THAT(run.errors, HasSubstr("test.Request.tags is repeated string"));
}

TEST(IdempotencyKeyValidationTest, RejectsTheKeyOnAMethodMarkedIdempotent) {
  const ProtocRun run = RunProtoc(
      "option (ferry.idempotent) = true;\n"
      "option (ferry.idempotency_key) = \"request_id\";");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.errors, HasSubstr("test.Likes.SetLike"));
  EXPECT_THAT(run.errors, HasSubstr("\"request_id\""));
  EXPECT_THAT(run.errors, HasSubstr("(ferry.idempotent) = true"));
}

}  // namespace
}  // namespace ferry::codegen_test::likes
