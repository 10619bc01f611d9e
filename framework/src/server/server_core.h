#pragma once

#include <atomic>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <memory>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/message_codec.h"
#include "ferry/framework/server_options.h"
#include "filter/server_filter_chain.h"
#include "http/admin_guard.h"
#include "http/http_router.h"
#include "http/trusted_proxies.h"
#include "log_rate_limiter.h"
#include "server/buffer_budget.h"
#include "server/connection_admission.h"
#include "server/connection_registry.h"
#include "server/method_table.h"
#include "server/slow_call_log.h"
#include "server/tls_handshakes.h"

namespace ferry::server {

class BusinessPool;

// What every connection and call of one server shares. The server owns it and keeps it alive
// until the last connection, call and IO handler is gone.
struct ServerCore {
  MethodTable methods;
  BusinessPool* pool = nullptr;
  codec::DecoderLimits limits;
  // Compression settings for responses; the serializer is the request's, set per response.
  codec::BodyOptions response_body;
  std::chrono::milliseconds idle_timeout{0};  // zero: never close idle connections
  ConnectionLimits connection_limits;         // ServerOptions::limits
  ConnectionAdmission admission;
  BufferBudget buffers;
  filter::ServerFilterChain filters;     // ServerOptions::filters, built by Start()
  HttpOptions http;                      // ServerOptions::http
  http::TrustedProxies trusted_proxies;  // ServerOptions::http.trusted_proxies, by Start()
  http::AdminGuard admin_guard;          // who may have the admin pages, by Start()
  ServerTlsOptions tls;                  // ServerOptions::tls
  // What the server port's TLS connections share, built by Start(); null without TLS.
  std::shared_ptr<boost::asio::ssl::context> tls_context;
  http::HttpRouter routes;                // the services' and the application's, by Start()
  std::chrono::nanoseconds slow_call{0};  // ServerOptions::slow_call; zero: none
  SlowCallLog slow_calls;
  // Logs the routes' answers replaced by a 500 for not being valid HTTP, rate-limited: a route
  // that puts its input into a header can be made to fail at will.
  LogRateLimiter invalid_http_answers{"ferry server: invalid HTTP answers"};
  // Set once by Stop(): from then on requests are answered UNAVAILABLE instead of run.
  std::atomic<bool> shutting_down{false};
  ConnectionRegistry connections;
  // Started with TLS. Last, so destroyed first: the connections its dropped handlers hold
  // give back what they counted in the members above.
  TlsHandshakes handshakes;
};

}  // namespace ferry::server
