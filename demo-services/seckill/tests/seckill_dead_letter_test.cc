// Poison order events end: dead-lettered after max_deliveries with their reservation
// compensated; re-drives by one lease holder at a time, bounded; acknowledged entries trimmed.
#include "seckill_failure_fixture.h"

namespace ferry::seckill::failure_test {
namespace {

// --- poison events: dead letters and compensation --------------------------------------------

// A reservation's event arrives damaged (its order number unreadable), and an entry that is no
// event at all sits in the queue. Each is handed out order_writer.max_deliveries times, then
// moved to the dead-letter queue and counted; the damaged reservation ends FAILED and its unit
// goes back to the cache exactly once, so the stock the cache sells matches the database's.
TEST_F(SeckillFailureTest, AnUnparsableEventIsDeadLetteredAndItsUnitReturnedOnce) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(3);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "p0"), ACCEPTED);
  // Its event is replaced by a damaged copy.
  std::vector<ReservationEvent> original;
  ASSERT_TRUE(provider.cache().ReadEvents(id, kSku, "thief", 10, &original).ok());
  ASSERT_EQ(original.size(), 1u);
  ASSERT_TRUE(provider.cache().Ack(id, kSku, {original[0].event_id}).ok());
  const std::string orders = ActivityKey(id, "orders");
  const std::string letters = ActivityKey(id, "dead_letters");
  EXPECT_FALSE(RedisText({"XADD", orders, "*", "activity", std::to_string(id), "sku",
                          std::to_string(kSku), "user", "p0", "request", "p0-r", "order_no",
                          "garbled", "reserved_ms", std::to_string(original[0].reserved_ms)})
                   .empty());
  EXPECT_FALSE(RedisText({"XADD", orders, "*", "written", "by something else"}).empty());

  const SeckillMetrics& metrics = Metrics();
  const uint64_t before = metrics.dead_letters_unparsable->Value();
  OrderWriter writer(provider.core(),
                     {.consumer = "w", .batch = 8, .claim_idle_ms = 1, .max_deliveries = 3});
  writer.Step();  // first delivery
  writer.Step();  // second
  EXPECT_EQ(RedisInt({"XLEN", letters}), 0);
  EXPECT_EQ(provider.Result(id, "p0", "p0-r").state(), PENDING);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return RedisInt({"XLEN", letters}) == 2;
  }));
  EXPECT_EQ(metrics.dead_letters_unparsable->Value() - before, 2u);
  const std::string letter = RedisText({"XRANGE", letters, "-", "+"});
  EXPECT_NE(letter.find("reason,unparsable,detail,field order_no is not an integer,event_id,"),
            std::string::npos)
      << letter;
  EXPECT_NE(letter.find(R"("user","p0","request","p0-r","order_no","garbled")"), std::string::npos)
      << letter;
  EXPECT_NE(letter.find(R"(["written","by something else"])"), std::string::npos) << letter;
  GetResultResponse result = provider.Result(id, "p0", "p0-r");
  EXPECT_EQ(result.state(), FAILED);
  EXPECT_EQ(result.reason(), kReasonUnparsable);

  // The unit is back in the cache and the database never lost it.
  ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
  EXPECT_EQ(report.queue_backlog(), 0);

  // A re-driven copy of the reservation arrives later: it replays the failure and returns
  // nothing a second time.
  ASSERT_TRUE(provider.cache().Requeue(original[0]).ok());
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return provider.Reconcile(id).queue_backlog() == 0;
  }));
  report = provider.Reconcile(id);
  EXPECT_EQ(report.cache_stock(), 3);
  EXPECT_EQ(report.orders_unpaid(), 0);
  EXPECT_EQ(provider.Result(id, "p0", "p0-r").state(), FAILED);

  // The returned unit sells once more, to someone else; the failed buyer has joined.
  EXPECT_EQ(provider.Buy(id, "p0", "p0-again"), ALREADY_JOINED);
  for (int i = 1; i <= 3; ++i) ASSERT_EQ(provider.Buy(id, "p" + std::to_string(i)), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "p4"), SOLD_OUT);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return provider.Reconcile(id).orders_unpaid() == 3;
  }));
  report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
}

