#pragma once

#include <cstdint>
#include <string>

#include "ferry/codec/status.h"
#include "ferry/framework/server_context.h"
#include "storage/order_store.h"

namespace ferry::seckill {

// Who a buyer's call is for: the user its token names (ServerContext::verified_user(), set by
// the `user_token` filter), never a user id the request merely carries. UNAUTHENTICATED
// without a verified user; PERMISSION_DENIED when the request names another user (the field
// stays for the consistent-hash balancer, which routes on it).
Status BuyerOf(const ServerContext& context, const std::string& claimed_user_id, std::string* user);

// The order `order_no` when `user` holds it. NOT_FOUND, in the same words, for an order of
// another user and for no order at all: order numbers are guessable, their existence is not
// for others to learn.
Status OwnOrder(OrderStore& store, int64_t order_no, const std::string& user, OrderRecord* order);

}  // namespace ferry::seckill
