#include "service/user_agent_class.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace ferry::shortlink {
namespace {

struct AgentCase {
  std::string what;
  std::string user_agent;
  std::string_view device;   // DeviceClassName
  std::string_view browser;  // BrowserFamilyName
};

// Agents as the browsers and clients send them (current versions unless named older).
const std::vector<AgentCase>& RealAgents() {
  static const std::vector<AgentCase> cases = {
      {"Chrome on Windows",
       "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Safari/537.36",
       "desktop", "chrome"},
      {"Chrome on macOS",
       "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Safari/537.36",
       "desktop", "chrome"},
      {"Chrome on Linux",
       "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Safari/537.36",
       "desktop", "chrome"},
      {"Chrome on an Android phone",
       "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Mobile Safari/537.36",
       "mobile", "chrome"},
      {"Chrome on an Android tablet",
       "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Safari/537.36",
       "tablet", "chrome"},
      {"Chrome on iPhone",
       "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
       "like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
       "mobile", "chrome"},
      {"Chrome OS",
       "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Safari/537.36",
       "desktop", "chrome"},
      {"Android WebView",
       "Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230901.001; wv) AppleWebKit/537.36 "
       "(KHTML, like Gecko) Version/4.0 Chrome/118.0.0.0 Mobile Safari/537.36",
       "mobile", "chrome"},
      {"Silk on a Kindle Fire",
       "Mozilla/5.0 (Linux; Android 9; KFMAWI) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Silk/128.1.1 like Chrome/128.0.6613.127 Safari/537.36",
       "tablet", "chrome"},
      {"Safari on iPhone",
       "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
       "like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
       "mobile", "safari"},
      {"Safari on iPad",
       "Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
       "Version/17.7 Mobile/15E148 Safari/604.1",
       "tablet", "safari"},
      {"Safari on iPod touch",
       "Mozilla/5.0 (iPod touch; CPU iPhone OS 15_8 like Mac OS X) AppleWebKit/605.1.15 "
       "(KHTML, like Gecko) Version/15.6.6 Mobile/15E148 Safari/604.1",
       "mobile", "safari"},
      {"Safari on macOS",
       "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like "
       "Gecko) Version/18.1 Safari/605.1.15",
       "desktop", "safari"},
      {"Facebook's in-app browser on iPhone",
       "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
       "like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/442.0.0.35.111;FBBV/553183071;"
       "FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.1.2;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]",
       "mobile", "safari"},
      {"Firefox on Linux", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
       "desktop", "firefox"},
      {"Firefox on Ubuntu",
       "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "desktop",
       "firefox"},
      {"Firefox on Windows",
       "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
       "desktop", "firefox"},
      {"Firefox on an Android phone",
       "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0", "mobile", "firefox"},
      {"Firefox on an Android tablet",
       "Mozilla/5.0 (Android 14; Tablet; rv:133.0) Gecko/133.0 Firefox/133.0", "tablet", "firefox"},
      {"Firefox on iPhone",
       "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
       "like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15",
       "mobile", "firefox"},
      {"Edge on Windows",
       "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
       "desktop", "edge"},
      {"Edge on Android",
       "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.0.0",
       "mobile", "edge"},
      {"Edge on iPhone",
       "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
       "like Gecko) Version/17.0 EdgiOS/131.2903.68 Mobile/15E148 Safari/605.1.15",
       "mobile", "edge"},
      {"EdgeHTML Edge 18",
       "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/70.0.3538.102 Safari/537.36 Edge/18.19041",
       "desktop", "edge"},
      {"EdgeHTML Edge on Windows Phone 10",
       "Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) AppleWebKit/537.36 "
       "(KHTML, like Gecko) Chrome/52.0.2743.116 Mobile Safari/537.36 Edge/15.15063",
       "mobile", "edge"},
      {"Opera on Windows",
       "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
       "desktop", "opera"},
      {"Opera on Android",
       "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/130.0.0.0 Mobile Safari/537.36 OPR/86.0.0.0",
       "mobile", "opera"},
      {"Presto Opera 12", "Opera/9.80 (Windows NT 6.1; WOW64) Presto/2.12.388 Version/12.18",
       "desktop", "opera"},
      {"Opera Mini on Symbian",
       "Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) "
       "Presto/2.5.25 Version/10.54",
       "mobile", "opera"},
      {"Samsung Internet on a phone",
       "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like "
       "Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
       "mobile", "samsung"},
      {"Samsung Internet on a tablet",
       "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) "
       "SamsungBrowser/23.0 Chrome/115.0.0.0 Safari/537.36",
       "tablet", "samsung"},
      {"IE11", "Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko", "desktop",
       "ie"},
      {"IE9", "Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)", "desktop", "ie"},
      {"IE8 on a Windows 7 touch PC",
       "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0; SLCC2; .NET CLR "
       "2.0.50727; Media Center PC 6.0; Tablet PC 2.0)",
       "desktop", "ie"},
      {"IE Mobile on Windows Phone 8.1",
       "Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; "
       "IEMobile/11.0; NOKIA; Lumia 635) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, "
       "like Gecko) Mobile Safari/537",
       "mobile", "ie"},
      {"Android's pre-Chrome browser",
       "Mozilla/5.0 (Linux; U; Android 4.0.3; ko-kr; LG-L160L Build/IML74K) AppleWebKit/534.30 "
       "(KHTML, like Gecko) Version/4.0 Mobile Safari/534.30",
       "mobile", "other"},
      {"Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
       "bot", "other"},
      {"Googlebot smartphone, which borrows Chrome's tokens",
       "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, "
       "like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; "
       "+http://www.google.com/bot.html)",
       "bot", "other"},
      {"Slackbot", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "bot", "other"},
      {"Facebook's preview fetcher",
       "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "bot", "other"},
      {"curl", "curl/8.5.0", "bot", "other"},
      {"Wget", "Wget/1.21.3", "bot", "other"},
      {"python-requests", "python-requests/2.31.0", "bot", "other"},
      {"empty", "", "other", "other"},
      {"garbage", "hello world", "other", "other"},
      {"a bare Mozilla/5.0", "Mozilla/5.0", "other", "other"},
      {"markup", "<script>alert(1)</script>", "other", "other"},
      {"control and high bytes", std::string("\x01\xff\x00\x7f", 4), "other", "other"},
      {"tokens in the wrong case",
       "mozilla/5.0 (windows nt 10.0; win64; x64) applewebkit/537.36 chrome/131.0.0.0 "
       "safari/537.36",
       "other", "other"},
  };
  return cases;
}

TEST(UserAgentClassTest, ClassifiesRealAgents) {
  ASSERT_GE(RealAgents().size(), 20u);
  for (const AgentCase& c : RealAgents()) {
    SCOPED_TRACE(c.what + ": \"" + c.user_agent + "\"");
    const UserAgentClass got = ClassifyUserAgent(c.user_agent);
    EXPECT_EQ(DeviceClassName(got.device), c.device);
    EXPECT_EQ(BrowserFamilyName(got.browser), c.browser);
  }
}

TEST(UserAgentClassTest, NamesEveryClassAndFamily) {
  EXPECT_EQ(DeviceClassName(DeviceClass::kDesktop), "desktop");
  EXPECT_EQ(DeviceClassName(DeviceClass::kMobile), "mobile");
  EXPECT_EQ(DeviceClassName(DeviceClass::kTablet), "tablet");
  EXPECT_EQ(DeviceClassName(DeviceClass::kBot), "bot");
  EXPECT_EQ(DeviceClassName(DeviceClass::kOther), "other");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kChrome), "chrome");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kFirefox), "firefox");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kSafari), "safari");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kEdge), "edge");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kOpera), "opera");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kSamsungInternet), "samsung");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kInternetExplorer), "ie");
  EXPECT_EQ(BrowserFamilyName(BrowserFamily::kOther), "other");
}

