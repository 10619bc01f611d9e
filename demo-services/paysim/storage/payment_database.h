#pragma once

#include <memory>
#include <string>

#include "ferry/codec/status.h"
#include "storage/payment_store.h"

namespace ferry::paysim {

// The channel's store in SQLite at `path` with `connections` connections, tables created;
// ":memory:" keeps it in this process only (one connection, since each connection to
// ":memory:" would be a database of its own), for tests.
Status OpenPaymentStore(const std::string& path, int connections,
                        std::unique_ptr<PaymentStore>* out);

}  // namespace ferry::paysim
