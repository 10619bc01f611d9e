#include "service/visit_log.h"

#include <hiredis.h>

#include <charconv>

#include "storage/visitor_sketch.h"

namespace ferry::shortlink {

std::vector<std::string> StreamFields(const VisitEvent& e) {
  return {"id",      e.event_id, "code",     e.code,          "at",  std::to_string(e.at_ms),
          "visitor", e.visitor,  "referrer", e.referrer_host, "bot", e.bot ? "1" : "0"};
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
    } else {
      continue;
    }
    ++seen;
  }
  return seen == 6 && !e->event_id.empty() && e->event_id.size() <= 64 && !e->code.empty() &&
         e->code.size() <= 64 && ParseVisitor(e->visitor, &visitor) &&
         e->referrer_host.size() <= 255;
}

Status RedisVisitLog::Append(const std::vector<VisitEvent>& events) {
  std::vector<std::vector<std::string>> commands;
  commands.reserve(events.size());
  for (const VisitEvent& e : events) {
    std::vector<std::string> command = {"XADD", stream_, "*"};
    for (std::string& f : StreamFields(e)) command.push_back(std::move(f));
    commands.push_back(std::move(command));
  }
  std::vector<storage::RedisReplyPtr> replies;
  if (Status s = redis_->RunPipeline(commands, &replies); !s.ok()) return s;
  for (const auto& reply : replies) {
    if (reply->type == REDIS_REPLY_ERROR) return storage::ErrorReplyStatus("XADD", reply.get());
  }
  return Status::Ok();
}

}  // namespace ferry::shortlink
