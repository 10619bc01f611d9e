#include "storage/request_scope.h"

#include <charconv>

namespace ferry::seckill {

std::string RequestField(std::string_view user_id, std::string_view request_id) {
  std::string field = std::to_string(user_id.size());
  field += ':';
  field += user_id;
  field += ':';
  field += request_id;
  return field;
}

bool ParseRequestField(std::string_view field, std::string* user_id, std::string* request_id) {
  size_t length = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), length);
  if (error != std::errc() || end == field.data() || *end != ':') return false;
  const size_t user_at = static_cast<size_t>(end - field.data()) + 1;
  if (field.size() < user_at + length + 1 || field[user_at + length] != ':') return false;
  *user_id = std::string(field.substr(user_at, length));
  *request_id = std::string(field.substr(user_at + length + 1));
  return true;
}

std::string RequestKeyText(const RequestScope& scope) {
  return std::to_string(scope.activity_id) + ":" + std::to_string(scope.sku_id) + ":" +
         RequestField(scope.user_id, scope.request_id);
}

}  // namespace ferry::seckill
