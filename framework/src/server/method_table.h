#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ferry/codec/status.h"
#include "ferry/framework/service.h"
#include "filter/filter_method_states.h"
#include "stats/call_metrics.h"

namespace ferry::server {

// Every method of every added service, by name. Built before Start() and read-only afterwards,
// so IO threads look methods up without locking.
class MethodTable {
 public:
  struct Entry {
    Service* service;
    const Service::Method* method;
    std::string_view service_name;             // points into the table's own key
    std::string full_name;                     // "pkg.Service/Method", for logs and error messages
    filter::FilterMethodStates filter_states;  // the server filters' own, set at Start()
    stats::MethodMetrics* metrics = nullptr;   // set at Start() unless server.metrics is off
  };

  // ALREADY_EXISTS when a service of the same full name was added; INVALID_ARGUMENT when the
  // service lists two methods of the same name.
  Status Add(Service* service);

  // UNIMPLEMENTED naming the unknown service or method.
  Status Find(std::string_view service, std::string_view method, const Entry** out) const;

  bool HasService(std::string_view service) const { return services_.contains(service); }

  // Before Start() only: the entries are read-only once calls arrive.
  void ForEachEntry(const std::function<void(Entry&)>& visit);

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  StringMap<StringMap<Entry>> services_;
};

}  // namespace ferry::server
