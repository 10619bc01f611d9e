#include "service/activity_rules.h"
#include "service/buyer_identity.h"
#include "service/seckill_service.h"

// SeckillServiceImpl's payment methods: the buyer starts a payment and asks about the order;
// the channels notify; operators record refunds made by hand.
namespace ferry::seckill {

namespace {

Status Invalid(const std::string& message) { return Status(StatusCode::INVALID_ARGUMENT, message); }

Status ValidPayment(const std::string& channel, const std::string& channel_txn_id) {
  if (channel.empty() || channel.size() > 32) return Invalid("channel: must be 1..32 bytes");
  if (channel_txn_id.empty() || channel_txn_id.size() > kMaxIdLength) {
    return Invalid("channel_txn_id: must be 1.." + std::to_string(kMaxIdLength) + " bytes");
  }
  return Status::Ok();
}

void ToView(const OrderRecord& order, OrderView* view) {
  view->set_order_no(order.order_no);
  view->set_activity_id(order.activity_id);
  view->set_sku_id(order.sku_id);
  view->set_state(std::string(OrderStateName(order.state)));
  view->set_pay_deadline_ms(order.pay_deadline_ms);
  view->set_amount_cents(order.amount_cents);
  view->set_currency(order.currency);
  view->set_channel(order.channel);
  if (order.state == OrderState::kPaid) view->set_channel_txn_id(order.channel_txn_id);
  if (order.state == OrderState::kConfirming) {
    view->set_confirm_deadline_ms(order.confirm_deadline_ms);
  }
}

}  // namespace

Status SeckillServiceImpl::BuyersOrder(const ServerContext& context, int64_t order_no,
                                       OrderRecord* order) {
  std::string user;
  if (Status s = BuyerOf(context, "", &user); !s.ok()) return s;
  if (order_no <= 0) return Invalid("order_no: must be > 0");
  return OwnOrder(*core_->deps.store, order_no, user, order);
}

Status SeckillServiceImpl::StartPayment(ServerContext& context, const StartPaymentRequest& request,
                                        StartPaymentResponse* response) {
  OrderRecord order;
  if (Status s = BuyersOrder(context, request.order_no(), &order); !s.ok()) return s;
  if (request.channel().empty() || request.channel().size() > 32) {
    return Invalid("channel: must be 1..32 bytes");
  }
  ChannelPayment payment;
  int64_t expires_at_ms = 0;
  if (Status s = core_->deps.payments->Start(order, request.channel(), &payment, &expires_at_ms);
      !s.ok()) {
    return s;
  }
  PaymentIntent* intent = response->mutable_intent();
  intent->set_channel(request.channel());
  intent->set_payment_id(payment.payment_id);
  intent->set_amount_cents(order.amount_cents);
  intent->set_currency(order.currency);
  intent->set_expires_at_ms(expires_at_ms);
  intent->set_checkout(payment.checkout);
  return Status::Ok();
}

Status SeckillServiceImpl::GetOrder(ServerContext& context, const GetOrderRequest& request,
                                    OrderView* response) {
  OrderRecord order;
  if (Status s = BuyersOrder(context, request.order_no(), &order); !s.ok()) return s;
  if (request.refresh()) {
    OrderRecord after;
    if (Status s = core_->deps.payments->Refresh(order, &after); !s.ok()) return s;
    order = after;
  }
  ToView(order, response);
  return Status::Ok();
}

Status SeckillServiceImpl::NotifyPayment(ServerContext&, const ChannelNotification& request,
                                         NotifyPaymentResponse* response) {
  NotifyResult result = NotifyResult::kUnchanged;
  if (Status s = core_->deps.payments->Notify(request.channel(), request.payload(),
                                              request.signature(), &result);
      !s.ok()) {
    return s;
  }
  response->set_outcome(result == NotifyResult::kApplied      ? APPLIED
                        : result == NotifyResult::kRefundOwed ? REFUND_OWED
                                                              : UNCHANGED);
  return Status::Ok();
}

Status SeckillServiceImpl::CancelOrder(ServerContext& context, const CancelOrderRequest& request,
                                       CancelOrderResponse* response) {
  OrderRecord order;
  if (Status s = BuyersOrder(context, request.order_no(), &order); !s.ok()) return s;
  CancelResult result;
  if (Status s = core_->deps.payments->Cancel(order, &result); !s.ok()) return s;
  response->set_cancelled(result.cancelled);
  response->set_state(std::string(OrderStateName(result.state)));
  return Status::Ok();
}

Status SeckillServiceImpl::Refund(ServerContext&, const RefundRequest& request,
                                  RefundResponse* response) {
  if (Status s = ValidPayment(request.channel(), request.channel_txn_id()); !s.ok()) return s;
  if (request.refund_id().empty() || request.refund_id().size() > kMaxIdLength) {
    return Invalid("refund_id: must be 1.." + std::to_string(kMaxIdLength) + " bytes");
  }
  RefundResult outcome = RefundResult::kRefunded;
  if (Status s = core_->deps.store->RecordRefund(request.channel(), request.channel_txn_id(),
                                                 request.refund_id(), &outcome);
      !s.ok()) {
    return s;
  }
  response->set_outcome(outcome == RefundResult::kRefunded ? REFUNDED : ALREADY_REFUNDED);
  return Status::Ok();
}

}  // namespace ferry::seckill
