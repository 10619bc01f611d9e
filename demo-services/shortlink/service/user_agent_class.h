#pragma once

#include <string_view>

namespace ferry::shortlink {

enum class DeviceClass { kDesktop, kMobile, kTablet, kBot, kOther };

enum class BrowserFamily {
  kChrome,
  kFirefox,
  kSafari,
  kEdge,
  kOpera,
  kSamsungInternet,
  kInternetExplorer,
  kOther
};

struct UserAgentClass {
  DeviceClass device;
  BrowserFamily browser;
};

// The device class and browser family a visit's statistics are broken down by, from the
// User-Agent header's tokens as browsers send them (case-sensitive). A bot (IsBotUserAgent) has
// no browser family: a crawler's borrowed "Chrome/" would swell the people's chart. An empty
// agent is {kOther, kOther} here although IsBotUserAgent counts it as a bot: what it is cannot
// be told. Only the first 512 bytes are read, so a huge header costs no more than a real one.
UserAgentClass ClassifyUserAgent(std::string_view user_agent);

// The names the statistics use: "desktop", "mobile", "tablet", "bot", "other".
std::string_view DeviceClassName(DeviceClass device);

// "chrome", "firefox", "safari", "edge", "opera", "samsung", "ie", "other".
std::string_view BrowserFamilyName(BrowserFamily browser);

}  // namespace ferry::shortlink
