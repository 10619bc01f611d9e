#pragma once

// Shared by the short-link tests: the real servers of the redis+mariadb backend (one of each per
// test process), configs for both backends, an in-process provider (ShortLinkApp behind a
// ferry::Server) with a client proxy, tenants with keys, and a loopback HTTP client.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app_provider.h"
#include "service/shortlink_app.h"
#include "shared_servers.h"
#include "shortlink.ferry.h"
#include "temp_dir.h"

namespace ferry::shortlink::testing {

enum class Backend { kEmbedded, kRedisMariaDb };
std::string BackendName(const ::testing::TestParamInfo<Backend>& info);

// 128 bits: the least an admin token may have.
inline constexpr std::string_view kAdminToken = "5f0c2a9e8b7d4c3a1f6e0d9c8b7a6f5e";

using testsupport::SharedServers;

// A config for `backend` on a fresh database (an SQLite file in `dir`, or a new MariaDB
// database; Redis flushed), with the admin token set.
ShortLinkConfig ConfigFor(Backend backend, const std::filesystem::path& dir);

// ShortLinkApp served by an in-process ferry::Server on an ephemeral loopback port; several
// servers may share one app (one embedded database has one provider process).
class InProcessProvider : public testsupport::AppProvider<ShortLinkApp, ShortLinkServiceProxy> {
 public:
  // `filters`: the server's configured filters, run before the API-key check.
  void Start(const ShortLinkConfig& config, std::vector<FilterSpec> filters = {});
  // Another server in front of `app`, believing the X-Forwarded-For of `trusted_proxies`.
  void Serve(ShortLinkApp* app, std::vector<std::string> trusted_proxies = {});
};

std::unique_ptr<ShortLinkServiceProxy> NewProxy(uint16_t port);

CallOptions WithToken(std::string_view token);
// A new tenant and one API key of it (empty after a gtest failure).
std::string NewTenantKey(ShortLinkServiceProxy& proxy, const std::string& name,
                         int64_t* tenant_id = nullptr, int64_t* key_id = nullptr);

// A new link of `key`'s tenant for `url` (the code; empty after a gtest failure).
std::string NewLink(ShortLinkServiceProxy& proxy, const std::string& key,
                    const std::string& request_id, const std::string& url);

struct HttpAnswer {
  int status = 0;  // 0: no answer
  std::string location;
  std::string cache_control;
  std::string content_type;
  std::string head;  // the status line and headers
  std::string body;
};
// One request on a new connection to 127.0.0.1:port; `headers` are whole lines without CRLF.
HttpAnswer HttpCall(uint16_t port, const std::string& method, const std::string& path,
                    const std::vector<std::string>& headers = {}, const std::string& body = "");
inline HttpAnswer HttpGet(uint16_t port, const std::string& path,
                          const std::string& method = "GET") {
  return HttpCall(port, method, path);
}

int64_t WallMs();

using testsupport::TempDir;

}  // namespace ferry::shortlink::testing
