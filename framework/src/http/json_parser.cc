#include "http/json_parser.h"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "http/json_text.h"
#include "http/json_value.h"

namespace ferry::http {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// protobuf refuses objects nested deeper than this, messages and maps alike (lists are free).
constexpr int kMaxObjects = 100;

// Numbers arrive as their text: the conversions need it exact (an integer is not a double), and
// errors quote it as written. from_chars then reads them to the last bit.
constexpr unsigned kReaderFlags = rapidjson::kParseValidateEncodingFlag |
                                  rapidjson::kParseNumbersAsStringsFlag |
                                  rapidjson::kParseIterativeFlag;

struct Frame {
  enum class Kind { kMessage, kList, kMap };
  Kind kind;
  Message* message;
  const Reflection* reflection;
  // kMessage: the field whose value comes next. kList, kMap: the list's or map's field.
  const FieldPlan* field = nullptr;
  const MessagePlan* plan = nullptr;
  // kMessage: the oneofs given a value in this object (protobuf refuses a second one), the first
  // 64 of them; the object's number in the text, for the others.
  uint64_t oneofs = 0;
  uint32_t serial = 0;
  // kList: the element being read.
  int index = 0;
};

// What a map's frame needs besides: the key whose value comes next, as written, the keys this
// object gave, and the entries the field had before it (the field may be given twice).
struct MapState {
  std::string key;
  std::unordered_set<std::string> keys;
  int entries_before = 0;
};

// The reader refuses surrogates written as UTF-8, and a \u escape of a high surrogate without
// its low one, but lets a lone low one through as UTF-8 protobuf would refuse.
bool HasLoneSurrogate(const char* text, size_t size) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text);
  for (size_t i = 0; i + 1 < size; ++i) {
    if (bytes[i] == 0xed && bytes[i + 1] >= 0xa0) return true;
  }
  return false;
}

// Builds the message from the reader's events, one frame per open object or array.
class Builder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Builder> {
 public:
  // `frames` is the thread's, kept between parses to save allocating it: it is left empty.
  Builder(const MessagePlan& plan, Message* root, std::vector<Frame>* frames)
      : plan_(plan), root_(root), frames_(*frames) {}
  ~Builder() {
    frames_.clear();
    if (frames_.capacity() > 64) std::vector<Frame>().swap(frames_);
  }

  const std::string& error() const { return error_; }

  bool Null() { return OnValue({JsonScalar::Kind::kNull}); }
  bool Bool(bool value) { return OnValue({JsonScalar::Kind::kBool, {}, value}); }
  bool RawNumber(const char* text, rapidjson::SizeType size, bool) {
    return OnValue({JsonScalar::Kind::kNumber, {text, size}});
  }
  bool String(const char* text, rapidjson::SizeType size, bool) {
    if (HasLoneSurrogate(text, size)) return LoneSurrogate();
    return OnValue({JsonScalar::Kind::kString, {text, size}});
  }

  bool StartObject() {
    if (frames_.empty()) return PushMessage(root_, plan_);
    Frame& top = frames_.back();
    const FieldPlan& field = *top.field;
    switch (top.kind) {
      case Frame::Kind::kMessage: {
        if (field.field->is_map()) return PushMap(top);
        if (field.message == nullptr) return Mismatch(Expected(field.field), "an object");
        if (field.field->is_repeated()) {
          return PushMessage(top.reflection->AddMessage(top.message, field.field), *field.message);
        }
        if (!MarkOneof(top)) return false;
        return PushMessage(top.reflection->MutableMessage(top.message, field.field),
                           *field.message);
      }
      case Frame::Kind::kList:
        if (field.message == nullptr || field.field->is_map()) {
          return Mismatch(Expected(field.field), "an object");
        }
        return PushMessage(top.reflection->AddMessage(top.message, field.field), *field.message);
      case Frame::Kind::kMap: {
        if (field.message == nullptr) return Mismatch(Expected(field.map_value), "an object");
        Message* entry = AddEntry(top);
        if (entry == nullptr) return false;
        return PushMessage(entry->GetReflection()->MutableMessage(entry, field.map_value),
                           *field.message);
      }
    }
    return false;
  }

