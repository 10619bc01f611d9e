#include <chrono>

#include "echo_fixture.h"

namespace ferry::e2e {
namespace {

// Serializer and compression are chosen per client (and per server for replies) and recorded
// in each frame header, so every combination must interoperate.
struct WireCase {
  std::string serializer;
  std::string client_compression;
  std::string server_compression;
};

class WireOptionsTest : public EchoFixture, public ::testing::WithParamInterface<WireCase> {};

TEST_P(WireOptionsTest, PayloadsRoundTrip) {
  const WireCase& c = GetParam();
  StartServer(ServerOptions{.compression = c.server_compression, .compress_threshold = 64});
  // The 1 MiB JSON case takes seconds under the sanitizers on a busy 2-core machine; this test
  // is about bytes surviving every combination, not about time.
  auto proxy = NewProxy(ClientOptions{.default_timeout = std::chrono::seconds(30),
                                      .serializer = c.serializer,
                                      .compression = c.client_compression,
                                      .compress_threshold = 64});
  for (size_t size : {0, 16, 63, 64, 4096, 1 << 20}) {
    std::string payload(size, '\0');
    for (size_t i = 0; i < size; ++i) payload[i] = static_cast<char>((i * 131) % 251);
    auto r = proxy.Echo(MakeEcho(payload));
    ASSERT_TRUE(r.ok()) << r.status() << " size " << size;
    EXPECT_EQ(r->payload(), payload) << "size " << size;
    auto d = proxy.Delay(MakeDelay(0, payload));
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->payload(), payload);
  }
}

INSTANTIATE_TEST_SUITE_P(AllCombinations, WireOptionsTest,
                         ::testing::Values(WireCase{"protobuf", "none", "none"},
                                           WireCase{"protobuf", "zstd", "zstd"},
                                           WireCase{"json", "none", "none"},
                                           WireCase{"json", "zstd", "none"},
                                           WireCase{"protobuf", "none", "zstd"}),
                         [](const auto& info) {
                           return info.param.serializer + "_" + info.param.client_compression +
                                  "_" + info.param.server_compression;
                         });

TEST_F(EchoFixture, UnknownSerializerNameIsRejectedWhenTheChannelIsMade) {
  StartServer();
  std::shared_ptr<Channel> channel;
  Status s = NewChannel(ClientOptions{.target = "127.0.0.1:1", .serializer = "xml"}, &channel);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("xml"), std::string::npos) << s;
  s = NewChannel(ClientOptions{.target = "no-port-here"}, &channel);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
}

}  // namespace
}  // namespace ferry::e2e
