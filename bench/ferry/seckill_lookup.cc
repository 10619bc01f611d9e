#include <atomic>
#include <unordered_map>
#include <unordered_set>

#include "seckill_sale.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = kSeckillProgram;

}  // namespace

Sale::LookupCounts Sale::LookUpOrders(
    const std::vector<std::pair<uint32_t, bool>>& accepted_requests,
    std::vector<int64_t>* order_numbers) {
  // Counted from the callbacks, on any thread.
  struct {
    std::atomic<uint64_t> created{0};
    std::atomic<uint64_t> pending{0};
    std::atomic<uint64_t> failed{0};
    std::atomic<uint64_t> errors{0};
  } counts;
  order_numbers->assign(accepted_requests.size(), -1);
  auto requests = std::make_unique<seckill::GetResultRequest[]>(window_);
  std::unique_ptr<BoundedLoop> checker;
  checker = std::make_unique<BoundedLoop>(
      accepted_requests.size(), window_, [&](uint64_t index, uint32_t slot) {
        seckill::GetResultRequest& request = requests[slot];
        request.set_request_id(RequestId(activity_id_, accepted_requests[index].first,
                                         accepted_requests[index].second));
        request.set_activity_id(activity_id_);
        request.set_sku_id(options_.sku_id);
        request.set_user_id(UserId(activity_id_, accepted_requests[index].first));
        ProxyOf(slot).GetResultWithCallback(
            request,
            [&counts, &checker, order_numbers, index,
             slot](Result<seckill::GetResultResponse> result) {
              if (!result.ok()) {
                counts.errors.fetch_add(1, std::memory_order_relaxed);
              } else if (result->state() == seckill::CREATED) {
                counts.created.fetch_add(1, std::memory_order_relaxed);
                (*order_numbers)[index] = result->order_no();
              } else if (result->state() == seckill::PENDING) {
                counts.pending.fetch_add(1, std::memory_order_relaxed);
              } else {
                counts.failed.fetch_add(1, std::memory_order_relaxed);
              }
              checker->Next(slot);
            },
            AsBuyer(admin_options_, request.user_id()));
      });
  checker->Start();
  const Clock::time_point lookup_deadline =
      Clock::now() + Seconds(options_.settle_timeout_s) + admin_options_.timeout;
  if (!checker->WaitUntil(lookup_deadline)) {
    checker->Stop();
    err_ << kProgram << ": GetResult lookups did not finish; the ones not made count as lost\n";
    // Every call out has a timeout, so they all come back within one more.
    if (!checker->WaitUntil(Clock::now() + admin_options_.timeout + std::chrono::seconds(1))) {
      proxies_.clear();  // completes them as CANCELLED while `counts` is alive
    }
  }
  return {.created = counts.created.load(),
          .pending = counts.pending.load(),
          .failed = counts.failed.load(),
          .errors = counts.errors.load()};
}

Sale::OrderEvidence Sale::CheckOrderNumbers(
    const std::vector<std::pair<uint32_t, bool>>& accepted_requests,
    const std::vector<int64_t>& order_numbers) {
  OrderEvidence evidence;
  std::unordered_map<int64_t, uint32_t> owner;        // order number -> buyer
  std::unordered_map<uint32_t, int64_t> first_order;  // buyer -> an order number
  std::unordered_set<uint32_t> doubled;
  for (size_t i = 0; i < accepted_requests.size(); ++i) {
    const int64_t order_no = order_numbers[i];
    const uint32_t buyer = accepted_requests[i].first;
    if (order_no < 0) continue;  // not CREATED: counted as lost
    if (order_no == 0) {
      ++evidence.unnumbered;
      continue;
    }
    const auto [it, inserted] = owner.emplace(order_no, buyer);
    if (!inserted) {
      if (it->second != buyer) ++evidence.shared;
      continue;
    }
    const auto [mine, first] = first_order.emplace(buyer, order_no);
    if (!first && mine->second != order_no) doubled.insert(buyer);
  }
  evidence.orders = static_cast<int64_t>(owner.size());
  evidence.users_with_two_orders = static_cast<int64_t>(doubled.size());
  return evidence;
}

}  // namespace ferry::bench
