#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "seckill.pb.h"

namespace ferry::bench {

// ferry-bench seckill's payment phase (--pay-at): buyers of some orders pay them at the
// simulated channel (demo-services/paysim), the provider hears of it from the channel, and the
// rest are left to the pay timeout.
struct SeckillPaymentOptions {
  std::string paysim_target;  // --pay-at HOST:PORT; empty: nobody pays
  double pay_ratio = 0.1;     // --pay-ratio: fraction of the orders paid
  std::string channel = "sim";
  std::string merchant_id = "seckill";  // the provider's merchant id at the channel
  // --paysim-operator-key ID:SECRET_FILE: also replays one notification and sends one with a
  // wrong amount (paysim's operator methods), which must change nothing.
  std::string operator_key_id;
  std::string operator_secret;
  // --await-closes: waits out the pay timeout and checks that every order not paid was closed
  // and its unit went back to the stock.
  bool await_closes = false;
};

struct SeckillPaymentFindings {
  bool ran = false;
  int64_t selected = 0;     // orders chosen to be paid
  int64_t checked_out = 0;  // paid at the channel (Checkout SUCCEEDED)
  int64_t confirmed = 0;    // PAID at the provider afterwards, with the order's amount
  int64_t errors = 0;
  std::string first_error;
  // The replayed and the wrong-amount notifications (with --paysim-operator-key).
  bool probed = false;
  bool probe_sent = false;  // both were sent (else probe_note says why not)
  bool replay_changed_nothing = false;
  bool forged_refused = false;
  std::string probe_note;
  // --await-closes: the provider's counts once no order is open.
  bool closes_awaited = false;
  std::optional<seckill::ReconcileResponse> closed;
};

// What the payment phase must have found, given the sale's `orders` (distinct, created) and
// `stock`: every order paid at the channel PAID; the replay and the wrong amount changed
// nothing; once closes are awaited, the unpaid orders closed and their units back in stock.
std::vector<std::string> PaymentFailures(const SeckillPaymentFindings& p, int64_t orders,
                                         int64_t stock);
// The summary's "payments:" line (nothing when the phase did not run).
void PrintPayments(std::ostream& out, const SeckillPaymentFindings& p);

}  // namespace ferry::bench
