#pragma once

#include <string>
#include <vector>

#include "storage/stats_store.h"

namespace ferry::shortlink {

// A link's days as CSV (RFC 4180, CRLF line ends): "day,visits,visitors,bot_visits", then one
// row a day, oldest first. Every field is a date or a number: nothing needs quoting, and no
// cell starts with '=', '+', '-' or '@' for a spreadsheet to run.
std::string DailyStatsCsv(const std::vector<DayCount>& days);

}  // namespace ferry::shortlink
