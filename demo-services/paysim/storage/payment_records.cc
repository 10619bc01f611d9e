#include "storage/payment_records.h"

#include <array>
#include <utility>

namespace ferry::paysim {

namespace {

constexpr std::array<std::pair<PaymentStatus, std::string_view>, 5> kStatusNames{{
    {PaymentStatus::kPending, "PENDING"},
    {PaymentStatus::kSucceeded, "SUCCEEDED"},
    {PaymentStatus::kFailed, "FAILED"},
    {PaymentStatus::kClosed, "CLOSED"},
    {PaymentStatus::kRefunded, "REFUNDED"},
}};

}  // namespace

std::string_view PaymentStatusName(PaymentStatus status) {
  for (const auto& [s, name] : kStatusNames) {
    if (s == status) return name;
  }
  return "PENDING";
}

PaymentStatus PaymentStatusOf(std::string_view name) {
  for (const auto& [s, n] : kStatusNames) {
    if (n == name) return s;
  }
  return PaymentStatus::kPending;
}

std::string_view DeliveryStateName(DeliveryState state) {
  switch (state) {
    case DeliveryState::kQueued:
      return "QUEUED";
    case DeliveryState::kDelivered:
      return "DELIVERED";
    case DeliveryState::kGaveUp:
      return "GAVE_UP";
  }
  return "QUEUED";
}

}  // namespace ferry::paysim
