#include "json_shape.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "json_reader.h"
#include "json_shown_text.h"

namespace ferry::codec::json {
namespace {

class ShapeCheck : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ShapeCheck> {
 public:
  const std::string& error() const { return error_; }

  // Every scalar, numbers included (as text, they come as strings).
  bool Default() { return true; }

  bool StartObject() { return Open(); }
  bool Key(const char* text, rapidjson::SizeType size, bool) {
    if (keys_[depth_ - 1].emplace(text, size).second) return true;
    error_ = ShownText({text, size}, 64) + ": the key is given twice";
    return false;
  }
  bool EndObject(rapidjson::SizeType) {
    keys_[--depth_].clear();
    return true;
  }
  bool StartArray() { return Open(); }
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    return true;
  }

 private:
  bool Open() {
    if (depth_ == kMaxJsonDepth) {
      error_ = TooDeep();
      return false;
    }
    ++depth_;
    return true;
  }

  int depth_ = 0;
  // Per level, the keys of the object open there (none for an array).
  std::vector<std::unordered_set<std::string>> keys_{kMaxJsonDepth};
  std::string error_;
};

}  // namespace

Status CheckShape(std::string_view json) {
  ShapeCheck check;
  return ReadJson(json, check);
}

}  // namespace ferry::codec::json
