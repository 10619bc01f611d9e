#include "service/visit_facts.h"

#include <boost/url/parse.hpp>

#include <algorithm>
#include <array>

#include "service/sha256_hex.h"
#include "service/url_policy.h"

namespace ferry::shortlink {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Matched case-insensitively anywhere in the user agent. "bot" covers Googlebot, bingbot,
// Slackbot, Twitterbot, Discordbot, TelegramBot, LinkedInBot, ...; the others are the preview
// fetchers that do not call themselves bots (Outlook's Safe Links and Office run as
// "Microsoft Office" / "ms-office", Skype as "SkypeUriPreview").
constexpr std::array<std::string_view, 14> kFetcherMarks = {"bot",
                                                            "crawler",
                                                            "spider",
                                                            "slurp",
                                                            "facebookexternalhit",
                                                            "preview",
                                                            "embedly",
                                                            "whatsapp",
                                                            "iframely",
                                                            "microsoft office",
                                                            "ms-office",
                                                            "outlook",
                                                            "google-pagerenderer",
                                                            "vkshare"};

// Clients that are programs rather than people, counted as bots but free to use a link.
constexpr std::array<std::string_view, 6> kProgramMarks = {"curl/",           "wget/",   "python-",
                                                           "go-http-client/", "okhttp/", "java/"};

bool HasMark(std::string_view user_agent, const auto& marks) {
  const std::string ua = Lower(user_agent);
  return std::any_of(marks.begin(), marks.end(),
                     [&](std::string_view mark) { return ua.find(mark) != std::string::npos; });
}

}  // namespace

std::string VisitorHash(std::string_view secret, std::string_view day, std::string_view ip,
                        std::string_view user_agent) {
  std::string input;
  input.reserve(secret.size() + day.size() + ip.size() + user_agent.size() + 3);
  input.append(secret).append("\n").append(day).append("\n").append(ip).append("\n").append(
      user_agent);
  return Sha256Hex(input).substr(0, 16);
}

bool IsPreviewFetcher(std::string_view user_agent) { return HasMark(user_agent, kFetcherMarks); }

bool IsBotUserAgent(std::string_view user_agent) {
  if (user_agent.empty()) return true;  // browsers always send one
  return IsPreviewFetcher(user_agent) || HasMark(user_agent, kProgramMarks);
}

std::string ReferrerHost(std::string_view referrer) {
  auto url = boost::urls::parse_absolute_uri(referrer);
  if (!url) return "";
  const std::string scheme = Lower(url->scheme());
  if (scheme != "http" && scheme != "https") return "";
  // The column is ASCII: an IDN becomes its punycode, anything no host name can be is dropped.
  std::string host;
  if (!AsciiHost(url->encoded_host().decode(), &host).ok() || host.size() > 255) return "";
  return host;
}

}  // namespace ferry::shortlink
