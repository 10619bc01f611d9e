#pragma once

#include <memory>

#include "ferry/storage/sql_connection_pool.h"
#include "storage/payment_store.h"

namespace ferry::paysim {

// PaymentStore over ferry::storage's SQL connections (SQLite: a file, or ":memory:" for tests).
class SqlPaymentStore final : public PaymentStore {
 public:
  explicit SqlPaymentStore(std::unique_ptr<storage::SqlConnectionPool> pool)
      : pool_(std::move(pool)) {}
  // Creates the tables when missing.
  Status Initialize();

  Status CreatePayment(const PaymentRecord& payment, PaymentRecord* out, bool* created) override;
  Status GetPayment(const std::string& merchant_id, int64_t order_no, PaymentRecord* out) override;
  Status GetPaymentByCheckout(const std::string& checkout, PaymentRecord* out) override;
  Status Transition(const std::string& merchant_id, int64_t order_no,
                    std::initializer_list<PaymentStatus> from, PaymentStatus to,
                    const std::string& channel_txn_id, const std::string& refund_id, bool* changed,
                    PaymentRecord* after) override;

  Status AddDelivery(const DeliveryRecord& delivery, int64_t* delivery_id) override;
  Status ListDueDeliveries(int64_t now_ms, int limit, std::vector<DeliveryRecord>* out) override;
  Status UpdateDelivery(const DeliveryRecord& delivery) override;
  Status GetNotification(const std::string& notification_id, DeliveryRecord* out) override;
  Status ListDeliveries(const std::string& merchant_id, int64_t order_no,
                        std::vector<DeliveryRecord>* out) override;

 private:
  Status ReadPayment(storage::SqlConnection& db, const char* where,
                     const std::vector<storage::SqlValue>& params, PaymentRecord* out);
  Status ReadDeliveries(const char* where, const std::vector<storage::SqlValue>& params,
                        std::vector<DeliveryRecord>* out);

  std::unique_ptr<storage::SqlConnectionPool> pool_;
};

}  // namespace ferry::paysim
