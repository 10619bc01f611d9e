#include "service/code_rules.h"

#include <algorithm>
#include <array>

namespace ferry::shortlink {

namespace {

constexpr std::array<std::string_view, 22> kReserved = {
    "health", "ready", "metrics", "status", "loglevel", "api",     "admin", "static",
    "assets", "login", "logout",  "signup", "robots",   "favicon", "stats", "links",
    "link",   "new",   "create",  "help",   "about",    "www"};

bool CodeChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '-';
}

}  // namespace

std::string Base62(int64_t id) {
  std::string out;
  auto v = static_cast<uint64_t>(id);
  do {
    out.push_back(kBase62Alphabet[v % 62]);
    v /= 62;
  } while (v != 0);
  std::reverse(out.begin(), out.end());
  return out;
}

bool IsReservedCode(std::string_view code) {
  std::string lower(code);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(kReserved.begin(), kReserved.end(), lower) != kReserved.end();
}

Status ValidateCustomCode(std::string_view code) {
  if (code.size() < 3 || code.size() > 64) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "custom_code: 3 to 64 characters, got " + std::to_string(code.size()));
  }
  if (!std::all_of(code.begin(), code.end(), CodeChar)) {
    return Status(
        StatusCode::INVALID_ARGUMENT,
        "custom_code: only letters, digits, '-' and '_', got '" + std::string(code) + "'");
  }
  if (IsReservedCode(code)) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "custom_code: '" + std::string(code) + "' is reserved for the server's pages");
  }
  return Status::Ok();
}

bool LooksLikeCode(std::string_view segment) {
  return !segment.empty() && segment.size() <= 64 &&
         std::all_of(segment.begin(), segment.end(), CodeChar);
}

}  // namespace ferry::shortlink
