// ferry-bench seckill's payment phase: what a buyer's app does to pay (StartPayment at the
// provider, then the channel's checkout), and what the provider must make of it: PAID only once
// the channel said so, nothing changed by a replayed or a wrong-amount notification, and every
// order left unpaid closed at its deadline with its unit back in the stock.

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "channel_flags.h"
#include "paysim.ferry.h"
#include "seckill_sale.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = kSeckillProgram;
constexpr std::string_view kPaysimService = "ferry.paysim.PaysimService";
constexpr uint32_t kPayingThreads = 8;
constexpr auto kPoll = std::chrono::milliseconds(50);

Status OpenPaysim(const SeckillBenchOptions& options, bool as_operator,
                  std::shared_ptr<Channel>* out) {
  ChannelFlags flags;
  flags.timeout_ms = options.channel.timeout_ms;
  LoadOptions load;
  load.target = options.payments.paysim_target;
  if (as_operator) {
    return OpenOperatorChannel(flags, kPaysimService, load, options.payments.operator_key_id,
                               options.payments.operator_secret, out);
  }
  std::vector<std::shared_ptr<Channel>> opened;
  if (Status s = OpenChannels(flags, kPaysimService, load, &opened); !s.ok()) return s;
  *out = std::move(opened.front());
  return Status::Ok();
}

}  // namespace

std::string Sale::OrderState(int64_t order_no, const std::string& user) {
  seckill::GetOrderRequest request;
  request.set_order_no(order_no);
  Result<seckill::OrderView> order = proxies_[0].GetOrder(request, AsBuyer(admin_options_, user));
  return order.ok() ? order->state() : "";
}

