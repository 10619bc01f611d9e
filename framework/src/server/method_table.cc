#include "server/method_table.h"

namespace ferry::server {

Status MethodTable::Add(Service* service) {
  const std::string_view name = service->full_name();
  if (services_.find(name) != services_.end()) {
    return Status(StatusCode::ALREADY_EXISTS, "service '" + std::string(name) + "' already added");
  }
  StringMap<Entry> methods;
  for (const Service::Method& method : service->methods()) {
    const std::string method_name(method.spec->method);
    Entry entry{service, &method, {}, std::string(name) + "/" + method_name, {}};
    if (!methods.emplace(method_name, std::move(entry)).second) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "service '" + std::string(name) + "' lists method '" + method_name + "' twice");
    }
  }
  auto it = services_.emplace(std::string(name), std::move(methods)).first;
  for (auto& [method_name, entry] : it->second) entry.service_name = it->first;
  return Status::Ok();
}

Status MethodTable::Find(std::string_view service, std::string_view method,
                         const Entry** out) const {
  const auto s = services_.find(service);
  if (s == services_.end()) {
    return Status(StatusCode::UNIMPLEMENTED, "unknown service '" + std::string(service) + "'");
  }
  const auto m = s->second.find(method);
  if (m == s->second.end()) {
    return Status(StatusCode::UNIMPLEMENTED, "unknown method '" + std::string(method) +
                                                 "' of service '" + std::string(service) + "'");
  }
  *out = &m->second;
  return Status::Ok();
}

void MethodTable::ForEachEntry(const std::function<void(Entry&)>& visit) {
  for (auto& [service, methods] : services_) {
    for (auto& [name, entry] : methods) visit(entry);
  }
}

}  // namespace ferry::server
