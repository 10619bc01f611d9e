// An HTTP connection that closed while a request was being answered runs nothing more: the
// requests it had pipelined behind that one are dropped with it, whichever thread the answer
// comes from.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>

#include "eventually.h"
#include "raw_http_client.h"
#include "stats/framework_metrics.h"
#include "test_service.h"

namespace ferry::test {
namespace {

using namespace std::chrono_literals;

int64_t OpenHttpConnections() {
  return stats::Server().connections[stats::ServerMetrics::kHttp]->Value();
}

TEST(HttpClosedConnectionTest, AnAnswerOnTheIoThreadForAClosedConnectionRunsNoPipelinedRequest) {
  std::mutex mu;
  std::optional<HttpReply> parked;
  Counter parked_count;
  std::atomic<int> behind_ran{0};
  std::vector<HttpRoute> routes;
  routes.push_back({.method = "GET",
                    .pattern = "/park",
                    .handler =
                        [&](const HttpRequest&, HttpReply reply) {
                          {
                            std::lock_guard lock(mu);
                            parked.emplace(std::move(reply));
                          }
                          parked_count.Increment();
                        },
                    .on_io_thread = true});
  routes.push_back({.method = "GET",
                    .pattern = "/behind",
                    .handler =
                        [&](const HttpRequest&, HttpReply reply) {
                          ++behind_ran;
                          reply({.body = "ran"});
                        },
                    .on_io_thread = true});
  // Answers the parked request from the IO thread, the one the closed connection was on.
  routes.push_back({.method = "GET",
                    .pattern = "/release",
                    .handler =
                        [&](const HttpRequest&, HttpReply reply) {
                          std::optional<HttpReply> released;
                          {
                            std::lock_guard lock(mu);
                            if (parked) released.emplace(std::move(*parked));
                            parked.reset();
                          }
                          if (released) (*released)({.body = "late"});
                          reply({.body = "released"});
                        },
                    .on_io_thread = true});
  // The idle timeout closes the connection while its route has yet to answer: route handlers
  // are not calls the timeout waits for.
  TestServer server(ServerOptions{.io_threads = 1, .idle_timeout = 300ms}, std::move(routes));

  const int64_t open_before = OpenHttpConnections();
  http_test::RawHttpClient pipelining(server.port());
  ASSERT_TRUE(
      pipelining.Send(http_test::Request("GET", "/park") + http_test::Request("GET", "/behind")));
  ASSERT_TRUE(parked_count.WaitFor(1));
  EXPECT_TRUE(pipelining.WaitForClose());
  ASSERT_TRUE(testsupport::Eventually([&] { return OpenHttpConnections() == open_before; }));

  http_test::RawHttpClient releasing(server.port());
  ASSERT_TRUE(releasing.Send(http_test::Request("GET", "/release")));
  const auto answer = releasing.Read();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->body, "released");
  EXPECT_EQ(behind_ran.load(), 0) << "a request of a closed connection ran";
}

}  // namespace
}  // namespace ferry::test
