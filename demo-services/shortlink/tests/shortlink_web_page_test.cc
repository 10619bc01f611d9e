// The web page in a browser: headless Chromium loads /links, creates a link through its form,
// follows the short link to a page of a local test origin, and reads the link's clicks back on
// the page's chart; lists, searches and pages links with their QR codes; takes a key from the
// address only when the person confirms it; runs under a CSP that blocks injected scripts.
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

// A provider, a tenant key and a headless Chromium that resolves s.test to the provider and
// origin.test to the landing server.
class ShortLinkWebPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string chromium = FERRY_CHROMIUM;
    ASSERT_TRUE(!chromium.ends_with("NOTFOUND") && ::access(chromium.c_str(), X_OK) == 0)
        << "chromium was not found when configuring; install Debian's chromium package";
    provider_.Start(ConfigFor(Backend::kEmbedded, dir_.path()));  // public_base_url http://s.test
    key_ = NewTenantKey(provider_.proxy(), "acme");
    ASSERT_FALSE(key_.empty());
    std::string error;
    ASSERT_TRUE(page_.Start(
        chromium, dir_.path(),
        {"--host-resolver-rules=MAP s.test:80 127.0.0.1:" + std::to_string(provider_.port()) +
         ", MAP origin.test:80 127.0.0.1:" + std::to_string(origin_.port())},
        &error))
        << error;
  }

  // A load of `url` (from about:blank: a new fragment alone would not reload the page).
  void Open(const std::string& url) {
    std::string error;
    ASSERT_TRUE(page_.Navigate("about:blank", &error)) << error;
    ASSERT_TRUE(page_.Navigate(url, &error)) << error;
    ASSERT_EQ(page_.WaitForString("document.readyState === 'complete' ? 'ready' : ''", 30s),
              "ready");
  }
  // Opens the page with `key` stored in the browser, as one confirmed earlier.
  void OpenWithStoredKey(const std::string& key) {
    Open("http://s.test/links");
    page_.Evaluate("localStorage.setItem('shortlinkKey', '" + key + "'); 'set'");
    Open("http://s.test/links");
  }
  // The expression's value as a string (it must be one, and not empty).
  std::string Text(const std::string& expression) { return page_.WaitForString(expression, 5s); }

  TempDir dir_;
  InProcessProvider provider_;
  std::string key_;
  LandingServer origin_;
  ChromiumPage page_;
};

TEST_F(ShortLinkWebPageTest, CreateFollowAndReadTheClicksInABrowser) {
  Open("http://s.test/links#key=" + key_);
  Text("document.getElementById('key-accept').click(); 'accepted'");
  ASSERT_EQ(Text("document.getElementById('key').value === '" + key_ + "' ? 'key' : ''"), "key");

  Text(
      "document.getElementById('url').value = 'http://origin.test/landing?from=page';"
      "document.getElementById('create').click(); 'sent'");
  const std::string short_url = page_.WaitForString(
      "(document.getElementById('short') || {}).href || (document.getElementById('error')"
      ".textContent ? 'error: ' + document.getElementById('error').textContent : '')",
      20s);
  ASSERT_TRUE(short_url.starts_with("http://s.test/")) << short_url;
  const std::string code = short_url.substr(std::string("http://s.test/").size());

  Text("document.getElementById('short').click(); 'clicked'");
  EXPECT_EQ(page_.WaitForString("location.href.startsWith('http://origin.test/landing') && "
                                "document.title === 'landed' ? location.href : ''",
                                20s),
            "http://origin.test/landing?from=page");
  EXPECT_EQ(origin_.requests(), 1);

  std::string error;
  ASSERT_TRUE(page_.Navigate("http://s.test/links#code=" + code, &error)) << error;
  // The visit is counted off the redirect path: ask again until the chart shows it.
  const std::string shown = page_.WaitForString(
      "(() => { if (document.readyState !== 'complete') return '';"
      "  const g = document.querySelector('#chart g[data-pv]');"
      "  if (g && g.dataset.pv === '1') return g.dataset.day + ' ' + g.dataset.pv + '/' + "
      "    g.dataset.uv + ' ' + document.getElementById('totals').textContent + ' ' + "
      "    document.querySelectorAll('#chart rect').length;"
      "  document.getElementById('show').click(); return ''; })()",
      30s);
  EXPECT_EQ(shown, UtcDay(WallMs()) + " 1/1 PV 1 · UV 1 · bots 0 2");
}

// Key fixation: a link carrying someone else's key must not make this browser act as them.
TEST_F(ShortLinkWebPageTest, AKeyInTheAddressIsUsedOnlyOnceThePersonConfirmsIt) {
  const std::string other = NewTenantKey(provider_.proxy(), "mallory");
  OpenWithStoredKey(key_);
  Open("http://s.test/links#key=" + other + "&code=abc");
  EXPECT_EQ(Text("document.getElementById('key-offer').hidden ? 'hidden' : 'offered'"), "offered");
  EXPECT_EQ(Text("localStorage.getItem('shortlinkKey') === '" + key_ + "' ? 'kept' : 'replaced'"),
            "kept");
  EXPECT_EQ(Text("document.getElementById('key').value === '" + key_ + "' ? 'kept' : 'replaced'"),
            "kept");
  EXPECT_EQ(Text("location.hash"), "#code=abc");  // the key is gone from the address
  Text("document.getElementById('key-reject').click(); 'rejected'");
  EXPECT_EQ(Text("localStorage.getItem('shortlinkKey') === '" + key_ + "' ? 'kept' : 'replaced'"),
            "kept");

  Open("http://s.test/links#key=" + other);
  Text("document.getElementById('key-accept').click(); 'accepted'");
  EXPECT_EQ(Text("localStorage.getItem('shortlinkKey') === '" + other + "' ? 'new' : 'old'"),
            "new");
}

