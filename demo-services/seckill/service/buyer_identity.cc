#include "service/buyer_identity.h"

namespace ferry::seckill {

Status BuyerOf(const ServerContext& context, const std::string& claimed_user_id,
               std::string* user) {
  const std::string& verified = context.verified_user();
  if (verified.empty()) {
    return Status(StatusCode::UNAUTHENTICATED,
                  "no verified user: buyer calls need a user token (the server's user_token "
                  "filter verifies it)");
  }
  if (!claimed_user_id.empty() && claimed_user_id != verified) {
    return Status(StatusCode::PERMISSION_DENIED, "user_id '" + claimed_user_id +
                                                     "' is not the user of the call's token ('" +
                                                     verified + "')");
  }
  *user = verified;
  return Status::Ok();
}

Status OwnOrder(OrderStore& store, int64_t order_no, const std::string& user, OrderRecord* order) {
  const Status found = store.GetOrder(order_no, order);
  if (found.ok() && order->user_id == user) return Status::Ok();
  if (!found.ok() && found.code() != StatusCode::NOT_FOUND) return found;
  return Status(StatusCode::NOT_FOUND, "no order " + std::to_string(order_no) + " of this user");
}

}  // namespace ferry::seckill
