#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/visit_event.h"

namespace ferry::shortlink {

// 16 hex digits of SHA-256(secret, day, IP, user agent): the same visitor on one UTC day gives
// the same hash on every provider (the secret is shared through the database), and hashes of
// different days cannot be linked.
std::string VisitorHash(std::string_view secret, std::string_view day, std::string_view ip,
                        std::string_view user_agent);

// Crawlers and link-preview fetchers (Slackbot, facebookexternalhit, Twitterbot, ...) and
// command-line clients (curl, wget, ...): README, "Statistics".
bool IsBotUserAgent(std::string_view user_agent);

// Whether a user agent is a crawler or a link-preview fetcher (chat apps, mail scanners): it
// opens links nobody clicked. Command-line clients and an empty agent are bots, not fetchers.
bool IsPreviewFetcher(std::string_view user_agent);

// The host of an absolute http(s) Referer as AsciiHost writes it (an IDN as punycode); empty
// when there is none or it is no host name.
std::string ReferrerHost(std::string_view referrer);

}  // namespace ferry::shortlink