TEST_F(ShortLinkWebPageTest, ThePageListsSearchesAndPagesLinksAndShowsTheirQrCodes) {
  for (int i = 0; i < 25; ++i) {
    CreateLinkRequest request;
    request.set_request_id("p" + std::to_string(i));
    request.set_long_url("https://shop.example/item/" + std::to_string(i));
    request.set_title((i % 5 == 0 ? "Winter sale " : "Item ") + std::to_string(i));
    ASSERT_TRUE(provider_.proxy().CreateLink(request, WithToken(key_)).ok());
    std::this_thread::sleep_for(2ms);  // distinct creation times: newest first is well defined
  }
  OpenWithStoredKey(key_);
  const std::string rows = "document.querySelectorAll('#links tr[data-code]').length";
  const std::string first_title =
      "document.querySelector('#links tr[data-code] td:nth-child(2)')"
      ".textContent";
  EXPECT_EQ(page_.WaitForString(rows + " === 20 ? " + first_title + " : ''", 20s), "Item 24");
  Text("document.getElementById('next').click(); 'next'");
  EXPECT_EQ(page_.WaitForString(rows + " === 5 ? " + first_title + " : ''", 20s), "Item 4");
  EXPECT_EQ(Text("document.getElementById('next').disabled ? 'last' : 'more'"), "last");
  Text("document.getElementById('prev').click(); 'prev'");
  EXPECT_EQ(page_.WaitForString(rows + " === 20 ? " + first_title + " : ''", 20s), "Item 24");

  Text(
      "document.getElementById('search').value = 'winter';"
      "document.getElementById('list').click(); 'search'");
  EXPECT_EQ(page_.WaitForString(rows + " === 5 ? " + first_title + " : ''", 20s), "Winter sale 20");

  // A link's Stats shows its QR code, loaded from /{code}/qr under the page's policy.
  const std::string code = Text("document.querySelector('#links tr[data-code]').dataset.code");
  Text("document.querySelector('#links tr[data-code] button.stats').click(); 'stats'");
  EXPECT_EQ(page_.WaitForString("(() => { const qr = document.getElementById('qr');"
                                "  return qr.complete && qr.naturalWidth > 0 ? "
                                "    new URL(qr.src).pathname : ''; })()",
                                20s),
            "/" + code + "/qr");
  EXPECT_EQ(page_.WaitForString("document.querySelector('#chart svg') ? 'chart' : ''", 20s),
            "chart");
}

TEST_F(ShortLinkWebPageTest, ThePageIsServedUnderAStrictPolicyThatStopsInjectedScripts) {
  OpenWithStoredKey(key_);
  page_.Evaluate(
      "window.headers = ''; fetch('/links').then((r) => { window.headers = ["
      "r.headers.get('content-security-policy'), r.headers.get('x-content-type-options'),"
      "r.headers.get('referrer-policy'), r.headers.get('x-frame-options')].join(' | '); }); 'f'");
  const std::string headers = page_.WaitForString("window.headers", 20s);
  EXPECT_NE(headers.find("default-src 'none'"), std::string::npos) << headers;
  EXPECT_NE(headers.find("script-src 'sha256-"), std::string::npos) << headers;
  EXPECT_NE(headers.find("frame-ancestors 'none'"), std::string::npos) << headers;
  EXPECT_EQ(headers.find("unsafe-inline"), std::string::npos) << headers;
  EXPECT_NE(headers.find("| nosniff | no-referrer | DENY"), std::string::npos) << headers;

  // A script an attacker got into the page (an injected element, an inline handler) is not run.
  Text(
      "const s = document.createElement('script'); s.textContent = 'window.injected = 1';"
      "document.body.append(s);"
      "const i = document.createElement('img'); i.setAttribute('onerror', 'window.injected = 2');"
      "i.addEventListener('error', () => { window.imageFailed = 'failed'; });"
      "i.src = '/robots.txt'; document.body.append(i); 'injected'");
  // The page's own script ran (the listing filled in): the policy lets it and only it.
  EXPECT_EQ(
      page_.WaitForString("document.querySelectorAll('#links tr').length > 0 ? 'listed' : ''", 20s),
      "listed");
  // The image's error event came: its inline handler, registered first, would have run by now.
  EXPECT_EQ(page_.WaitForString("window.imageFailed || ''", 20s), "failed");
  EXPECT_EQ(Text("String(window.injected)"), "undefined");
}

}  // namespace
}  // namespace ferry::shortlink::testing
