#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::seckill {

// What providers tell each other about an activity's stock (the broadcast, README "Sold-out
// broadcast"): none left, or units back. The generation lets a receiver that has read a newer
// one ignore a sold-out message about an older one.
struct StockSignal {
  enum class Kind { kSoldOut, kReopened };
  Kind kind = Kind::kSoldOut;
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  int64_t epoch = 0;  // the cache generation (0: not known)
};

// "sold_out <activity> <sku> <epoch>" or "reopened <activity> <sku> <epoch>".
std::string EncodeStockSignal(const StockSignal& signal);
// False for anything else (a message some other publisher sent on the channel).
bool DecodeStockSignal(std::string_view text, StockSignal* out);

}  // namespace ferry::seckill
