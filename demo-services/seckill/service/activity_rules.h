#pragma once

#include <cstdint>
#include <optional>

#include "ferry/codec/status.h"
#include "seckill.pb.h"
#include "storage/order_store.h"

namespace ferry::seckill {

// Ids are stored in VARCHAR(128) columns and Redis keys; longer ones are refused up front.
inline constexpr size_t kMaxIdLength = 128;

// INVALID_ARGUMENT naming the field: zero or negative stock, end before start, empty name...
Status ValidateNewActivity(const Activity& activity);
// INVALID_ARGUMENT for empty or over-long user or request ids, non-positive activity or sku.
Status ValidatePurchase(const PurchaseRequest& request);

// The answer a purchase gets from the activity alone, before any stock is looked at:
// NOT_FOUND (sku not on sale here), NOT_STARTED (closed or early), ENDED; nullopt when the
// sale is running.
std::optional<PurchaseAnswer> GateFor(const ActivityRecord& activity, int64_t sku_id,
                                      int64_t now_ms);

ActivityRecord ToRecord(const Activity& activity);
Activity ToProto(const ActivityRecord& record);

}  // namespace ferry::seckill
