#include "http/http_exchange.h"

#include <strings.h>

namespace ferry::http {

HttpExchange::HttpExchange(uint64_t id, Parsed parsed, Origin origin)
    : id_(id), parsed_(std::move(parsed)), forwarded_client_(std::move(origin.forwarded_client)) {
  request_.method_ = parsed_.method;
  const std::string_view target = parsed_.target;
  const size_t question = target.find('?');
  request_.path_ = target.substr(0, question);
  request_.query_ = question == std::string_view::npos ? "" : target.substr(question + 1);
  request_.body_ = parsed_.body;
  request_.peer_ = origin.peer;
  request_.client_address_ = forwarded_client_.empty() ? origin.peer_address : forwarded_client_;
  request_.peer_identity_ = origin.peer_identity;
  request_.headers_.reserve(parsed_.headers.size());
  for (const auto& [name, value] : parsed_.headers) request_.headers_.emplace_back(name, value);
}

}  // namespace ferry::http

namespace ferry {

std::string_view HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers_) {
    if (key.size() == name.size() && strncasecmp(key.data(), name.data(), key.size()) == 0) {
      return value;
    }
  }
  return {};
}

std::string_view HttpRequest::Param(std::string_view name) const {
  for (const auto& [key, value] : params_) {
    if (key == name) return value;
  }
  return {};
}

HttpReply::~HttpReply() {
  if (sink_) {
    HttpResponse response;
    response.status = 500;
    response.Set("Content-Type", "application/json");
    response.body =
        R"({"code":"INTERNAL","message":"the handler let go of its reply without answering"})";
    sink_(std::move(response));
  }
}

void HttpReply::operator()(HttpResponse response) {
  if (Sink sink = std::exchange(sink_, nullptr)) sink(std::move(response));
}

}  // namespace ferry
