#include "redis_filters_fixture.h"

#include <hiredis.h>

#include "ferry/framework/channel.h"
#include "ferry/framework/config.h"
#include "ferry/storage/redis_reply.h"

namespace ferry::redis_filters::testing {
namespace {

ServerOptions OptionsWith(const std::string& filters_yaml, Status* status) {
  Config config;
  *status = ParseConfig("server:\n  listen: 127.0.0.1:0\n  filters: " + filters_yaml + "\n",
                        "test.yaml", &config);
  return config.server;
}

}  // namespace

void RedisFiltersTest::SetUp() {
  ASSERT_TRUE(redis_.Start());
  storage::RedisOptions options;
  options.host = redis_.host();
  options.port = redis_.port();
  options.pool_size = 1;
  pool_ = std::make_unique<storage::RedisConnectionPool>(options);
}

void RedisFiltersTest::TearDown() {
  for (auto& server : servers_) server->Stop();
  servers_.clear();
}

demo::EchoServiceProxy RedisFiltersTest::StartProvider(const std::string& filters_yaml) {
  Status parsed;
  ServerOptions options = OptionsWith(filters_yaml, &parsed);
  EXPECT_TRUE(parsed.ok()) << parsed;
  auto server = std::make_unique<Server>(std::move(options));
  EXPECT_TRUE(server->AddService(&echo_).ok());
  const Status started = server->Start();
  EXPECT_TRUE(started.ok()) << started;
  ClientOptions client;
  client.target = "127.0.0.1:" + std::to_string(server->port());
  servers_.push_back(std::move(server));
  std::shared_ptr<Channel> channel;
  const Status connected = NewChannel(client, &channel);
  EXPECT_TRUE(connected.ok()) << connected;
  return demo::EchoServiceProxy(std::move(channel));
}

Status RedisFiltersTest::StartStatus(const std::string& filters_yaml) {
  Status parsed;
  ServerOptions options = OptionsWith(filters_yaml, &parsed);
  if (!parsed.ok()) return parsed;
  Server server(std::move(options));
  Status status = server.Start();
  server.Stop();
  return status;
}

std::string RedisFiltersTest::Redis(const std::vector<std::string>& command) {
  storage::RedisReplyPtr reply;
  if (Status status = pool_->Run(command, &reply); !status.ok()) {
    return "FAILED:" + status.ToString();
  }
  if (reply->type == REDIS_REPLY_INTEGER) return std::to_string(reply->integer);
  return std::string(storage::ReplyText(reply.get()));
}

Status Echo(demo::EchoServiceProxy& proxy, const CallOptions& options) {
  demo::EchoRequest request;
  request.set_payload("x");
  return proxy.Echo(request, options).status();
}

}  // namespace ferry::redis_filters::testing
