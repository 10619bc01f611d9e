// The web page in a browser: headless Chromium loads /links, creates a link through its form,
// follows the short link to a page of a local test origin, and reads the link's clicks back on
// the page's chart.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "chromium_pipe.h"
#include "shortlink_test_support.h"

namespace ferry::shortlink::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kLanded =
    "<!doctype html><html><head><title>landed</title></head><body>landed</body></html>";

// The test origin: answers every request with kLanded and counts them.
class LandingServer {
 public:
  LandingServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(address);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&address), size);
    ::listen(fd_, 16);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~LandingServer() {
    stopping_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  int requests() const { return requests_.load(); }

 private:
  void Serve() {
    while (!stopping_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(c, buffer, sizeof(buffer), 0);
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
      }
      if (request.starts_with("GET /landing")) ++requests_;
      const std::string answer =
          "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\nContent-Length: " +
          std::to_string(kLanded.size()) + "\r\n\r\n" + std::string(kLanded);
      ::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(c);
    }
  }

  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

TEST(ShortLinkWebPageTest, CreateFollowAndReadTheClicksInABrowser) {
  const std::string chromium = FERRY_CHROMIUM;
  ASSERT_TRUE(!chromium.ends_with("NOTFOUND") && ::access(chromium.c_str(), X_OK) == 0)
      << "chromium was not found when configuring; install Debian's chromium package";
  TempDir dir;
  InProcessProvider provider;
  provider.Start(ConfigFor(Backend::kEmbedded, dir.path()));  // public_base_url http://s.test
  const std::string key = NewTenantKey(provider.proxy(), "acme");
  LandingServer origin;

  // s.test is the service, origin.test the links' target, both on loopback ports.
  ChromiumPage page;
  std::string error;
  ASSERT_TRUE(page.Start(
      chromium, dir.path(),
      {"--host-resolver-rules=MAP s.test:80 127.0.0.1:" + std::to_string(provider.port()) +
       ", MAP origin.test:80 127.0.0.1:" + std::to_string(origin.port())},
      &error))
      << error;
  ASSERT_TRUE(page.Navigate("http://s.test/links#key=" + key, &error)) << error;
  ASSERT_EQ(page.WaitForString("document.readyState === 'complete' && "
                               "document.getElementById('key').value.startsWith('slk_') ? "
                               "'ready' : ''",
                               30s),
            "ready");

  page.Evaluate(
      "document.getElementById('url').value = 'http://origin.test/landing?from=page';"
      "document.getElementById('create').click(); 'sent'");
  const std::string short_url = page.WaitForString(
      "(document.getElementById('short') || {}).href || (document.getElementById('error')"
      ".textContent ? 'error: ' + document.getElementById('error').textContent : '')",
      20s);
  ASSERT_TRUE(short_url.starts_with("http://s.test/")) << short_url;
  const std::string code = short_url.substr(std::string("http://s.test/").size());

  page.Evaluate("document.getElementById('short').click(); 'clicked'");
  EXPECT_EQ(page.WaitForString("location.href.startsWith('http://origin.test/landing') && "
                               "document.title === 'landed' ? location.href : ''",
                               20s),
            "http://origin.test/landing?from=page");
  EXPECT_EQ(origin.requests(), 1);

  ASSERT_TRUE(page.Navigate("http://s.test/links#code=" + code, &error)) << error;
  // The visit is counted off the redirect path: ask again until the chart shows it.
  const std::string shown = page.WaitForString(
      "(() => { if (document.readyState !== 'complete') return '';"
      "  const g = document.querySelector('#chart g[data-pv]');"
      "  if (g && g.dataset.pv === '1') return g.dataset.day + ' ' + g.dataset.pv + '/' + "
      "    g.dataset.uv + ' ' + document.getElementById('totals').textContent + ' ' + "
      "    document.querySelectorAll('#chart rect').length;"
      "  document.getElementById('show').click(); return ''; })()",
      30s);
  EXPECT_EQ(shown, UtcDay(WallMs()) + " 1/1 PV 1 · UV 1 · bots 0 2");
}

}  // namespace
}  // namespace ferry::shortlink::testing