  bool Key(const char* text, rapidjson::SizeType size, bool) {
    Frame& top = frames_.back();
    const std::string_view name(text, size);
    if (top.kind == Frame::Kind::kMap) {
      MapState& map = maps_.back();
      map.key.assign(name);
      if (HasLoneSurrogate(text, size)) return LoneSurrogate();
      if (!map.keys.insert(map.key).second) return Fail("the key is given twice");
      return true;
    }
    top.field = nullptr;
    if (HasLoneSurrogate(text, size)) return LoneSurrogate();
    top.field = top.plan->Find(name);
    if (top.field != nullptr) return true;
    std::string path = Path();
    error_ = (path.empty() ? "" : path + ".") + std::string(name) + ": no such field in " +
             top.plan->descriptor->full_name();
    return false;
  }

  bool EndObject(rapidjson::SizeType) {
    if (frames_.back().kind == Frame::Kind::kMap) {
      DropRepeatedKeys(frames_.back(), maps_.back());
      maps_.pop_back();
    }
    --objects_;
    return Pop();
  }

  bool StartArray() {
    if (frames_.empty()) {
      error_ = "expected a JSON object, got an array";
      return false;
    }
    Frame& top = frames_.back();
    const FieldPlan& field = *top.field;
    switch (top.kind) {
      case Frame::Kind::kMessage:
        if (field.field->is_map()) return Mismatch("an object", "an array");
        if (!field.field->is_repeated()) return Mismatch(Expected(field.field), "an array");
        break;
      case Frame::Kind::kList:
        // protobuf flattens a list in a list into the field.
        break;
      case Frame::Kind::kMap:
        return Mismatch(Expected(field.map_value), "an array");
    }
    frames_.push_back({Frame::Kind::kList, top.message, top.reflection, &field});
    return true;
  }

  bool EndArray(rapidjson::SizeType) { return Pop(); }

 private:
  bool OnValue(const JsonScalar& value) {
    if (frames_.empty()) {
      error_ = "expected a JSON object, got " + Describe(value);
      return false;
    }
    Frame& top = frames_.back();
    const FieldPlan& field = *top.field;
    switch (top.kind) {
      case Frame::Kind::kMessage:
        // null is the field's default: protobuf leaves the field alone.
        if (value.kind == JsonScalar::Kind::kNull) return true;
        if (field.field->is_map()) return Mismatch("an object", Describe(value));
        if (!MarkOneof(top)) return false;
        return Stored(StoreScalar(top.message, field.field, field.field->is_repeated(), value));
      case Frame::Kind::kList:
        // protobuf skips nulls in a list.
        if (value.kind != JsonScalar::Kind::kNull &&
            !Stored(StoreScalar(top.message, field.field, true, value))) {
          return false;
        }
        ++top.index;
        return true;
      case Frame::Kind::kMap: {
        Message* entry = AddEntry(top);
        if (entry == nullptr) return false;
        // A null value is the value type's default, as protobuf has it.
        if (value.kind == JsonScalar::Kind::kNull) return true;
        return Stored(StoreScalar(entry, field.map_value, false, value));
      }
    }
    return false;
  }

  bool PushMessage(Message* message, const MessagePlan& plan) {
    if (objects_ == kMaxObjects) return Fail("nested deeper than 100 objects");
    ++objects_;
    Frame frame{Frame::Kind::kMessage, message, message->GetReflection()};
    frame.plan = &plan;
    frame.serial = ++messages_;
    frames_.push_back(frame);
    return true;
  }

  bool PushMap(Frame& owner) {
    if (objects_ == kMaxObjects) return Fail("nested deeper than 100 objects");
    ++objects_;
    maps_.emplace_back().entries_before =
        owner.reflection->FieldSize(*owner.message, owner.field->field);
    frames_.push_back({Frame::Kind::kMap, owner.message, owner.reflection, owner.field});
    return true;
  }

  bool Pop() {
    frames_.pop_back();
    if (!frames_.empty() && frames_.back().kind == Frame::Kind::kList) ++frames_.back().index;
    return true;
  }

  bool MarkOneof(Frame& frame) {
    const int oneof = frame.field->oneof;
    if (oneof < 0) return true;
    bool seen;
    if (oneof < 64) {
      seen = (frame.oneofs >> oneof) & 1;
      frame.oneofs |= uint64_t{1} << oneof;
    } else {
      seen = !late_oneofs_.insert((uint64_t{frame.serial} << 32) | static_cast<uint32_t>(oneof))
                  .second;
    }
    if (!seen) return true;
    const auto* declared = frame.field->field->containing_oneof();
    // A proto3 `optional` field is a oneof of its own.
    return Fail(declared->is_synthetic() ? "the field is given twice"
                                         : "oneof " + declared->name() + " already has a value");
  }

