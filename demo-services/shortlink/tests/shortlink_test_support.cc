#include "shortlink_test_support.h"

#include <hiredis.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "loopback_socket.h"
#include "service/sha256_hex.h"
#include "shared_servers_backend.h"

namespace ferry::shortlink::testing {

namespace {

using namespace std::chrono_literals;

std::string HeaderValue(const std::string& head, const std::string& name) {
  std::string lower = head;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::string key = "\r\n" + name + ":";
  const size_t at = lower.find(key);
  if (at == std::string::npos) return {};
  size_t begin = at + key.size();
  while (begin < head.size() && head[begin] == ' ') ++begin;
  const size_t end = head.find("\r\n", begin);
  return head.substr(begin, end - begin);
}

}  // namespace

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kEmbedded ? "Embedded" : "RedisMariaDb";
}

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ShortLinkConfig ConfigFor(Backend backend, const std::filesystem::path& dir) {
  static std::atomic<int> counter{0};
  ShortLinkConfig config;
  config.admin_token_sha256 = Sha256Hex(kAdminToken);
  config.public_base_url = "http://s.test";
  config.cleanup_interval_ms = 0;   // the tests run it themselves
  config.not_found_per_minute = 0;  // every test client is 127.0.0.1; one test turns it on
  // Parallel test processes share two cores with Redis: a lookup's 100 ms can pass while Redis
  // is fine. The breaker's own test sets it back.
  config.read_redis_timeout_ms = 1000;
  config.bloom_check_interval_ms = 20;
  config.segment_step = 50;
  config.stats_interval_ms = 20;
  if (backend == Backend::kEmbedded) {
    config.backend = "embedded";
    config.sqlite_path = (dir / "shortlink.db").string();
    return config;
  }
  SharedServers::Start();
  EXPECT_TRUE(SharedServers::FlushRedis());
  storage::testing::UseSharedServers(
      "shortlink_" + std::to_string(::getpid()) + "_" + std::to_string(++counter), &config);
  config.mariadb_connections = 16;
  return config;
}

namespace {

// How every provider of these tests serves a ShortLinkApp: with its API-key check.
testsupport::LoopbackProviderOptions ProviderOptions(const ShortLinkApp& app) {
  return {.code_filters = {{"shortlink_api_key", app.api_key_filter()}}, .worker_threads = 16};
}

}  // namespace

void InProcessProvider::Start(const ShortLinkConfig& config, std::vector<FilterSpec> filters) {
  std::unique_ptr<ShortLinkApp> app;
  Status s = ShortLinkApp::Create(config, &app);
  ASSERT_TRUE(s.ok()) << s;
  testsupport::LoopbackProviderOptions options = ProviderOptions(*app);
  options.filters = std::move(filters);
  AppProvider::Serve(std::move(app), options, testsupport::LoopbackClientOptions(20s));
}

void InProcessProvider::Serve(ShortLinkApp* app, std::vector<std::string> trusted_proxies) {
  testsupport::LoopbackProviderOptions options = ProviderOptions(*app);
  options.trusted_proxies = std::move(trusted_proxies);
  AppProvider::Serve(app, std::move(options), testsupport::LoopbackClientOptions(20s));
}

std::unique_ptr<ShortLinkServiceProxy> NewProxy(uint16_t port) {
  auto channel = testsupport::LoopbackChannel(port, testsupport::LoopbackClientOptions(20s));
  return channel ? std::make_unique<ShortLinkServiceProxy>(channel) : nullptr;
}

CallOptions WithToken(std::string_view token) {
  CallOptions options;
  options.auth_token = std::string(token);
  return options;
}

std::string NewLink(ShortLinkServiceProxy& proxy, const std::string& key,
                    const std::string& request_id, const std::string& url) {
  CreateLinkRequest request;
  request.set_request_id(request_id);
  request.set_long_url(url);
  auto made = proxy.CreateLink(request, WithToken(key));
  EXPECT_TRUE(made.ok()) << made.status();
  return made.ok() ? made->code() : std::string();
}

std::string NewTenantKey(ShortLinkServiceProxy& proxy, const std::string& name, int64_t* tenant_id,
                         int64_t* key_id) {
  CreateTenantRequest tenant;
  tenant.set_name(name);
  auto created = proxy.CreateTenant(tenant, WithToken(kAdminToken));
  EXPECT_TRUE(created.ok()) << created.status();
  if (!created.ok()) return {};
  IssueApiKeyRequest issue;
  issue.set_tenant_id(created->tenant_id());
  auto key = proxy.IssueApiKey(issue, WithToken(kAdminToken));
  EXPECT_TRUE(key.ok()) << key.status();
  if (!key.ok()) return {};
  if (tenant_id != nullptr) *tenant_id = created->tenant_id();
  if (key_id != nullptr) *key_id = key->key_id();
  return key->api_key();
}

HttpAnswer HttpCall(uint16_t port, const std::string& method, const std::string& path,
                    const std::vector<std::string>& headers, const std::string& body) {
  HttpAnswer answer;
  const int fd = ferry::test::ConnectLoopback(port);
  if (fd < 0) return answer;
  const auto has = [&headers](std::string_view name) {
    return std::any_of(headers.begin(), headers.end(),
                       [name](const std::string& h) { return h.starts_with(name); });
  };
  std::string request =
      method + " " + path + " HTTP/1.1\r\n" + (has("Host:") ? "" : "Host: s.test\r\n") +
      "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  if (!has("User-Agent:")) request += "User-Agent: shortlink-test\r\n";
  for (const std::string& header : headers) request += header + "\r\n";
  request += "\r\n" + body;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return answer;
  }
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!text.starts_with("HTTP/1.1 ") || text.size() < 12) return answer;
  answer.status = std::atoi(text.substr(9, 3).c_str());
  const size_t head_end = text.find("\r\n\r\n");
  const std::string head = text.substr(0, head_end);
  answer.location = HeaderValue(head, "location");
  answer.cache_control = HeaderValue(head, "cache-control");
  answer.content_type = HeaderValue(head, "content-type");
  answer.head = head;
  if (head_end != std::string::npos) answer.body = text.substr(head_end + 4);
  return answer;
}

}  // namespace ferry::shortlink::testing
