#include "service/paysim_service.h"

#include "service/merchant_auth.h"

namespace ferry::paysim {

Status PaysimServiceImpl::Admit(std::string_view method, const MerchantCall& call,
                                google::protobuf::Message* body) const {
  if (parts_.faults->unavailable.load()) {
    return Status(StatusCode::UNAVAILABLE, "paysim: unavailable (SetFaults)");
  }
  return VerifyMerchantCall(*parts_.merchants, method, call, parts_.now_ms(), parts_.max_skew_ms,
                            body);
}

Status PaysimServiceImpl::CreatePayment(ServerContext&, const MerchantCall& request,
                                        PaymentResponse* response) {
  CreatePaymentRequest body;
  if (Status s = Admit("CreatePayment", request, &body); !s.ok()) return s;
  return parts_.desk->Create(request.merchant_id(), body, response->mutable_payment());
}

Status PaysimServiceImpl::QueryPayment(ServerContext&, const MerchantCall& request,
                                       PaymentResponse* response) {
  PaymentRef body;
  if (Status s = Admit("QueryPayment", request, &body); !s.ok()) return s;
  return parts_.desk->Query(request.merchant_id(), body.order_no(), response->mutable_payment());
}

Status PaysimServiceImpl::ClosePayment(ServerContext&, const MerchantCall& request,
                                       PaymentResponse* response) {
  PaymentRef body;
  if (Status s = Admit("ClosePayment", request, &body); !s.ok()) return s;
  return parts_.desk->Close(request.merchant_id(), body.order_no(), response->mutable_payment());
}

Status PaysimServiceImpl::RefundPayment(ServerContext&, const MerchantCall& request,
                                        PaymentResponse* response) {
  RefundPaymentRequest body;
  if (Status s = Admit("RefundPayment", request, &body); !s.ok()) return s;
  return parts_.desk->Refund(request.merchant_id(), body, response->mutable_payment());
}

Status PaysimServiceImpl::Checkout(ServerContext&, const CheckoutRequest& request,
                                   CheckoutResponse* response) {
  return parts_.desk->Checkout(request, response);
}

Status PaysimServiceImpl::ReplayNotification(ServerContext&,
                                             const ReplayNotificationRequest& request,
                                             NotificationRef* response) {
  if (Status s = parts_.notices->Replay(request.notification_id()); !s.ok()) return s;
  response->set_notification_id(request.notification_id());
  return Status::Ok();
}

Status PaysimServiceImpl::SendForgedAmount(ServerContext&, const SendForgedAmountRequest& request,
                                           NotificationRef* response) {
  PaymentRecord payment;
  if (Status s = parts_.desk->Current(request.merchant_id(), request.order_no(), &payment);
      !s.ok()) {
    return s;
  }
  return parts_.notices->SendForgedAmount(payment, request.amount_cents(),
                                          response->mutable_notification_id());
}

Status PaysimServiceImpl::SetFaults(ServerContext&, const SetFaultsRequest& request,
                                    SetFaultsResponse*) {
  parts_.faults->unavailable.store(request.unavailable());
  return Status::Ok();
}

Status PaysimServiceImpl::ListNotifications(ServerContext&, const ListNotificationsRequest& request,
                                            ListNotificationsResponse* response) {
  std::vector<DeliveryRecord> deliveries;
  if (Status s =
          parts_.store->ListDeliveries(request.merchant_id(), request.order_no(), &deliveries);
      !s.ok()) {
    return s;
  }
  for (const DeliveryRecord& d : deliveries) {
    NotificationView* view = response->add_notifications();
    view->set_notification_id(d.notification_id);
    view->set_payload(d.payload);
    view->set_signature(d.signature);
    view->set_attempts(static_cast<int32_t>(d.attempts));
    view->set_state(std::string(DeliveryStateName(d.state)));
    view->set_last_error(d.last_error);
    view->set_delivery_id(d.delivery_id);
  }
  return Status::Ok();
}

}  // namespace ferry::paysim