// A 1 MiB header of repeated tokens is classified by its first 512 bytes: what follows them,
// here tokens that would make it Edge on an iPhone and a bot, is not read.
TEST(UserAgentClassTest, HugeAgentIsClassifiedByItsFirst512Bytes) {
  std::string ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) ";
  while (ua.size() < (1u << 20)) ua += "Chrome/131.0.0.0 Safari/537.36 ";
  ua += "(iPhone; compatible; Googlebot/2.1) Edg/131.0.0.0";
  const UserAgentClass got = ClassifyUserAgent(ua);
  EXPECT_EQ(DeviceClassName(got.device), "desktop");
  EXPECT_EQ(BrowserFamilyName(got.browser), "chrome");

  const UserAgentClass filler = ClassifyUserAgent(std::string(1u << 20, 'x'));
  EXPECT_EQ(DeviceClassName(filler.device), "other");
  EXPECT_EQ(BrowserFamilyName(filler.browser), "other");
}

TEST(UserAgentClassTest, TokenCountsOnlyWhenItEndsWithinTheFirst512Bytes) {
  const std::string head = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0.0.0 ";
  std::string inside = head + std::string(512 - 4 - head.size(), ' ') + "Edg/131.0.0.0";
  std::string straddling = head + std::string(512 - 3 - head.size(), ' ') + "Edg/131.0.0.0";
  EXPECT_EQ(BrowserFamilyName(ClassifyUserAgent(inside).browser), "edge");
  EXPECT_EQ(BrowserFamilyName(ClassifyUserAgent(straddling).browser), "chrome");
}

}  // namespace
}  // namespace ferry::shortlink
