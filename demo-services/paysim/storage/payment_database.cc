#include "storage/payment_database.h"

#include "ferry/storage/sqlite_connection.h"
#include "storage/sql_payment_store.h"

namespace ferry::paysim {

Status OpenPaymentStore(const std::string& path, int connections,
                        std::unique_ptr<PaymentStore>* out) {
  const bool in_memory = path == ":memory:";
  storage::SqliteOptions options;
  options.path = path;
  // Money is recorded here: a payment answered SUCCEEDED survives a crash of the machine.
  options.synchronous = storage::SqliteSynchronous::kFull;
  auto pool = std::make_unique<storage::SqlConnectionPool>(
      [options](std::unique_ptr<storage::SqlConnection>* connection) {
        return storage::SqliteConnection::Open(options, connection);
      },
      in_memory ? 1 : static_cast<size_t>(connections));
  auto store = std::make_unique<SqlPaymentStore>(std::move(pool));
  if (Status s = store->Initialize(); !s.ok()) return s;
  *out = std::move(store);
  return Status::Ok();
}

}  // namespace ferry::paysim
