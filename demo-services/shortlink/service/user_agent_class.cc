#include "service/user_agent_class.h"

#include <cstddef>

#include "service/visit_facts.h"

namespace ferry::shortlink {

namespace {

// Real agents are 100 to 300 bytes and name their platform and browser early; the header is
// the visitor's to choose, and a longer one must not cost a longer scan.
constexpr size_t kExaminedBytes = 512;

bool Has(std::string_view ua, std::string_view token) {
  return ua.find(token) != std::string_view::npos;
}

// Windows' "Tablet PC 2.0" is sent by touch-screen laptops and desktops, not by tablets.
bool HasTabletToken(std::string_view ua) {
  const size_t pos = ua.find("Tablet");
  return pos != std::string_view::npos && ua.substr(pos + 6, 3) != " PC";
}

DeviceClass Device(std::string_view ua) {
  // Before the mobile tokens: iPad agents also carry "Mobile/<build>".
  if (Has(ua, "iPad") || HasTabletToken(ua)) return DeviceClass::kTablet;
  // Windows Phone agents claim Android and iPhone too, to get the pages those are served.
  if (Has(ua, "Windows Phone")) return DeviceClass::kMobile;
  // Android's convention, followed by Chrome, Samsung Internet and the makers: phones say
  // "Mobile", tablets do not (Firefox says "Tablet", caught above).
  if (Has(ua, "Android")) return Has(ua, "Mobile") ? DeviceClass::kMobile : DeviceClass::kTablet;
  if (Has(ua, "Mobi") || Has(ua, "iPhone") || Has(ua, "iPod")) return DeviceClass::kMobile;
  // iPadOS Safari asks for desktop pages with a Macintosh agent; it cannot be told from a Mac.
  if (Has(ua, "Windows NT") || Has(ua, "Macintosh") || Has(ua, "X11") || Has(ua, "Linux") ||
      Has(ua, "CrOS")) {
    return DeviceClass::kDesktop;
  }
  return DeviceClass::kOther;
}

BrowserFamily Browser(std::string_view ua) {
  // The order matters: Chromium-based browsers keep "Chrome/" and "Safari/" and add their own
  // token, Chrome keeps "Safari/", and every iOS browser is WebKit underneath.
  if (Has(ua, "Edg/") || Has(ua, "EdgA/") || Has(ua, "EdgiOS/") || Has(ua, "Edge/")) {
    return BrowserFamily::kEdge;
  }
  // "Opera" is Presto's Opera and Opera Mini; "OPiOS/" is Opera on iOS.
  if (Has(ua, "OPR/") || Has(ua, "Opera") || Has(ua, "OPiOS/")) return BrowserFamily::kOpera;
  if (Has(ua, "SamsungBrowser/")) return BrowserFamily::kSamsungInternet;
  if (Has(ua, "Chrome/") || Has(ua, "CriOS/")) return BrowserFamily::kChrome;
  if (Has(ua, "Firefox/") || Has(ua, "FxiOS/")) return BrowserFamily::kFirefox;
  // Before Safari: IE Mobile claims "iPhone OS" and "AppleWebKit".
  if (Has(ua, "MSIE ") || Has(ua, "Trident/")) return BrowserFamily::kInternetExplorer;
  const bool ios = Has(ua, "iPhone") || Has(ua, "iPad") || Has(ua, "iPod");
  // Android's pre-Chrome stock browser also sends "Version/... Safari/"; it is no Safari.
  if (Has(ua, "Safari/") && Has(ua, "Version/") && !Has(ua, "Android")) {
    return BrowserFamily::kSafari;
  }
  // In-app browsers on iOS (Facebook, Google app, ...) drop "Safari/" but are its engine.
  if (ios && Has(ua, "AppleWebKit/")) return BrowserFamily::kSafari;
  return BrowserFamily::kOther;
}

}  // namespace

UserAgentClass ClassifyUserAgent(std::string_view user_agent) {
  const std::string_view ua = user_agent.substr(0, kExaminedBytes);
  if (ua.empty()) return {DeviceClass::kOther, BrowserFamily::kOther};
  if (IsBotUserAgent(ua)) return {DeviceClass::kBot, BrowserFamily::kOther};
  return {Device(ua), Browser(ua)};
}

std::string_view DeviceClassName(DeviceClass device) {
  switch (device) {
    case DeviceClass::kDesktop:
      return "desktop";
    case DeviceClass::kMobile:
      return "mobile";
    case DeviceClass::kTablet:
      return "tablet";
    case DeviceClass::kBot:
      return "bot";
    case DeviceClass::kOther:
      return "other";
  }
  return "other";  // a value cast from outside the enumerators
}

std::string_view BrowserFamilyName(BrowserFamily browser) {
  switch (browser) {
    case BrowserFamily::kChrome:
      return "chrome";
    case BrowserFamily::kFirefox:
      return "firefox";
    case BrowserFamily::kSafari:
      return "safari";
    case BrowserFamily::kEdge:
      return "edge";
    case BrowserFamily::kOpera:
      return "opera";
    case BrowserFamily::kSamsungInternet:
      return "samsung";
    case BrowserFamily::kInternetExplorer:
      return "ie";
    case BrowserFamily::kOther:
      return "other";
  }
  return "other";  // a value cast from outside the enumerators
}

}  // namespace ferry::shortlink
