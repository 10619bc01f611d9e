#include "service/link_attributes.h"

#include <algorithm>
#include <cctype>

namespace ferry::shortlink {

namespace {

constexpr size_t kMaxSearchWords = 8;
constexpr size_t kMaxSearchWordLength = 64;

std::string Lower(const std::string& s) {
  std::string out = s;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

Status NormalizeTag(const std::string& input, std::string* out) {
  std::string tag = Lower(input);
  const bool valid = !tag.empty() && tag.size() <= kMaxTagLength &&
                     std::all_of(tag.begin(), tag.end(), [](unsigned char c) {
                       return std::isalnum(c) || c == '-' || c == '_';
                     });
  if (!valid) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "tag '" + input.substr(0, 64) + "': 1 to 32 of letters, digits, '-' and '_'");
  }
  *out = std::move(tag);
  return Status::Ok();
}

Status NormalizeTags(const google::protobuf::RepeatedPtrField<std::string>& input,
                     std::vector<std::string>* out) {
  out->clear();
  for (const std::string& raw : input) {
    std::string tag;
    if (Status s = NormalizeTag(raw, &tag); !s.ok()) return s;
    out->push_back(std::move(tag));
    if (out->size() > kMaxTags * 4) break;  // refused below; sorting stays cheap
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
  if (out->size() > kMaxTags) {
    return Status(StatusCode::INVALID_ARGUMENT, "tags: at most 10 distinct tags");
  }
  return Status::Ok();
}

Status ValidateTitle(const std::string& title) {
  size_t characters = 0;
  for (unsigned char c : title) {
    if ((c & 0xC0) != 0x80) ++characters;  // not a continuation byte
    if (c < 0x20 || c == 0x7F) {
      return Status(StatusCode::INVALID_ARGUMENT, "title: no control characters");
    }
  }
  if (characters > kMaxTitleCharacters) {
    return Status(StatusCode::INVALID_ARGUMENT, "title: at most 200 characters");
  }
  return Status::Ok();
}

Status SearchWords(const std::string& search, std::vector<std::string>* words) {
  words->clear();
  size_t start = 0;
  while (start < search.size()) {
    const size_t end = std::min(search.find(' ', start), search.size());
    if (end > start) {
      if (end - start > kMaxSearchWordLength || words->size() == kMaxSearchWords) {
        return Status(StatusCode::INVALID_ARGUMENT,
                      "search: at most 8 words of at most 64 bytes each");
      }
      words->push_back(Lower(search.substr(start, end - start)));
    }
    start = end + 1;
  }
  return Status::Ok();
}

}  // namespace ferry::shortlink