// Two reservations got the same order number; the second one's transaction can never commit.
// After max_deliveries it is dead-lettered with the database's error, FAILED (write_failed),
// and its unit returned: the cache and the database agree on the stock again.
TEST_F(SeckillFailureTest, AnEventWhoseTransactionKeepsFailingIsDeadLetteredAndCompensated) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "f0"), ACCEPTED);
  provider.RepeatNextOrderNo();
  ASSERT_EQ(provider.Buy(id, "f1"), ACCEPTED);

  const SeckillMetrics& metrics = Metrics();
  const uint64_t before = metrics.dead_letters_write_failed->Value();
  const std::string letters = ActivityKey(id, "dead_letters");
  OrderWriter writer(provider.core(),
                     {.consumer = "w", .batch = 8, .claim_idle_ms = 1, .max_deliveries = 4});
  for (int delivery = 1; delivery < 4; ++delivery) writer.Step();
  EXPECT_EQ(RedisInt({"XLEN", letters}), 0);
  EXPECT_EQ(provider.Result(id, "f1", "f1-r").state(), PENDING);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return RedisInt({"XLEN", letters}) == 1;
  }));
  EXPECT_EQ(metrics.dead_letters_write_failed->Value() - before, 1u);
  const std::string letter = RedisText({"XRANGE", letters, "-", "+"});
  EXPECT_NE(letter.find("reason,write_failed,detail,ALREADY_EXISTS"), std::string::npos) << letter;
  EXPECT_NE(letter.find(R"("user","f1","request","f1-r")"), std::string::npos) << letter;
  EXPECT_EQ(provider.Result(id, "f0", "f0-r").state(), CREATED);
  const GetResultResponse failed = provider.Result(id, "f1", "f1-r");
  EXPECT_EQ(failed.state(), FAILED);
  EXPECT_EQ(failed.reason(), kReasonWriteFailed);

  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 1);
  EXPECT_EQ(report.database_stock(), 4);
  EXPECT_EQ(report.cache_stock(), 4);
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.queue_backlog(), 0);
}

// --- re-drives: one provider at a time, bounded ----------------------------------------------

// Two providers reconcile the same activity at the same moment, five reservations overdue:
// only the holder of the re-drive lease queues them again, at most redrive_batch per pass, and
// each once per grace period; the other provider's passes queue nothing.
TEST_F(SeckillFailureTest, OnlyTheLeaseHolderRedrivesAndEachPassIsBounded) {
  constexpr int64_t kGraceMs = 1500;
  HandBuiltProvider first(config_, kGraceMs, "first", /*redrive_batch=*/3);
  HandBuiltProvider second(config_, kGraceMs, "second", /*redrive_batch=*/3);
  const int64_t id = first.CreateOpenActivity(10);
  ASSERT_GT(id, 0);
  constexpr int kLost = 5;
  for (int i = 0; i < kLost; ++i) ASSERT_EQ(first.Buy(id, "l" + std::to_string(i)), ACCEPTED);
  std::vector<ReservationEvent> lost;
  ASSERT_TRUE(first.cache().ReadEvents(id, kSku, "lost", 10, &lost).ok());
  ASSERT_EQ(lost.size(), static_cast<size_t>(kLost));
  std::vector<std::string> ids;
  for (const ReservationEvent& e : lost) ids.push_back(e.event_id);
  ASSERT_TRUE(first.cache().Ack(id, kSku, ids).ok());
  const std::string orders = ActivityKey(id, "orders");
  const int64_t length_before = RedisInt({"XLEN", orders});
  std::this_thread::sleep_for(std::chrono::milliseconds(kGraceMs + 100));

  auto both = [&] {
    ReconcileResponse a;
    ReconcileResponse b;
    std::thread x([&] { a = first.Reconcile(id); });
    std::thread y([&] { b = second.Reconcile(id); });
    x.join();
    y.join();
    EXPECT_TRUE(a.redriven() == 0 || b.redriven() == 0) << a.redriven() << " and " << b.redriven();
    return a.redriven() + b.redriven();
  };
  EXPECT_EQ(both(), 3);
  EXPECT_EQ(both(), 0);  // the three are queued again: nothing else is searched for meanwhile
  EXPECT_EQ(RedisInt({"XLEN", orders}) - length_before, 3);
  OrderWriter writer(first.core(), {.consumer = "w", .batch = 8, .claim_idle_ms = 1000});
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    CacheSnapshot snapshot;
    return first.cache().Snapshot(id, kSku, &snapshot).ok() && snapshot.queue_pending == 0 &&
           snapshot.queue_undelivered == 0;
  }));
  EXPECT_EQ(both(), 2);  // the rest, once the queue is empty
  EXPECT_EQ(both(), 0);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return first.Reconcile(id).reservations_without_order() == 0;
  }));
  const ReconcileResponse report = first.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kLost);
  EXPECT_EQ(report.database_stock(), 10 - kLost);
  EXPECT_EQ(report.cache_stock(), 10 - kLost);
}

// --- the queue does not grow without bound ---------------------------------------------------

TEST_F(SeckillFailureTest, AcknowledgedEventsDoNotGrowTheQueue) {
  HandBuiltProvider provider(config_);
  constexpr int kRounds = 5;
  constexpr int kPerRound = 40;
  const int64_t id = provider.CreateOpenActivity(kRounds * kPerRound);
  ASSERT_GT(id, 0);
  const std::string orders = ActivityKey(id, "orders");
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kPerRound; ++i) {
      ASSERT_EQ(provider.Buy(id, "t" + std::to_string(round) + "-" + std::to_string(i)), ACCEPTED);
    }
    ASSERT_TRUE(Eventually([&] {
      writer.Step();
      return provider.Reconcile(id).queue_backlog() == 0;
    }));
    // Only the last delivered entry stays, marking the group's position.
    EXPECT_LE(RedisInt({"XLEN", orders}), 1) << "round " << round;
  }
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kRounds * kPerRound);
  EXPECT_EQ(report.reservations_without_order(), 0);
}

}  // namespace
}  // namespace ferry::seckill::failure_test
