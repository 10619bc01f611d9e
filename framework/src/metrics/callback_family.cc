#include "ferry/framework/metrics/callback_family.h"

namespace ferry::metrics {

CallbackHandle::CallbackHandle(CallbackHandle&& other) noexcept
    : family_(std::exchange(other.family_, nullptr)), id_(other.id_) {}

CallbackHandle& CallbackHandle::operator=(CallbackHandle&& other) noexcept {
  if (this != &other) {
    Reset();
    family_ = std::exchange(other.family_, nullptr);
    id_ = other.id_;
  }
  return *this;
}

void CallbackHandle::Reset() {
  if (family_ != nullptr) std::exchange(family_, nullptr)->Unbind(id_);
}

Result<CallbackHandle> CallbackFamily::Bind(const std::vector<std::string>& label_values,
                                            std::function<double()> read) {
  if (Status status = CheckLabelValues(label_values); !status.ok()) return status;
  std::lock_guard lock(mu_);
  const uint64_t id = next_id_++;
  if (!bindings_.try_emplace(label_values, Binding{id, std::move(read)}).second) {
    return Status(StatusCode::ALREADY_EXISTS,
                  "metric \"" + name() + "\": those label values are bound already");
  }
  return CallbackHandle(this, id);
}

void CallbackFamily::Unbind(uint64_t id) {
  std::lock_guard lock(mu_);
  std::erase_if(bindings_, [id](const auto& entry) { return entry.second.id == id; });
}

FamilySnapshot CallbackFamily::Collect() const {
  FamilySnapshot snapshot = info();
  std::lock_guard lock(mu_);
  snapshot.series.reserve(bindings_.size());
  for (const auto& [label_values, binding] : bindings_) {
    Series& series = snapshot.series.emplace_back();
    series.label_values = label_values;
    series.value = binding.read();
  }
  return snapshot;
}

}  // namespace ferry::metrics
