#include "service/stock_signal.h"

#include <charconv>

namespace ferry::seckill {

namespace {

bool NextInt(std::string_view* rest, int64_t* out) {
  while (rest->starts_with(' ')) rest->remove_prefix(1);
  const char* end = rest->data() + rest->size();
  auto [ptr, ec] = std::from_chars(rest->data(), end, *out);
  if (ec != std::errc() || ptr == rest->data()) return false;
  rest->remove_prefix(static_cast<size_t>(ptr - rest->data()));
  return true;
}

}  // namespace

std::string EncodeStockSignal(const StockSignal& signal) {
  return std::string(signal.kind == StockSignal::Kind::kSoldOut ? "sold_out " : "reopened ") +
         std::to_string(signal.activity_id) + " " + std::to_string(signal.sku_id) + " " +
         std::to_string(signal.epoch);
}

bool DecodeStockSignal(std::string_view text, StockSignal* out) {
  StockSignal signal;
  if (text.starts_with("sold_out ")) {
    signal.kind = StockSignal::Kind::kSoldOut;
  } else if (text.starts_with("reopened ")) {
    signal.kind = StockSignal::Kind::kReopened;
  } else {
    return false;
  }
  text.remove_prefix(9);
  if (!NextInt(&text, &signal.activity_id) || !NextInt(&text, &signal.sku_id) ||
      !NextInt(&text, &signal.epoch) || !text.empty() || signal.activity_id <= 0) {
    return false;
  }
  *out = signal;
  return true;
}

}  // namespace ferry::seckill
