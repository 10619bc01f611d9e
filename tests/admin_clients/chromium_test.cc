// The status page as a browser renders it: headless Chromium loads /status from a real App (the
// echo service with a client of its own, pointed at a second process) and dumps the DOM it
// built. The tables must hold the calls made, the client's provider and its state, and the
// configuration.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bounded_command.h"
#include "echo.ferry.h"
#include "echo_calls.h"
#include "ferry/framework/channel.h"
#include "prometheus_server.h"
#include "ready_process.h"
#include "temp_dir.h"

namespace ferry::admin_clients_test {
namespace {

using namespace std::chrono_literals;
using testsupport::LoopbackHttp;
using testsupport::LoopbackHttpResult;

constexpr int kBinaryEchoes = 7;
constexpr int kGatewayEchoes = 5;
constexpr int kDelays = 3;
// A browser's first start on a busy machine takes seconds; a hung one is killed at this.
constexpr auto kChromiumBound = 90s;

std::string Unescape(std::string text) {
  static const std::vector<std::pair<std::string, std::string>> kEntities = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&nbsp;", " "}, {"&amp;", "&"}};
  for (const auto& [entity, character] : kEntities) {
    for (size_t at = text.find(entity); at != std::string::npos;
         at = text.find(entity, at + character.size())) {
      text.replace(at, entity.size(), character);
    }
  }
  return text;
}

// The markup between the start tag of the element with `id` and the first `end_tag` after it;
// "" when there is no such element. The page's tables and lists do not nest.
std::string Element(const std::string& dom, const std::string& id, const std::string& end_tag) {
  const size_t at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t start = dom.find('>', at);
  const size_t end = start == std::string::npos ? start : dom.find(end_tag, start);
  if (end == std::string::npos) return "";
  return dom.substr(start + 1, end - start - 1);
}

// The text of every <td> or <th> of one row, in order.
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  for (size_t at = row.find("<t"); at != std::string::npos; at = row.find("<t", at + 1)) {
    if (row.compare(at, 3, "<td") != 0 && row.compare(at, 3, "<th") != 0) continue;
    const std::string close = "</" + row.substr(at + 1, 2) + ">";
    const size_t start = row.find('>', at);
    const size_t end = start == std::string::npos ? start : row.find(close, start);
    if (end == std::string::npos) break;
    cells.push_back(Unescape(row.substr(start + 1, end - start - 1)));
    at = end;
  }
  return cells;
}

// A table's rows after its header row, each as column name (the header's text) to cell text.
std::vector<std::map<std::string, std::string>> Rows(const std::string& dom,
                                                     const std::string& id) {
  const std::string table = Element(dom, id, "</table>");
  std::vector<std::vector<std::string>> rows;
  for (size_t at = table.find("<tr"); at != std::string::npos; at = table.find("<tr", at + 1)) {
    const size_t end = table.find("</tr>", at);
    if (end == std::string::npos) break;
    rows.push_back(Cells(table.substr(at, end - at)));
  }
  std::vector<std::map<std::string, std::string>> named;
  if (rows.empty()) return named;
  const std::vector<std::string>& header = rows.front();
  for (size_t r = 1; r < rows.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < rows[r].size() && c < header.size(); ++c) row[header[c]] = rows[r][c];
    named.push_back(std::move(row));
  }
  return named;
}

// The first row whose `column` reads `value` (and, when given, `column2` reads `value2`).
const std::map<std::string, std::string>* FindRow(
    const std::vector<std::map<std::string, std::string>>& rows, const std::string& column,
    const std::string& value, const std::string& column2 = "", const std::string& value2 = "") {
  for (const auto& row : rows) {
    const auto first = row.find(column);
    if (first == row.end() || first->second != value) continue;
    if (!column2.empty()) {
      const auto second = row.find(column2);
      if (second == row.end() || second->second != value2) continue;
    }
    return &row;
  }
  return nullptr;
}

std::string Cell(const std::map<std::string, std::string>& row, const std::string& column) {
  const auto it = row.find(column);
  return it == row.end() ? "<no " + column + " column>" : it->second;
}

