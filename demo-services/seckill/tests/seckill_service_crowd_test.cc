// The seckill provider over RPC, on both backends (seckill_service_fixture.h): 10 units among
// 5,000 concurrent buyers with duplicates.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "seckill_service_fixture.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

// --- the crowd -----------------------------------------------------------------------------

TEST_P(SeckillServiceTest, TenUnitsAmongFiveThousandConcurrentBuyersWithDuplicates) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  constexpr int64_t kStock = 10;
  constexpr int kBuyers = 4500;
  constexpr int kHot = 60;       // buyers whose duplicates race them before the sell-out
  constexpr int kRetries = 250;  // the same request id again
  constexpr int kRebuys = 250;   // the same user with a new request id
  constexpr int kCallers = 48;
  const int64_t id = CreateActivity(proxy(), {.stock = kStock});
  ASSERT_GT(id, 0);

  struct Call {
    std::string user;
    std::string request;
  };
  auto original = [](int user) {
    return Call{"user-" + std::to_string(user), "req-" + std::to_string(user)};
  };
  auto rebuy = [](int user) {
    return Call{"user-" + std::to_string(user), "req-" + std::to_string(user) + "-again"};
  };
  std::mt19937 rng(20240611);
  // First the hot buyers, each with a retry and a rebuy, all at once; then everyone else with
  // the remaining duplicates, in random order.
  std::vector<Call> hot;
  for (int i = 0; i < kHot; ++i) {
    hot.push_back(original(i));
    hot.push_back(original(i));
    hot.push_back(rebuy(i));
  }
  std::shuffle(hot.begin(), hot.end(), rng);
  std::vector<Call> rest;
  for (int i = kHot; i < kBuyers; ++i) rest.push_back(original(i));
  for (int i = kHot; i < kRetries; ++i) rest.push_back(original(static_cast<int>(rng() % kBuyers)));
  for (int i = kHot; i < kRebuys; ++i) rest.push_back(rebuy(static_cast<int>(rng() % kBuyers)));
  std::shuffle(rest.begin(), rest.end(), rng);
  std::vector<Call> calls = std::move(hot);
  calls.insert(calls.end(), rest.begin(), rest.end());
  ASSERT_EQ(calls.size(), static_cast<size_t>(kBuyers + kRetries + kRebuys));

  std::vector<PurchaseAnswer> answers(calls.size(), PURCHASE_ANSWER_UNSPECIFIED);
  std::vector<std::string> errors(calls.size());
  std::atomic<size_t> next{0};
  std::atomic<int> overloaded{0};
  const auto deadline = std::chrono::steady_clock::now() + 45s;
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&] {
      for (size_t i = next++; i < calls.size(); i = next++) {
        while (std::chrono::steady_clock::now() < deadline) {
          auto r = proxy().Purchase(Purchase(id, 77, calls[i].user, calls[i].request));
          if (r.ok()) {
            answers[i] = r->answer();
            break;
          }
          // Shed before it ran: retry the same request, as a client would.
          if (r.status().code() == StatusCode::OVERLOADED) {
            ++overloaded;
            std::this_thread::sleep_for(1ms);
            continue;
          }
          errors[i] = r.status().ToString();
          break;
        }
      }
    });
  }
  for (auto& caller : callers) caller.join();

  std::map<std::string, PurchaseAnswer> by_request;
  std::map<std::string, std::set<std::string>> accepted_by_user;
  std::map<PurchaseAnswer, int> tally;
  for (size_t i = 0; i < calls.size(); ++i) {
    ASSERT_TRUE(errors[i].empty()) << calls[i].request << ": " << errors[i];
    ASSERT_NE(answers[i], PURCHASE_ANSWER_UNSPECIFIED) << calls[i].request << ": no answer in time";
    auto [it, first] = by_request.emplace(calls[i].request, answers[i]);
    if (!first) {
      EXPECT_EQ(it->second, answers[i]) << "request " << calls[i].request << " answered twice";
    }
    ++tally[answers[i]];
    EXPECT_TRUE(answers[i] == ACCEPTED || answers[i] == SOLD_OUT || answers[i] == ALREADY_JOINED)
        << calls[i].request << ": " << PurchaseAnswer_Name(answers[i]);
    if (answers[i] == ACCEPTED) accepted_by_user[calls[i].user].insert(calls[i].request);
  }
  std::vector<std::string> accepted;
  for (const auto& [user, requests] : accepted_by_user) {
    EXPECT_EQ(requests.size(), 1u) << user << " was accepted twice";
    accepted.insert(accepted.end(), requests.begin(), requests.end());
  }
  EXPECT_EQ(accepted.size(), static_cast<size_t>(kStock));
  std::cout << "answers: accepted " << tally[ACCEPTED] << ", sold out " << tally[SOLD_OUT]
            << ", already joined " << tally[ALREADY_JOINED] << "; overloaded retries "
            << overloaded.load() << "\n";

  // Every accepted request ends as exactly one order, each its own.
  const ReconcileResponse report = Settle(proxy(), id, [](const ReconcileResponse& r) {
    return r.orders_unpaid() + r.orders_paid() + r.orders_cancelled() >= kStock;
  });
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kStock);
  EXPECT_EQ(report.orders_paid() + report.orders_cancelled(), 0);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.reservations(), kStock);
  EXPECT_EQ(report.reservations_without_order(), 0);
  if (cached()) {
    EXPECT_EQ(report.cache_stock(), 0);
  }
  std::set<int64_t> order_numbers;
  for (const std::string& request : accepted) {
    const int64_t order_no = WaitCreated(proxy(), id, 77, request);
    EXPECT_TRUE(order_numbers.insert(order_no).second) << "order " << order_no << " twice";
    OrderRecord order;
    ASSERT_TRUE(store().GetOrder(order_no, &order).ok());
    EXPECT_EQ(order.request_id, request);
  }
  // Nothing more is written later.
  std::this_thread::sleep_for(200ms);
  const ReconcileResponse later = Settle(proxy(), id);
  EXPECT_EQ(later.orders_unpaid(), kStock);
  EXPECT_TRUE(later.invariants_hold()) << later.ShortDebugString();
}

}  // namespace
}  // namespace ferry::seckill
