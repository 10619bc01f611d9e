#include "json_parser.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "json_reader.h"
#include "json_shown_text.h"
#include "json_value.h"

namespace ferry::codec::json {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// How much of a key an error quotes.
constexpr size_t kShownKey = 64;

struct Frame {
  // kSkip: a value of an unknown field, read and dropped.
  enum class Kind { kMessage, kList, kMap, kSkip };
  Kind kind;
  Message* message;
  const Reflection* reflection;
  // kMessage: the field whose value comes next (null while an unknown one's is skipped).
  // kList, kMap: the list's or map's field.
  const FieldPlan* field = nullptr;
  const MessagePlan* plan = nullptr;
  // kMessage: the fields and the oneofs given a value in this object (protobuf refuses a second
  // one of a oneof), the first 64 of each; the object's number in the text, for the others.
  uint64_t fields = 0;
  uint64_t oneofs = 0;
  uint32_t serial = 0;
  // kList: the element being read.
  int index = 0;
};

// What a map's frame needs besides: the key whose value comes next, as written, and the keys
// this object gave, by value ("1" and "01" are one int32 key).
struct MapState {
  std::string key;
  std::unordered_set<std::string> keys;
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

// Builds the message from the reader's events, one frame per open object or array, so at most
// kMaxJsonDepth of them. An event costs what its own bytes do: nothing read is walked again (no
// work per open level, no map rebuilt at its end), so any text costs time linear in its size.
class Builder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Builder> {
 public:
  // `frames` is the thread's, kept between parses to save allocating it: it is left empty.
  Builder(const MessagePlan& plan, const JsonParseOptions& options, Message* root,
          std::vector<Frame>* frames)
      : plan_(plan), skip_unknown_(options.ignore_unknown_fields), root_(root), frames_(*frames) {
    frames_.reserve(kMaxJsonDepth);
  }
  ~Builder() { frames_.clear(); }

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
    if (Skipping(top)) return PushSkip();
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
        if (!CanPush()) return false;
        Message* entry = AddEntry(top);
        if (entry == nullptr) return false;
        return PushMessage(entry->GetReflection()->MutableMessage(entry, field.map_value),
                           *field.message);
      }
      case Frame::Kind::kSkip:
        break;
    }
    return false;
  }

  bool Key(const char* text, rapidjson::SizeType size, bool) {
    Frame& top = frames_.back();
    const std::string_view name(text, size);
    switch (top.kind) {
      case Frame::Kind::kSkip:
        return true;
      case Frame::Kind::kMap:
        maps_.back().key.assign(name);
        if (HasLoneSurrogate(text, size)) return LoneSurrogate();
        return true;
      case Frame::Kind::kMessage:
      case Frame::Kind::kList:
        break;
    }
    top.field = nullptr;
    if (HasLoneSurrogate(text, size)) return LoneSurrogate();
    top.field = top.plan->Find(name);
    if (top.field != nullptr) return MarkGiven(top);
    if (skip_unknown_) return true;
    std::string path = Path();
    error_ = (path.empty() ? "" : path + ".") + ShownText(name, kShownKey) + ": no such field in " +
             top.plan->descriptor->full_name();
    return false;
  }

  bool EndObject(rapidjson::SizeType) {
    if (frames_.back().kind == Frame::Kind::kMap) maps_.pop_back();
    return Pop();
  }

  bool StartArray() {
    if (frames_.empty()) {
      error_ = "expected a JSON object, got an array";
      return false;
    }
    Frame& top = frames_.back();
    if (Skipping(top)) return PushSkip();
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
      case Frame::Kind::kSkip:
        return false;
    }
    if (!CanPush()) return false;
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
    if (Skipping(top)) return true;
    const FieldPlan& field = *top.field;
    switch (top.kind) {
      case Frame::Kind::kMessage:
        // null is the field's default: protobuf leaves the field alone.
        if (value.kind == JsonScalar::Kind::kNull) return true;
        if (field.field->is_map()) return Mismatch("an object", Describe(value));
        if (!MarkOneof(top)) return false;
        return Stored(StoreScalar(top.message, field.field, field.field->is_repeated(), value,
                                  skip_unknown_));
      case Frame::Kind::kList:
        // protobuf skips nulls in a list.
        if (value.kind != JsonScalar::Kind::kNull &&
            !Stored(StoreScalar(top.message, field.field, true, value, skip_unknown_))) {
          return false;
        }
        ++top.index;
        return true;
      case Frame::Kind::kMap: {
        Message* entry = AddEntry(top);
        if (entry == nullptr) return false;
        // A null value is the value type's default, as protobuf has it.
        if (value.kind == JsonScalar::Kind::kNull) return true;
        return Stored(StoreScalar(entry, field.map_value, false, value, skip_unknown_));
      }
      case Frame::Kind::kSkip:
        break;
    }
    return true;
  }

  // Inside an unknown field's value, or at its start.
  static bool Skipping(const Frame& top) {
    return top.kind == Frame::Kind::kSkip ||
           (top.kind == Frame::Kind::kMessage && top.field == nullptr);
  }

  // Refuses the level past the limit before anything is added for it.
  bool CanPush() { return static_cast<int>(frames_.size()) < kMaxJsonDepth || Fail(TooDeep()); }

  bool PushMessage(Message* message, const MessagePlan& plan) {
    if (!CanPush()) return false;
    Frame frame{Frame::Kind::kMessage, message, message->GetReflection()};
    frame.plan = &plan;
    frame.serial = ++messages_;
    frames_.push_back(frame);
    return true;
  }

  bool PushMap(const Frame& owner) {
    if (!CanPush()) return false;
    maps_.emplace_back();
    frames_.push_back({Frame::Kind::kMap, owner.message, owner.reflection, owner.field});
    return true;
  }

  bool PushSkip() {
    if (!CanPush()) return false;
    frames_.push_back({Frame::Kind::kSkip, nullptr, nullptr});
    return true;
  }

  bool Pop() {
    frames_.pop_back();
    if (!frames_.empty() && frames_.back().kind == Frame::Kind::kList) ++frames_.back().index;
    return true;
  }

  // Whether `bits` (the first 64) or late_ (the others, by the frame's serial) had `index`
  // already; it has it afterwards.
  bool Seen(const Frame& frame, uint64_t* bits, int index, uint64_t kind) {
    if (index < 64) {
      const bool seen = (*bits >> index) & 1;
      *bits |= uint64_t{1} << index;
      return seen;
    }
    return !late_
                .insert((uint64_t{frame.serial} << 32) | (kind << 31) |
                        static_cast<uint32_t>(index))
                .second;
  }

  // A field given twice would be merged (a message), replaced (a scalar) or appended to (a list)
  // by protobuf; it is refused instead, so that what an object says is what it holds.
  bool MarkGiven(Frame& frame) {
    const int index = static_cast<int>(frame.field - frame.plan->fields.data());
    return !Seen(frame, &frame.fields, index, 0) || Fail("the field is given twice");
  }

  bool MarkOneof(Frame& frame) {
    const int oneof = frame.field->oneof;
    if (oneof < 0 || !Seen(frame, &frame.oneofs, oneof, 1)) return true;
    return Fail("oneof " + frame.field->field->containing_oneof()->name() + " already has a value");
  }

  // A new entry of the map in `map`, its key set from the one just read; null when the key is
  // not one of the map's key type, or the object gave it already.
  Message* AddEntry(Frame& map) {
    MapState& state = maps_.back();
    const FieldDescriptor* key = map.field->map_key;
    Message* entry = map.reflection->AddMessage(map.message, map.field->field);
    if (const std::string error = StoreMapKey(entry, key, state.key); !error.empty()) {
      Fail(error);
      return nullptr;
    }
    const bool as_written = key->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
    if (!state.keys.insert(as_written ? state.key : MapKeyText(*entry, key)).second) {
      Fail("the key is given twice");
      return nullptr;
    }
    return entry;
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
          path += "[\"" + ShownText(maps_[map++].key, kShownKey) + "\"]";
          break;
        case Frame::Kind::kSkip:
          break;
      }
    }
    return path;
  }

  const MessagePlan& plan_;
  const bool skip_unknown_;
  Message* const root_;
  std::vector<Frame>& frames_;
  std::vector<MapState> maps_;
  std::unordered_set<uint64_t> late_;
  uint32_t messages_ = 0;
  std::string error_;
};

}  // namespace

Status ParseFast(std::string_view json, const MessagePlan& plan, const JsonParseOptions& options,
                 Message* message) {
  message->Clear();
  thread_local std::vector<Frame> frames;
  Builder builder(plan, options, message, &frames);
  return ReadJson(json, builder);
}

}  // namespace ferry::codec::json
