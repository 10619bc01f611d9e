#include "http/http_router.h"

#include <algorithm>

namespace ferry::http {

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> segments;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  for (;;) {
    const size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

bool HttpRouter::Parse(std::string_view pattern, std::vector<Segment>* out) {
  if (pattern.empty() || pattern.front() != '/') return false;
  for (std::string_view part : SplitPath(pattern)) {
    const bool opens = part.starts_with('{');
    const bool closes = part.ends_with('}');
    if (opens != closes) return false;
    if (opens) {
      part = part.substr(1, part.size() - 2);
      if (part.empty() || part.find_first_of("{}/") != std::string_view::npos) return false;
    } else if (part.find_first_of("{}") != std::string_view::npos) {
      return false;
    }
    out->push_back(Segment{std::string(part), opens});
  }
  return true;
}

bool HttpRouter::MoreSpecific(const Entry& a, const Entry& b) {
  const size_t n = std::min(a.segments.size(), b.segments.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.segments[i].param != b.segments[i].param) return !a.segments[i].param;
  }
  return false;
}

namespace {

std::string DescribeRoute(const HttpRoute& route) {
  return route.method + " " + route.pattern + (route.admin ? " (admin)" : "");
}

}  // namespace

Status HttpRouter::Add(HttpRoute route) {
  Entry entry;
  if (!Parse(route.pattern, &entry.segments)) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "HTTP route '" + DescribeRoute(route) +
                      "': a pattern is '/' and segments, each literal or a {name}");
  }
  if (route.method.empty() || !route.handler) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "HTTP route '" + DescribeRoute(route) + "' needs a method and a handler");
  }
  for (const Entry& other : entries_) {
    if (other.route.method != route.method || other.segments.size() != entry.segments.size()) {
      continue;
    }
    bool same = true;
    for (size_t i = 0; i < entry.segments.size() && same; ++i) {
      const Segment& a = entry.segments[i];
      const Segment& b = other.segments[i];
      same = a.param == b.param && (a.param || a.text == b.text);
    }
    if (same) {
      return Status(StatusCode::INVALID_ARGUMENT, "HTTP routes '" + DescribeRoute(other.route) +
                                                      "' and '" + DescribeRoute(route) +
                                                      "' match the same paths");
    }
  }
  if (!route.admin) {
    entry.filters = std::make_unique<RouteFilters>();
    entry.filters->method = route.method + " " + route.pattern;
    entry.filters->spec.service = kFilterService;
    entry.filters->spec.method = entry.filters->method;
    entry.filters->spec.idempotent = route.method == "GET";
  }
  entry.route = std::move(route);
  entries_.push_back(std::move(entry));
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    if (a.route.method != b.route.method) return a.route.method < b.route.method;
    return MoreSpecific(a, b);
  });
  return Status::Ok();
}

bool HttpRouter::Matches(const Entry& entry, const std::vector<std::string_view>& path,
                         Match* out) {
  if (entry.segments.size() != path.size()) return false;
  for (size_t i = 0; i < path.size(); ++i) {
    const Segment& segment = entry.segments[i];
    if (segment.param ? path[i].empty() : segment.text != path[i]) return false;
  }
  out->route = &entry.route;
  out->filters = entry.filters.get();
  out->params.clear();
  for (size_t i = 0; i < path.size(); ++i) {
    if (entry.segments[i].param) out->params.emplace_back(entry.segments[i].text, path[i]);
  }
  return true;
}

bool HttpRouter::Find(std::string_view method, std::string_view path, Port port, Match* out,
                      std::string* allowed) const {
  const std::vector<std::string_view> segments = SplitPath(path);
  // HEAD is served by GET routes.
  const std::string_view wanted = method == "HEAD" ? std::string_view("GET") : method;
  for (const Entry& entry : entries_) {
    if (Serves(port, entry.route) && entry.route.method == wanted &&
        Matches(entry, segments, out)) {
      return true;
    }
  }
  allowed->clear();
  Match ignored;
  for (const Entry& entry : entries_) {
    if (!Serves(port, entry.route) || entry.route.method == wanted ||
        !Matches(entry, segments, &ignored)) {
      continue;
    }
    if (allowed->find(entry.route.method) != std::string::npos) continue;
    *allowed += (allowed->empty() ? "" : ", ") + entry.route.method;
  }
  return false;
}

std::vector<std::string> HttpRouter::Describe() const {
  std::vector<std::string> lines;
  for (const Entry& entry : entries_) lines.push_back(DescribeRoute(entry.route));
  return lines;
}

void HttpRouter::ForEachRouteFilters(const std::function<void(RouteFilters&)>& visit) {
  for (Entry& entry : entries_) {
    if (entry.filters) visit(*entry.filters);
  }
}

}  // namespace ferry::http