TEST(ChromiumTest, RendersTheCallsTheClientsProviderAndTheConfigOfAnApp) {
  const std::string chromium = FERRY_CHROMIUM;
  ASSERT_TRUE(!chromium.ends_with("NOTFOUND") && ::access(chromium.c_str(), X_OK) == 0)
      << "chromium was not found when configuring (" << chromium
      << "); install Debian's chromium package (scripts/lib/common.sh) and re-run cmake";
  testsupport::TempDir dir("ferry-admin-chromium-");
  ASSERT_FALSE(dir.path().empty());

  testsupport::ReadyProcess peer;
  ASSERT_TRUE(peer.Start({ECHO_SERVER_BINARY, "--config", ECHO_SERVER_CONFIG, "--port", "0"},
                         "echo-server"));
  const std::filesystem::path config = dir.path() / "echo-with-peer.yaml";
  std::ofstream(config) << "log: {level: warn}\n"
                        << "server:\n  listen: 127.0.0.1:0\n"
                        << "clients:\n  peer:\n    target: " << peer.address() << "\n";
  testsupport::ReadyProcess app;
  ASSERT_TRUE(app.Start({ECHO_WITH_PEER_BINARY, "--config", config.string()}, "echo-with-peer"));
  const uint16_t port = PortOf(app.address());

  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(ClientOptions{.target = app.address()}, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  ASSERT_NO_FATAL_FAILURE(MakeEchoCalls(proxy, port, kBinaryEchoes, kGatewayEchoes));
  for (int i = 0; i < kDelays; ++i) {
    demo::DelayRequest request;
    request.set_sleep_ms(1);
    request.set_payload("delay " + std::to_string(i));
    Result<demo::EchoResponse> reply = proxy.Delay(request);
    ASSERT_TRUE(reply.ok()) << "binary Delay " << i << ": " << reply.status();
  }

  // A profile of its own in the test's directory, and nothing that would reach beyond loopback.
  const std::filesystem::path dom_path = dir.path() / "status.html";
  const std::filesystem::path log_path = dir.path() / "chromium.log";
  const CommandResult browser = RunBounded(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
       "--disable-background-networking", "--disable-component-update", "--disable-sync",
       "--user-data-dir=" + (dir.path() / "profile").string(), "--dump-dom",
       "http://" + app.address() + "/status"},
      "", dom_path, log_path, kChromiumBound,
      // Its crash reports and caches would otherwise go under the real home directory.
      {"HOME=" + dir.path().string(), "XDG_CONFIG_HOME=" + (dir.path() / "config").string(),
       "XDG_CACHE_HOME=" + (dir.path() / "cache").string()});
  ASSERT_TRUE(browser.started) << browser.error;
  ASSERT_FALSE(browser.timed_out) << "chromium did not finish within " << kChromiumBound.count()
                                  << " s; its log:\n"
                                  << ReadFile(log_path);
  ASSERT_EQ(browser.exit_code, 0) << "chromium failed; its log:\n" << ReadFile(log_path);
  const std::string dom = ReadFile(dom_path);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "no document dumped:\n"
                                                    << dom << "\nchromium's log:\n"
                                                    << ReadFile(log_path);
  SCOPED_TRACE("the DOM:\n" + dom);

  EXPECT_EQ(Unescape(Element(dom, "ready", "</p>")), "ready");

  // The page's figures cover the last minute, sampled from the start on: every call so far.
  const auto methods = Rows(dom, "methods");
  const auto* echo = FindRow(methods, "service", "ferry.demo.EchoService", "method", "Echo");
  ASSERT_NE(echo, nullptr) << "no row for EchoService Echo";
  EXPECT_EQ(Cell(*echo, "calls"), std::to_string(kBinaryEchoes + kGatewayEchoes));
  EXPECT_EQ(Cell(*echo, "errors"), "0");
  const auto* delay = FindRow(methods, "service", "ferry.demo.EchoService", "method", "Delay");
  ASSERT_NE(delay, nullptr) << "no row for EchoService Delay";
  EXPECT_EQ(Cell(*delay, "calls"), std::to_string(kDelays));
  EXPECT_EQ(Cell(*delay, "errors"), "0");

  const auto clients = Rows(dom, "clients");
  const auto* client = FindRow(clients, "client", "peer");
  ASSERT_NE(client, nullptr) << "no row for client peer";
  EXPECT_EQ(Cell(*client, "target"), peer.address());
  EXPECT_EQ(Cell(*client, "provider"), peer.address());
  EXPECT_EQ(Cell(*client, "state"), "direct");
  EXPECT_EQ(Cell(*client, "in flight"), "0");

  const std::string shown_config = Unescape(Element(dom, "config", "</pre>"));
  EXPECT_NE(shown_config.find("peer:"), std::string::npos) << shown_config;
  EXPECT_NE(shown_config.find("target: " + peer.address()), std::string::npos) << shown_config;
  EXPECT_NE(Element(dom, "plugins", "</ul>").find("<li>none</li>"), std::string::npos);
  EXPECT_NE(dom.find("id=\"slow\""), std::string::npos);

  // The browser's requests left the port serving binary calls.
  demo::EchoRequest last;
  last.set_payload("after the browser");
  Result<demo::EchoResponse> reply = proxy.Echo(last);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "after the browser");
}

}  // namespace
}  // namespace ferry::admin_clients_test
