#pragma once

#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace ferry::shortlink {

constexpr size_t kMaxTags = 10;
constexpr size_t kMaxTagLength = 32;
constexpr size_t kMaxTitleCharacters = 200;

// A link's tags as stored: lower case, each 1..32 of [a-z0-9_-], sorted, duplicates once, at
// most 10. INVALID_ARGUMENT naming the tag otherwise.
Status NormalizeTags(const google::protobuf::RepeatedPtrField<std::string>& input,
                     std::vector<std::string>* out);
// One tag as NormalizeTags makes it (ListLinks' filter).
Status NormalizeTag(const std::string& input, std::string* out);
// At most 200 characters (protobuf strings are UTF-8 already), no control characters.
Status ValidateTitle(const std::string& title);
// ListLinks' search: up to 8 words split on spaces, lower case, each at most 64 bytes.
Status SearchWords(const std::string& search, std::vector<std::string>* words);

}  // namespace ferry::shortlink
