#include "app/admin_pages.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string_view>

#include "ferry/framework/metrics/text_format.h"
#include "http/http_status.h"
#include "logger.h"

namespace ferry::app {
namespace {

using http::JsonQuoted;

std::string Html(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// UTC, ISO 8601, to the millisecond.
std::string When(std::chrono::system_clock::time_point at) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()) % 1000;
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", text, static_cast<int>(ms.count()));
  return out;
}

double Ms(std::chrono::nanoseconds d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string Number(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Admin pages show the present: no cache may keep them.
HttpResponse Page(int status, std::string content_type, std::string body) {
  HttpResponse response;
  response.status = status;
  response.Set("Content-Type", std::move(content_type));
  response.Set("Cache-Control", "no-store");
  response.body = std::move(body);
  return response;
}

HttpResponse Text(int status, std::string body) {
  return Page(status, "text/plain; charset=utf-8", std::move(body));
}

std::string StatusHtml(const AdminSources& s) {
  std::string page =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + Html(s.app_name) +
      " status</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
      "collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:"
      "left}th{background:#eee}pre{background:#f7f7f7;padding:1em}</style></head><body>\n<h1>" +
      Html(s.app_name) + "</h1>\n<p>listening on <span id=\"address\">" + Html(s.address()) +
      "</span></p>\n<p id=\"ready\">" + (s.ready() ? "ready" : "not ready") + "</p>\n";
  page +=
      "<h2>Methods (last minute)</h2>\n<table id=\"methods\"><tr><th>service</th><th>method</th>"
      "<th>QPS</th><th>p50 ms</th><th>p99 ms</th><th>calls</th><th>errors</th></tr>\n";
  for (const MethodStatus& m : s.methods()) {
    page += "<tr><td>" + Html(m.service) + "</td><td>" + Html(m.method) + "</td><td>" +
            Number(m.qps, 1) + "</td><td>" + Number(m.p50_ms, 3) + "</td><td>" +
            Number(m.p99_ms, 3) + "</td><td>" + std::to_string(m.calls) + "</td><td>" +
            std::to_string(m.errors) + "</td></tr>\n";
  }
  page +=
      "</table>\n<h2>Clients</h2>\n<table id=\"clients\"><tr><th>client</th><th>target</th>"
      "<th>provider</th><th>state</th><th>weight</th><th>in flight</th></tr>\n";
  for (const ClientStatus& c : s.clients()) {
    if (c.providers.empty()) {
      page += "<tr><td>" + Html(c.name) + "</td><td>" + Html(c.target) + "</td><td colspan=\"4\">" +
              (c.in_use ? "no provider known" : "not used yet") + "</td></tr>\n";
    }
    for (const ProviderStatus& p : c.providers) {
      page += "<tr><td>" + Html(c.name) + "</td><td>" + Html(c.target) + "</td><td>" +
              Html(p.address) + "</td><td>" + Html(p.state) + "</td><td>" +
              std::to_string(p.weight) + "</td><td>" +
              (p.in_flight < 0 ? "-" : std::to_string(p.in_flight)) + "</td></tr>\n";
    }
  }
  page +=
      "</table>\n<h2>Slow calls</h2>\n<table id=\"slow\"><tr><th>when</th><th>call</th>"
      "<th>ms</th><th>status</th><th>trace</th><th>span</th><th>peer</th></tr>\n";
  for (const SlowCall& call : s.slow_calls()) {
    page += "<tr><td>" + When(call.ended) + "</td><td>" + Html(call.call) + "</td><td>" +
            Number(Ms(call.latency), 1) + "</td><td>" + Html(StatusCodeName(call.status)) +
            "</td><td>" + Html(call.trace_id) + "</td><td>" + Html(call.span_id) + "</td><td>" +
            Html(call.peer) + "</td></tr>\n";
  }
  page += "</table>\n<h2>Plugins</h2>\n<ul id=\"plugins\">\n";
  for (const std::string& plugin : s.plugins) page += "<li>" + Html(plugin) + "</li>\n";
  if (s.plugins.empty()) page += "<li>none</li>\n";
  page += "</ul>\n<h2>Configuration</h2>\n<pre id=\"config\">" + Html(s.config_yaml) +
          "</pre>\n</body></html>\n";
  return page;
}

std::string StatusJson(const AdminSources& s) {
  std::string json = "{\"app\":" + JsonQuoted(s.app_name) +
                     ",\"address\":" + JsonQuoted(s.address()) +
                     ",\"ready\":" + (s.ready() ? "true" : "false") + ",\"methods\":[";
  bool first = true;
  for (const MethodStatus& m : s.methods()) {
    json += std::string(first ? "" : ",") + "{\"service\":" + JsonQuoted(m.service) +
            ",\"method\":" + JsonQuoted(m.method) + ",\"qps\":" + Number(m.qps, 3) +
            ",\"p50_ms\":" + Number(m.p50_ms, 3) + ",\"p99_ms\":" + Number(m.p99_ms, 3) +
            ",\"calls\":" + std::to_string(m.calls) + ",\"errors\":" + std::to_string(m.errors) +
            "}";
    first = false;
  }
  json += "],\"clients\":[";
  first = true;
  for (const ClientStatus& c : s.clients()) {
    json += std::string(first ? "" : ",") + "{\"name\":" + JsonQuoted(c.name) +
            ",\"target\":" + JsonQuoted(c.target) + ",\"in_use\":" + (c.in_use ? "true" : "false") +
            ",\"providers\":[";
    bool first_provider = true;
    for (const ProviderStatus& p : c.providers) {
      json += std::string(first_provider ? "" : ",") + "{\"address\":" + JsonQuoted(p.address) +
              ",\"state\":" + JsonQuoted(p.state) + ",\"weight\":" + std::to_string(p.weight) + "}";
      first_provider = false;
    }
    json += "]}";
    first = false;
  }
  json += "],\"slow_calls\":[";
  first = true;
  for (const SlowCall& call : s.slow_calls()) {
    json += std::string(first ? "" : ",") + "{\"when\":" + JsonQuoted(When(call.ended)) +
            ",\"call\":" + JsonQuoted(call.call) +
            ",\"latency_ms\":" + Number(Ms(call.latency), 3) +
            ",\"status\":" + JsonQuoted(StatusCodeName(call.status)) +
            ",\"trace_id\":" + JsonQuoted(call.trace_id) +
            ",\"span_id\":" + JsonQuoted(call.span_id) + "}";
    first = false;
  }
  json += "],\"plugins\":[";
  first = true;
  for (const std::string& plugin : s.plugins) {
    json += std::string(first ? "" : ",") + JsonQuoted(plugin);
    first = false;
  }
  json += "]}";
  return json;
}

// The level a POST /loglevel asks for: its body, or ?level= of its query.
std::string RequestedLevel(const HttpRequest& request) {
  std::string_view level = request.body();
  const std::string_view query = request.query();
  if (query.starts_with("level=")) level = query.substr(6);
  while (!level.empty() && (level.back() == '\n' || level.back() == '\r' || level.back() == ' ')) {
    level.remove_suffix(1);
  }
  return std::string(level);
}

}  // namespace

std::vector<HttpRoute> AdminRoutes(AdminSources sources) {
  auto s = std::make_shared<const AdminSources>(std::move(sources));
  const auto page = [](std::string method, std::string pattern, auto answer) {
    return HttpRoute{.method = std::move(method),
                     .pattern = std::move(pattern),
                     .handler = std::move(answer),
                     .on_io_thread = false,
                     .admin = true};
  };
  std::vector<HttpRoute> routes;
  routes.push_back(page("GET", "/health",
                        [](const HttpRequest&, HttpReply reply) { reply(Text(200, "ok\n")); }));
  routes.push_back(page("GET", "/ready", [s](const HttpRequest&, HttpReply reply) {
    reply(s->ready() ? Text(200, "ready\n") : Text(503, "not ready\n"));
  }));
  // Load balancers and orchestrators probe from their own networks, and these say no more than
  // up or ready.
  routes[0].probe = true;
  routes[1].probe = true;
  routes.push_back(page("GET", "/metrics", [s](const HttpRequest&, HttpReply reply) {
    reply(Page(200, std::string(metrics::kTextContentType), s->metrics_text()));
  }));
  routes.push_back(page("GET", "/status", [s](const HttpRequest&, HttpReply reply) {
    reply(Page(200, "text/html; charset=utf-8", StatusHtml(*s)));
  }));
  routes.push_back(page("GET", "/status.json", [s](const HttpRequest&, HttpReply reply) {
    reply(Page(200, "application/json", StatusJson(*s)));
  }));
  routes.push_back(page("GET", "/loglevel", [](const HttpRequest&, HttpReply reply) {
    reply(Text(200, std::string(spdlog::level::to_string_view(Logger().level()).data()) + "\n"));
  }));
  routes.push_back(page("POST", "/loglevel", [s](const HttpRequest& request, HttpReply reply) {
    if (!s->log_level_changeable) {
      return reply(Text(403,
                        "the log level is changed only on an admin listener of its own: set "
                        "server.http.admin_listen\n"));
    }
    const std::string level = RequestedLevel(request);
    if (Status set = SetLogLevel(level); !set.ok()) return reply(Text(400, set.message() + "\n"));
    Logger().warn("log level set to {} through POST /loglevel from {}", level, request.peer());
    reply(Text(200, level + "\n"));
  }));
  return routes;
}

}  // namespace ferry::app
