#include "service/stats_csv.h"

namespace ferry::shortlink {

std::string DailyStatsCsv(const std::vector<DayCount>& days) {
  std::string csv = "day,visits,visitors,bot_visits\r\n";
  for (const DayCount& day : days) {
    csv += day.day + "," + std::to_string(day.pv) + "," + std::to_string(day.uv) + "," +
           std::to_string(day.bots) + "\r\n";
  }
  return csv;
}

}  // namespace ferry::shortlink
