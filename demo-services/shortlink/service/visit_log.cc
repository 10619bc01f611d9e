#include "service/visit_log.h"

#include <hiredis.h>

#include <charconv>
#include <cstdlib>

#include "service/shortlink_metrics.h"
#include "storage/visitor_sketch.h"

namespace ferry::shortlink {

std::vector<std::string> StreamFields(const VisitEvent& e) {
  return {"id",      e.event_id, "code",     e.code,          "at",  std::to_string(e.at_ms),
          "visitor", e.visitor,  "referrer", e.referrer_host, "bot", e.bot ? "1" : "0",
          "device",  e.device,   "browser",  e.browser};
}

bool EventFromFields(const std::vector<std::pair<std::string, std::string>>& fields,
                     VisitEvent* e) {
  int seen = 0;
  uint64_t visitor = 0;
  for (const auto& [name, value] : fields) {
    if (name == "id") {
      e->event_id = value;
    } else if (name == "code") {
      e->code = value;
    } else if (name == "at") {
      if (std::from_chars(value.data(), value.data() + value.size(), e->at_ms).ec != std::errc()) {
        return false;
      }
    } else if (name == "visitor") {
      e->visitor = value;
    } else if (name == "referrer") {
      e->referrer_host = value;
    } else if (name == "bot") {
      e->bot = value == "1";
    } else if (name == "device") {  // optional: absent from an older version's entries
      e->device = value;
      continue;
    } else if (name == "browser") {
      e->browser = value;
      continue;
    } else {
      continue;
    }
    ++seen;
  }
  return seen == 6 && !e->event_id.empty() && e->event_id.size() <= 64 && !e->code.empty() &&
         e->code.size() <= 64 && ParseVisitor(e->visitor, &visitor) &&
         e->referrer_host.size() <= 255 && e->device.size() <= 16 && e->browser.size() <= 16;
}

namespace {

// KEYS[1] the stream; ARGV[1] the most entries it may hold, ARGV[2] fields per event, then the
// events' fields. The length after appending, or -(its length) when it was full.
constexpr std::string_view kAppend = R"lua(
local length = redis.call('XLEN', KEYS[1])
if length >= tonumber(ARGV[1]) then return -length end
local per = tonumber(ARGV[2])
for i = 3, #ARGV, per do
  redis.call('XADD', KEYS[1], '*', unpack(ARGV, i, i + per - 1))
end
return length + (#ARGV - 2) / per
)lua";

}  // namespace

RedisVisitLog::RedisVisitLog(storage::RedisConnectionPool* redis, std::string stream,
                             int64_t max_entries)
    : redis_(redis),
      scripts_(redis, {{"visit_append", kAppend}}),
      stream_(std::move(stream)),
      max_entries_(max_entries) {}

Status RedisVisitLog::Append(const std::vector<VisitEvent>& events) {
  if (events.empty()) return Status::Ok();
  std::vector<std::string> args = {std::to_string(max_entries_), "0"};
  for (const VisitEvent& e : events) {
    std::vector<std::string> fields = StreamFields(e);
    args[1] = std::to_string(fields.size());
    for (std::string& f : fields) args.push_back(std::move(f));
  }
  storage::RedisReplyPtr reply;
  if (Status s = scripts_.Eval(0, {stream_}, args, &reply); !s.ok()) return s;
  if (reply->type != REDIS_REPLY_INTEGER) return storage::MalformedReply("visit_append");
  Metrics().visit_stream_entries->Set(static_cast<double>(std::llabs(reply->integer)));
  if (reply->integer < 0) {
    return Status(StatusCode::RESOURCE_EXHAUSTED,
                  "the visit stream holds " + std::to_string(-reply->integer) +
                      " entries (stats.stream_max_entries): the statistics are behind");
  }
  return Status::Ok();
}

}  // namespace ferry::shortlink
