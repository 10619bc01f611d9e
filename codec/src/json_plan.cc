#include "json_plan.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "json_text.h"

namespace ferry::codec::json {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

bool IsProtobufOwn(const std::string& full_name) {
  return full_name.rfind("google.protobuf.", 0) == 0;
}

bool ProtoThree(const FileDescriptor* file) {
  return file->syntax() == FileDescriptor::SYNTAX_PROTO3;
}

// google.protobuf.NullValue is JSON's null, and proto2 enums are closed: both are protobuf's.
bool EnumHandledHere(const FieldDescriptor* field) {
  const auto* type = field->enum_type();
  return type == nullptr || (!IsProtobufOwn(type->full_name()) && ProtoThree(type->file()));
}

// Whether the type itself, its fields' message types aside, is one the fast path handles.
bool HandledHere(const Descriptor* descriptor) {
  // MessageSet needs proto2, so the syntax covers it.
  if (IsProtobufOwn(descriptor->full_name()) || !ProtoThree(descriptor->file()) ||
      descriptor->extension_range_count() > 0) {
    return false;
  }
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->type() == FieldDescriptor::TYPE_GROUP || !EnumHandledHere(field)) return false;
    if (field->is_map() && !EnumHandledHere(field->message_type()->map_value())) return false;
  }
  return true;
}

class PlanCache {
 public:
  const MessagePlan& Get(const Descriptor* descriptor) {
    {
      std::shared_lock lock(mutex_);
      if (const auto it = plans_.find(descriptor); it != plans_.end()) return *it->second;
    }
    std::unique_lock lock(mutex_);
    if (const auto it = plans_.find(descriptor); it != plans_.end()) return *it->second;
    return Build(descriptor);
  }

 private:
  // Every type reachable from `root`, root first (map entries are walked through, not listed).
  static std::vector<const Descriptor*> Reachable(const Descriptor* root) {
    std::vector<const Descriptor*> found{root};
    for (size_t next = 0; next < found.size(); ++next) {
      const Descriptor* type = found[next];
      for (int i = 0; i < type->field_count(); ++i) {
        const FieldDescriptor* field = type->field(i);
        const Descriptor* child = field->message_type();
        if (child == nullptr) continue;
        if (field->is_map()) child = child->map_value()->message_type();
        if (child != nullptr && std::find(found.begin(), found.end(), child) == found.end()) {
          found.push_back(child);
        }
      }
    }
    return found;
  }

  const MessagePlan& Build(const Descriptor* root) {
    const std::vector<const Descriptor*> reachable = Reachable(root);
    const bool fast = root->file()->pool() == google::protobuf::DescriptorPool::generated_pool() &&
                      std::all_of(reachable.begin(), reachable.end(), HandledHere);
    if (!fast) {
      auto plan = std::make_unique<MessagePlan>();
      plan->descriptor = root;
      return *plans_.emplace(root, std::move(plan)).first->second;
    }
    // All of them are fast too (what they reach, root reaches); the ones already cached are.
    std::vector<MessagePlan*> fresh;
    for (const Descriptor* type : reachable) {
      auto [it, added] = plans_.try_emplace(type);
      if (!added) continue;
      it->second = std::make_unique<MessagePlan>();
      it->second->descriptor = type;
      it->second->fast = true;
      fresh.push_back(it->second.get());
    }
    for (MessagePlan* plan : fresh) Fill(plan);
    return *plans_.at(root);
  }

  void Fill(MessagePlan* plan) {
    const Descriptor* type = plan->descriptor;
    plan->fields.reserve(type->field_count());
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* field = type->field(i);
      FieldPlan& out = plan->fields.emplace_back();
      out.field = field;
      out.key.push_back('"');
      AppendEscaped(field->json_name(), &out.key);
      out.key.append("\":");
      if (const auto* oneof = field->real_containing_oneof(); oneof != nullptr) {
        out.oneof = oneof->index();
      }
      const Descriptor* message = field->message_type();
      if (field->is_map()) {
        out.map_key = message->map_key();
        out.map_value = message->map_value();
        message = out.map_value->message_type();
      }
      if (message != nullptr) out.message = plans_.at(message).get();
    }
    std::sort(plan->fields.begin(), plan->fields.end(), [](const FieldPlan& a, const FieldPlan& b) {
      return a.field->number() < b.field->number();
    });
    // protoc refuses a message whose fields' names and json_names collide, so one name maps to
    // one field; the json_name is entered first all the same, as protobuf looks it up first.
    for (const FieldPlan& field : plan->fields) {
      plan->by_name.emplace(field.field->json_name(), &field);
    }
    for (const FieldPlan& field : plan->fields) {
      plan->by_name.emplace(field.field->name(), &field);
    }
  }

  std::shared_mutex mutex_;
  std::unordered_map<const Descriptor*, std::unique_ptr<MessagePlan>> plans_;
};

}  // namespace

const MessagePlan& PlanFor(const Descriptor* descriptor) {
  // Plans are never freed, so each thread may keep the few it uses without taking the lock.
  struct Recent {
    const Descriptor* descriptor = nullptr;
    const MessagePlan* plan = nullptr;
  };
  thread_local Recent recent[8];
  Recent& slot = recent[(reinterpret_cast<uintptr_t>(descriptor) >> 4) & 7];
  if (slot.descriptor != descriptor) {
    static PlanCache* const cache = new PlanCache();
    slot = {descriptor, &cache->Get(descriptor)};
  }
  return *slot.plan;
}

}  // namespace ferry::codec::json
