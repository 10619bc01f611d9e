// Stats and ExportStats of ShortLinkServiceImpl: a link's counters, as a message or as CSV.
#include <algorithm>

#include "service/api_key_filter.h"
#include "service/shortlink_service.h"
#include "service/stats_csv.h"
#include "storage/link_key.h"

namespace ferry::shortlink {

namespace {

constexpr int kStatsReferrers = 20;  // the top referrer hosts Stats lists

void AddCounts(const std::vector<std::pair<std::string, int64_t>>& counts,
               const std::function<NameCount*()>& add) {
  for (const auto& [name, visits] : counts) {
    NameCount* out = add();
    out->set_name(name);
    out->set_visits(visits);
  }
}

}  // namespace

Status ShortLinkServiceImpl::ReadStats(ServerContext& context, const StatsRequest& request,
                                       StatsRead* out) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  const int64_t to_ms = request.to_ms() == 0 ? deps_.now_ms() : request.to_ms();
  if (request.from_ms() < 0 || to_ms < request.from_ms()) {
    return Status(StatusCode::INVALID_ARGUMENT, "from_ms..to_ms: expected 0 <= from_ms <= to_ms");
  }
  LinkRecord record;
  if (Status s = FindOwned(tenant_id, request.domain(), request.code(), &record); !s.ok()) {
    return s;
  }
  out->key = record.code;
  // No day before the link's own counts anything (and a CSV named from 1970 helps nobody).
  const int64_t from_ms = std::max(request.from_ms(), std::min(record.created_at_ms, to_ms));
  out->from_day = UtcDay(from_ms);
  out->to_day = UtcDay(to_ms);
  return deps_.stats->Read(record.code, out->from_day, out->to_day, kStatsReferrers, &out->stats);
}

Status ShortLinkServiceImpl::Stats(ServerContext& context, const StatsRequest& request,
                                   StatsResponse* response) {
  StatsRead read;
  if (Status s = ReadStats(context, request, &read); !s.ok()) return s;
  const LinkStats& stats = read.stats;
  for (const DayCount& day : stats.days) {
    DayStats* out = response->add_days();
    out->set_day(day.day);
    out->set_pv(day.pv);
    out->set_uv(day.uv);
    response->set_pv(response->pv() + day.pv);
    response->set_uv(response->uv() + day.uv);
    response->set_bot_visits(response->bot_visits() + day.bots);
  }
  for (const auto& [host, pv] : stats.referrers) {
    ReferrerStats* out = response->add_referrers();
    out->set_host(host);
    out->set_pv(pv);
  }
  AddCounts(stats.devices, [response] { return response->add_devices(); });
  AddCounts(stats.browsers, [response] { return response->add_browsers(); });
  return Status::Ok();
}

Status ShortLinkServiceImpl::ExportStats(ServerContext& context, const StatsRequest& request,
                                         StatsCsv* response) {
  StatsRead read;
  if (Status s = ReadStats(context, request, &read); !s.ok()) return s;
  response->set_filename(std::string(CodeOfKey(read.key)) + "-" + read.from_day + "-" +
                         read.to_day + ".csv");
  response->set_csv(DailyStatsCsv(read.stats.days));
  return Status::Ok();
}

}  // namespace ferry::shortlink
