#include "shortlink_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <sstream>
#include <vector>

#include "ferry/framework/metrics.h"
#include "ferry/framework/metrics/text_format.h"
#include "ferry/framework/server.h"
#include "http_client.h"
#include "in_process_provider.h"
#include "service/shortlink_app.h"

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kAdminToken = "b3e1c9a07d5f4e2b8a6c0d1e9f7a5b3c";

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

// /metrics as shortlink-server's App serves it (the bench reads the database query counter).
class MetricsPage final : public Service {
 public:
  std::string_view full_name() const override { return "test.MetricsPage"; }
  std::span<const Method> methods() const override { return {}; }
  std::vector<HttpRoute> http_routes() override {
    return {{.method = "GET",
             .pattern = "/metrics",
             .handler = [](const HttpRequest&, HttpReply reply) {
               HttpResponse response;
               response.body = metrics::RenderText(metrics::Metrics());
               reply(std::move(response));
             }}};
  }
};

// shortlink-server's app on the embedded backend behind an in-process server, with a tenant key.
class Provider {
 public:
  explicit Provider(int64_t stats_interval_ms)
      : dir_("shortlink-" + std::to_string(stats_interval_ms)),
        app_(CreateApp(dir_, stats_interval_ms)),
        server_(Services(), ServerOptions{}, [this](Server& server) {
          EXPECT_TRUE(server.AddFilter("shortlink_api_key", app_->api_key_filter()).ok());
        }) {
    HttpConnection http("127.0.0.1", port());
    const std::string admin = "Authorization: Bearer " + std::string(kAdminToken);
    const std::string json = "Content-Type: application/json";
    const HttpResult tenant = http.Call("POST", "/ferry.shortlink.ShortLinkService/CreateTenant",
                                        {admin, json}, R"({"name":"bench"})");
    EXPECT_EQ(tenant.status, 200) << tenant.body;
    const HttpResult key = http.Call("POST", "/ferry.shortlink.ShortLinkService/IssueApiKey",
                                     {admin, json}, R"({"tenantId":1})");
    const size_t at = key.body.find("slk_");
    EXPECT_NE(at, std::string::npos) << key.body;
    if (at != std::string::npos) key_ = key.body.substr(at, 68);
  }
  ~Provider() {
    server_.Stop();
    app_->Stop();
  }
  uint16_t port() const { return server_.port(); }
  const std::string& key() const { return key_; }

 private:
  static std::unique_ptr<shortlink::ShortLinkApp> CreateApp(const ScratchDir& dir,
                                                            int64_t stats_interval_ms) {
    shortlink::ShortLinkConfig config;
    config.sqlite_path = dir.File("shortlink.db");
    config.admin_token_sha256 = Sha256Hex(kAdminToken);
    config.public_base_url = "http://s.test";
    config.not_found_per_minute = 0;  // the bench sends unknown codes on purpose
    config.stats_interval_ms = stats_interval_ms;
    std::unique_ptr<shortlink::ShortLinkApp> app;
    const Status created = shortlink::ShortLinkApp::Create(config, &app);
    EXPECT_TRUE(created.ok()) << created;
    return app;
  }
  // The app's services and /metrics.
  std::vector<Service*> Services() {
    std::vector<Service*> services(app_->services().begin(), app_->services().end());
    services.push_back(&metrics_page_);
    return services;
  }

  const ScratchDir dir_;
  MetricsPage metrics_page_;
  std::unique_ptr<shortlink::ShortLinkApp> app_;
  InProcessProvider server_;
  std::string key_;
};

ShortLinkBenchOptions Small(const Provider& provider) {
  ShortLinkBenchOptions options;
  options.port = provider.port();
  options.api_key = provider.key();
  options.links = 50;
  options.requests = 3000;
  options.conns = 4;
  options.unknown_probe = 1000;
  options.settle_timeout_s = 30;
  return options;
}

TEST(FerryBenchShortLinkTest, DrivesTheMixAndFindsPvEqualTo302sWithFreeUnknownCodes) {
  Provider provider(20);
  std::ostringstream out, err;
  ShortLinkBenchOutcome outcome;
  EXPECT_EQ(RunShortLinkBench(Small(provider), out, err, &outcome), 0) << out.str() << err.str();
  EXPECT_TRUE(outcome.passed);
  EXPECT_EQ(outcome.found + outcome.not_found, 3000u);
  EXPECT_GT(outcome.not_found, 0u);  // the unknown share
  EXPECT_EQ(outcome.pv, static_cast<int64_t>(outcome.found));
  EXPECT_GE(outcome.db_queries_per_1k_unknown, 0);
  EXPECT_LT(outcome.db_queries_per_1k_unknown, 10);
  EXPECT_THAT(out.str(), HasSubstr("requests,"));  // a progress line
  EXPECT_THAT(LastLine(out.str()), StartsWith("RESULT rps="));
  EXPECT_THAT(LastLine(out.str()), HasSubstr(" pv_matches=1 "));
}

// A provider whose statistics stop after their first pass: the check must see the PV missing.
TEST(FerryBenchShortLinkTest, FailsWhenPvDoesNotReachThe302s) {
  Provider provider(600'000);
  ShortLinkBenchOptions options = Small(provider);
  options.settle_timeout_s = 1;
  std::ostringstream out, err;
  ShortLinkBenchOutcome outcome;
  EXPECT_EQ(RunShortLinkBench(options, out, err, &outcome), 1) << out.str();
  EXPECT_FALSE(outcome.passed);
  EXPECT_THAT(LastLine(out.str()), HasSubstr(" pv_matches=0 "));
}

}  // namespace
}  // namespace ferry::bench