  // A new entry of the map in `map`, its key set from the one just read.
  Message* AddEntry(Frame& map) {
    Message* entry = map.reflection->AddMessage(map.message, map.field->field);
    if (const std::string error = StoreMapKey(entry, map.field->map_key, maps_.back().key);
        !error.empty()) {
      Fail(error);
      return nullptr;
    }
    return entry;
  }

  // Entries are added as a list; when keys repeat (across two objects for the field, or as
  // "1" and "01") the last one stays, as protobuf's parse of its own output keeps it, and the
  // message then holds each key once for whatever reads it through reflection.
  void DropRepeatedKeys(const Frame& map, const MapState& state) {
    const FieldDescriptor* field = map.field->field;
    const int size = map.reflection->FieldSize(*map.message, field);
    const bool as_written = map.field->map_key->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
    if (size < 2 || (as_written && state.entries_before == 0)) return;
    std::vector<std::string> keys(size);
    std::unordered_map<std::string_view, int> last;
    for (int i = 0; i < size; ++i) {
      const Message& entry = map.reflection->GetRepeatedMessage(*map.message, field, i);
      keys[i] = MapKeyText(entry, map.field->map_key);
    }
    for (int i = 0; i < size; ++i) last[keys[i]] = i;
    if (static_cast<int>(last.size()) == size) return;
    int kept = 0;
    for (int i = 0; i < size; ++i) {
      if (last[keys[i]] != i) continue;
      if (kept != i) map.reflection->SwapElements(map.message, field, kept, i);
      ++kept;
    }
    while (map.reflection->FieldSize(*map.message, field) > kept) {
      map.reflection->RemoveLast(map.message, field);
    }
  }

  bool LoneSurrogate() { return Fail("invalid JSON, a \\u escape is a lone low surrogate"); }

  bool Stored(const std::string& error) { return error.empty() || Fail(error); }

  bool Mismatch(const std::string& expected, const std::string& got) {
    return Fail("expected " + expected + ", got " + got);
  }

  bool Fail(const std::string& what) {
    const std::string path = Path();
    error_ = path.empty() ? what : path + ": " + what;
    return false;
  }

  // Where the reader is: items[2].count, byName["key"].
  std::string Path() const {
    std::string path;
    size_t map = 0;
    for (const Frame& frame : frames_) {
      switch (frame.kind) {
        case Frame::Kind::kMessage:
          if (frame.field == nullptr) break;
          if (!path.empty()) path += '.';
          path += frame.field->field->json_name();
          break;
        case Frame::Kind::kList:
          path += '[' + std::to_string(frame.index) + ']';
          break;
        case Frame::Kind::kMap:
          path += "[\"";
          AppendEscaped(maps_[map++].key, &path);
          path += "\"]";
          break;
      }
    }
    return path;
  }

  const MessagePlan& plan_;
  Message* const root_;
  std::vector<Frame>& frames_;
  std::vector<MapState> maps_;
  std::unordered_set<uint64_t> late_oneofs_;
  uint32_t messages_ = 0;
  int objects_ = 0;
  std::string error_;
};

}  // namespace

JsonParseOutcome ParseFast(std::string_view json, const MessagePlan& plan, Message* message) {
  message->Clear();
  thread_local std::vector<Frame> frames;
  Builder builder(plan, message, &frames);
  rapidjson::MemoryStream stream(json.data(), json.size());
  rapidjson::Reader reader;
  const rapidjson::ParseResult result = reader.Parse<kReaderFlags>(stream, builder);
  if (!builder.error().empty()) return {Status(StatusCode::INVALID_ARGUMENT, builder.error())};
  size_t offset = result.Offset();
  std::string what = result.IsError() ? rapidjson::GetParseError_En(result.Code()) : "";
  // The stream reads a NUL as the end of the text.
  if (!result.IsError() && stream.Tell() != json.size()) {
    offset = stream.Tell();
    what = "The document root must not be followed by other values.";
  }
  if (what.empty()) return {};
  return {Status(StatusCode::INVALID_ARGUMENT,
                 "invalid JSON at offset " + std::to_string(offset) + ": " + what),
          true};
}

}  // namespace ferry::http
