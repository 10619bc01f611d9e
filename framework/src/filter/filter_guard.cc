#include "filter/filter_guard.h"

#include <string>

#include "logger.h"

namespace ferry::filter {

Status FilterThrew(const FilterSite& site, std::string_view hook, std::string_view what) {
  Logger().warn("ferry {}: filter {} threw in {} of {}/{}: {}", site.side, site.filter, hook,
                site.service, site.method, what);
  return Status(StatusCode::INTERNAL, std::string(site.side) + " filter " +
                                          std::string(site.filter) + " threw in " +
                                          std::string(hook) + ": " + std::string(what));
}

}  // namespace ferry::filter