void Sale::PayOrders(const std::vector<std::pair<uint32_t, bool>>& accepted_requests,
                     const std::vector<int64_t>& order_numbers, Findings* f) {
  const SeckillPaymentOptions& options = options_.payments;
  SeckillPaymentFindings& p = f->payments;
  if (options.paysim_target.empty()) return;
  p.ran = true;
  std::shared_ptr<Channel> paysim_channel;
  if (Status s = OpenPaysim(options_, false, &paysim_channel); !s.ok()) {
    p.errors = 1;
    p.first_error = "--pay-at: " + s.ToString();
    return;
  }
  paysim::PaysimServiceProxy paysim(paysim_channel);
  // The orders and their buyers; every k-th is paid, the others are left to the pay timeout.
  std::vector<std::pair<int64_t, std::string>> orders;
  for (size_t i = 0; i < order_numbers.size(); ++i) {
    if (order_numbers[i] > 0) {
      orders.emplace_back(order_numbers[i], UserId(activity_id_, accepted_requests[i].first));
    }
  }
  std::vector<std::pair<int64_t, std::string>> paying, unpaid;
  const int64_t wanted =
      static_cast<int64_t>(static_cast<double>(orders.size()) * options.pay_ratio + 0.5);
  const auto n = static_cast<int64_t>(orders.size());
  for (int64_t i = 0; i < n; ++i) {
    const bool pay = i * wanted / n != (i + 1) * wanted / n;  // `wanted` of them, evenly spread
    (pay ? paying : unpaid).push_back(orders[static_cast<size_t>(i)]);
  }
  p.selected = static_cast<int64_t>(paying.size());

  std::mutex mu;
  std::atomic<size_t> next{0};
  auto note_error = [&](const std::string& what) {
    std::lock_guard lock(mu);
    if (p.errors++ == 0) p.first_error = what;
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < std::min<size_t>(kPayingThreads, paying.size()); ++t) {
    threads.emplace_back([&, t] {
      seckill::SeckillServiceProxy& provider = proxies_[t % proxies_.size()];
      for (size_t i = next.fetch_add(1); i < paying.size(); i = next.fetch_add(1)) {
        const auto& [order_no, user] = paying[i];
        seckill::StartPaymentRequest start;
        start.set_order_no(order_no);
        start.set_channel(options.channel);
        Result<seckill::StartPaymentResponse> intent =
            provider.StartPayment(start, AsBuyer(admin_options_, user));
        if (!intent.ok()) {
          note_error("StartPayment: " + intent.status().ToString());
          continue;
        }
        paysim::CheckoutRequest checkout;
        checkout.set_checkout(intent->intent().checkout());
        checkout.set_outcome(paysim::PAY);
        Result<paysim::CheckoutResponse> paid = paysim.Checkout(checkout, admin_options_);
        if (!paid.ok() || paid->state() != paysim::SUCCEEDED) {
          note_error("Checkout: " + (paid.ok() ? paysim::PaymentState_Name(paid->state())
                                               : paid.status().ToString()));
          continue;
        }
        std::lock_guard lock(mu);
        ++p.checked_out;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  // The channel tells the provider; each paid order must turn PAID within the settle timeout.
  const Clock::time_point deadline = Clock::now() + Seconds(options_.settle_timeout_s);
  std::vector<std::pair<int64_t, std::string>> waiting = paying;
  while (!waiting.empty() && Clock::now() < deadline) {
    std::erase_if(waiting, [&](const auto& order) {
      if (OrderState(order.first, order.second) != "PAID") return false;
      ++p.confirmed;
      return true;
    });
    if (!waiting.empty()) std::this_thread::sleep_for(kPoll);
  }
  out_ << kProgram << ": paid " << p.checked_out << " of " << p.selected
       << " chosen orders at the channel; " << p.confirmed << " PAID at the provider\n";
  if (!options.operator_key_id.empty() && !paying.empty() && !unpaid.empty()) {
    ProbeNotifications(paying.front().first, paying.front().second, unpaid.front().first,
                       unpaid.front().second, &p);
  }
  if (options.await_closes) AwaitCloses(&p);
}

void Sale::ProbeNotifications(int64_t paid_order, const std::string& paid_user,
                              int64_t unpaid_order, const std::string& unpaid_user,
                              SeckillPaymentFindings* p) {
  const SeckillPaymentOptions& options = options_.payments;
  p->probed = true;
  std::shared_ptr<Channel> channel;
  if (Status s = OpenPaysim(options_, true, &channel); !s.ok()) {
    p->probe_note = "--paysim-operator-key: " + s.ToString();
    return;
  }
  paysim::PaysimServiceProxy operator_paysim(channel);
  auto deliveries = [&](int64_t order_no) {
    paysim::ListNotificationsRequest list;
    list.set_merchant_id(options.merchant_id);
    list.set_order_no(order_no);
    Result<paysim::ListNotificationsResponse> listed =
        operator_paysim.ListNotifications(list, admin_options_);
    return listed.ok() ? *listed : paysim::ListNotificationsResponse{};
  };
  const paysim::ListNotificationsResponse sent = deliveries(paid_order);
  if (sent.notifications_size() == 0) {
    p->probe_note = "no notification of order " + std::to_string(paid_order) + " to replay";
    return;
  }
  // The wrong amount is for a payment the channel holds: started by its buyer, never paid.
  seckill::StartPaymentRequest start;
  start.set_order_no(unpaid_order);
  start.set_channel(options.channel);
  Result<seckill::StartPaymentResponse> started =
      proxies_[0].StartPayment(start, AsBuyer(admin_options_, unpaid_user));
  if (!started.ok()) {
    p->probe_note = "StartPayment of order " + std::to_string(unpaid_order) + ": " +
                    started.status().ToString();
    return;
  }
  const ReconcileResponseOrError before = ReconcileNow();
  paysim::ReplayNotificationRequest replay;
  replay.set_notification_id(sent.notifications(0).notification_id());
  Result<paysim::NotificationRef> replayed =
      operator_paysim.ReplayNotification(replay, admin_options_);
  paysim::SendForgedAmountRequest forged;
  forged.set_merchant_id(options.merchant_id);
  forged.set_order_no(unpaid_order);
  forged.set_amount_cents(1);  // the activity's price is 100
  Result<paysim::NotificationRef> forged_sent =
      operator_paysim.SendForgedAmount(forged, admin_options_);
  if (!replayed.ok() || !forged_sent.ok()) {
    p->probe_note = "ReplayNotification: " + replayed.status().ToString() +
                    ", SendForgedAmount: " + forged_sent.status().ToString();
    return;
  }
  p->probe_sent = true;
  // Both have been answered once the channel shows their deliveries tried.
  const Clock::time_point deadline = Clock::now() + Seconds(options_.settle_timeout_s);
  auto tried = [&](int64_t order_no, size_t deliveries_wanted) {
    const paysim::ListNotificationsResponse now = deliveries(order_no);
    if (static_cast<size_t>(now.notifications_size()) < deliveries_wanted) return false;
    const paysim::NotificationView& last = now.notifications(now.notifications_size() - 1);
    return last.attempts() > 0;
  };
  while (Clock::now() < deadline &&
         !(tried(paid_order, sent.notifications_size() + 1) && tried(unpaid_order, 1))) {
    std::this_thread::sleep_for(kPoll);
  }
  const paysim::ListNotificationsResponse forged_view = deliveries(unpaid_order);
  const std::string forged_error =
      forged_view.notifications_size() > 0 ? forged_view.notifications(0).last_error() : "";
  const ReconcileResponseOrError after = ReconcileNow();
  p->replay_changed_nothing = OrderState(paid_order, paid_user) == "PAID" && before.ok &&
                              after.ok &&
                              after.response.orders_paid() == before.response.orders_paid() &&
                              after.response.paid_without_payment() == 0;
  p->forged_refused = OrderState(unpaid_order, unpaid_user) != "PAID" && !forged_error.empty();
  p->probe_note = "replayed notification of order " + std::to_string(paid_order) +
                  (p->replay_changed_nothing ? ": changed nothing" : ": CHANGED the counts") +
                  "; wrong amount for order " + std::to_string(unpaid_order) +
                  (p->forged_refused ? ": refused (" + forged_error + ")" : ": NOT refused");
  out_ << kProgram << ": " << p->probe_note << "\n";
}

Sale::ReconcileResponseOrError Sale::ReconcileNow() {
  seckill::ActivityRef ref;
  ref.set_activity_id(activity_id_);
  Result<seckill::ReconcileResponse> r = operator_->Reconcile(ref, admin_options_);
  return r.ok() ? ReconcileResponseOrError{true, *r} : ReconcileResponseOrError{};
}

void Sale::AwaitCloses(SeckillPaymentFindings* p) {
  p->closes_awaited = true;
  // Every unpaid order closes at its pay deadline; give the closer, the releases and the
  // confirmation of late payments the settle timeout beyond it.
  const Clock::time_point deadline =
      Clock::now() + Seconds(options_.pay_timeout_s + options_.settle_timeout_s);
  out_ << kProgram << ": waiting out the pay timeout (" << options_.pay_timeout_s
       << " s) for the unpaid orders to close" << std::endl;
  while (Clock::now() < deadline) {
    const ReconcileResponseOrError now = ReconcileNow();
    if (now.ok &&
        now.response.orders_unpaid() + now.response.orders_paying() +
                now.response.orders_confirming() ==
            0 &&
        now.response.releases_pending() == 0 && now.response.reservations_without_order() <= 0) {
      p->closed = now.response;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

std::vector<std::string> PaymentFailures(const SeckillPaymentFindings& p, int64_t orders,
                                         int64_t stock) {
  std::vector<std::string> failures;
  if (!p.ran) return failures;
  if (p.errors > 0) {
    failures.push_back("payments: " + std::to_string(p.errors) + " failed (" + p.first_error + ")");
  }
  if (p.confirmed != p.checked_out) {
    failures.push_back("payments: " + std::to_string(p.checked_out) + " paid at the channel, " +
                       std::to_string(p.confirmed) + " PAID at the provider");
  }
  if (p.probed && !p.probe_sent) failures.push_back("payments: " + p.probe_note);
  if (p.probe_sent && !p.replay_changed_nothing) {
    failures.push_back("payments: a replayed notification changed the sale");
  }
  if (p.probe_sent && !p.forged_refused) {
    failures.push_back("payments: a notification with a wrong amount was not refused");
  }
  if (p.closes_awaited && !p.closed) {
    failures.push_back("payments: orders still open after the pay timeout");
  }
  if (const auto& c = p.closed) {
    const int64_t unpaid = orders - p.confirmed;
    if (c->orders_paid() != p.confirmed || c->orders_cancelled() != unpaid) {
      failures.push_back("after the pay timeout: paid " + std::to_string(c->orders_paid()) +
                         " and closed " + std::to_string(c->orders_cancelled()) + ", expected " +
                         std::to_string(p.confirmed) + " and " + std::to_string(unpaid));
    }
    if (c->database_stock() != stock - p.confirmed ||
        (c->cache_stock() >= 0 && c->cache_stock() != c->database_stock())) {
      failures.push_back("after the pay timeout: database stock " +
                         std::to_string(c->database_stock()) + ", cache stock " +
                         std::to_string(c->cache_stock()) + ", expected " +
                         std::to_string(stock - p.confirmed) + " (every closed unit back)");
    }
    if (!c->invariants_hold()) failures.push_back("after the pay timeout: invariants broken");
  }
  return failures;
}

void PrintPayments(std::ostream& out, const SeckillPaymentFindings& p) {
  if (!p.ran) return;
  out << "payments: " << p.selected << " orders chosen, " << p.checked_out
      << " paid at the channel, " << p.confirmed << " PAID at the provider, " << p.errors
      << " errors";
  if (p.probed) out << "; " << p.probe_note;
  if (const auto& c = p.closed) {
    out << "; after the pay timeout: paid " << c->orders_paid() << ", closed "
        << c->orders_cancelled() << ", database stock " << c->database_stock() << ", cache stock "
        << c->cache_stock();
  }
  out << "\n";
}

}  // namespace ferry::bench
