#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/http.h"
#include "ferry/framework/method_spec.h"
#include "filter/filter_method_states.h"

namespace ferry::http {

// The HTTP routes of one server, matched by method and path segments. Built before the server
// starts and read-only afterwards, so IO threads match without locking.
class HttpRouter {
 public:
  // What the server's filters know a route as: a method "GET /{code}" of service "http", so that
  // `ratelimit`'s methods, `auth`'s exempt list and the access log name it "http/GET /{code}".
  // Admin routes have none: they are the operator's, behind their own token.
  struct RouteFilters {
    std::string method;                 // "GET /{code}": the route's method and pattern
    MethodSpec spec;                    // points into `method`
    filter::FilterMethodStates states;  // the filters' own for the route, set at start
  };
  static constexpr std::string_view kFilterService = "http";

  struct Match {
    const HttpRoute* route = nullptr;
    const RouteFilters* filters = nullptr;                              // null for an admin route
    std::vector<std::pair<std::string_view, std::string_view>> params;  // name -> segment
  };

  // INVALID_ARGUMENT naming both routes when `route` matches exactly the paths an added route
  // of the same method matches, or naming the pattern when it is malformed (not starting with
  // '/', an empty or unclosed "{}", a segment mixing text and braces).
  Status Add(HttpRoute route);

  // Which routes a listener serves: the public port serves every route unless admin pages have
  // a listener of their own, which serves only them. kOutside is the public port serving every
  // route, as a client outside server.http.admin_networks sees it: without the admin pages that
  // are not probes (AdminGuard).
  enum class Port { kEvery, kPublic, kAdmin, kOutside };

  // The route for `method` and `path` (without its query) among those `port` serves. With no
  // route for the method but one for another, `*allowed` lists those methods ("GET, POST"), for
  // a 405.
  bool Find(std::string_view method, std::string_view path, Port port, Match* out,
            std::string* allowed) const;

  // "GET /{code}", "POST /{service}/{method} (admin)", ... in the order they were added: what a
  // server logs at start-up.
  std::vector<std::string> Describe() const;

  // Before the server starts: every route's RouteFilters, for setting its states.
  void ForEachRouteFilters(const std::function<void(RouteFilters&)>& visit);

 private:
  struct Segment {
    std::string text;  // the literal, or the parameter's name
    bool param = false;
  };
  struct Entry {
    HttpRoute route;
    std::vector<Segment> segments;
    std::unique_ptr<RouteFilters> filters;  // its own allocation: entries move as they are sorted
  };

  static bool Parse(std::string_view pattern, std::vector<Segment>* out);
  // Whether `a` is preferred to `b` where both match: the first segment where they differ is
  // literal in `a`.
  static bool MoreSpecific(const Entry& a, const Entry& b);
  static bool Matches(const Entry& entry, const std::vector<std::string_view>& path, Match* out);
  static bool Serves(Port port, const HttpRoute& route) {
    if (port == Port::kOutside) return !route.admin || route.probe;
    return port == Port::kEvery || route.admin == (port == Port::kAdmin);
  }

  std::vector<Entry> entries_;  // by method, then most specific first
};

// "/a/b" -> {"a", "b"}; "/" -> {""}; a trailing '/' makes a last empty segment.
std::vector<std::string_view> SplitPath(std::string_view path);

}  // namespace ferry::http
