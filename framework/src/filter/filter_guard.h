#pragma once

#include <chrono>
#include <exception>
#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::filter {

// Where a filter hook runs, for the line that reports it throwing.
struct FilterSite {
  std::string_view side;    // "client" or "server"
  std::string_view filter;  // its name in `filters:`
  std::string_view service;
  std::string_view method;
};

// A filter that throws is contained as a handler that throws is (server/server_call.cc): one
// faulty filter fails its calls instead of terminating the process. Logs the exception and
// returns the INTERNAL status the call is answered with.
Status FilterThrew(const FilterSite& site, std::string_view hook, std::string_view what);

// filter.OnCall(call). When it throws: sets `*threw` and returns FilterThrew()'s status. A filter
// whose OnCall threw never finished it, so its OnDone is not run.
template <class Filter, class Call>
Status GuardedOnCall(Filter& filter, Call& call, const FilterSite& site, bool* threw) {
  try {
    return filter.OnCall(call);
  } catch (const std::exception& e) {
    *threw = true;
    return FilterThrew(site, "OnCall", e.what());
  } catch (...) {
    *threw = true;
    return FilterThrew(site, "OnCall", "a non-standard exception");
  }
}

// filter.OnAdmit(request) of a server filter; a throw refuses the request as OnCall's would.
template <class Filter, class Request>
Status GuardedOnAdmit(Filter& filter, const Request& request, const FilterSite& site) {
  try {
    return filter.OnAdmit(request);
  } catch (const std::exception& e) {
    return FilterThrew(site, "OnAdmit", e.what());
  } catch (...) {
    return FilterThrew(site, "OnAdmit", "a non-standard exception");
  }
}

// filter.OnDone(...). An exception is logged and goes no further: the call's outcome is decided,
// and the other filters' OnDone and the call's answer still follow.
template <class Filter, class Call>
void GuardedOnDone(Filter& filter, const Call& call, const Status& status,
                   std::chrono::nanoseconds latency, const FilterSite& site) {
  try {
    filter.OnDone(call, status, latency);
  } catch (const std::exception& e) {
    static_cast<void>(FilterThrew(site, "OnDone", e.what()));  // logged; the answer stands
  } catch (...) {
    static_cast<void>(FilterThrew(site, "OnDone", "a non-standard exception"));
  }
}

}  // namespace ferry::filter
