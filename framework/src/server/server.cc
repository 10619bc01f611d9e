#include "ferry/framework/server.h"

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <string>

#include "ferry/codec/compressor.h"
#include "http/http_router.h"
#include "log_rate_limiter.h"
#include "logger.h"
#include "server/business_pool.h"
#include "server/peer_address.h"
#include "server/server_connection.h"
#include "server/server_core.h"
#include "stats/call_metrics.h"
#include "stats/framework_metrics.h"
#include "thread_annotations.h"
#include "transport/endpoint.h"
#include "transport/io_thread_pool.h"
#include "transport/tls_context.h"

namespace ferry {
namespace {

using Clock = std::chrono::steady_clock;
using boost::asio::ip::tcp;

// Answers to calls that finished at the very end of the grace period still get this long to
// be written before their connections are closed.
constexpr std::chrono::milliseconds kMinFlushTime{50};
// A client of protocol 1.2 acknowledges GOAWAY within a round trip; one that has not by then is
// older, and from then on its new requests are refused as DRAINING instead of run.
constexpr std::chrono::milliseconds kGoAwayAckWait{1000};
// How long to back off when accept fails, typically for lack of file descriptors.
constexpr std::chrono::milliseconds kAcceptRetryDelay{50};

Status ValidateOptions(const ServerOptions& options) {
  auto invalid = [](const std::string& what) {
    return Status(StatusCode::INVALID_ARGUMENT, "invalid server options: " + what);
  };
  if (options.io_threads == 0) return invalid("io_threads must be at least 1");
  if (options.worker_threads == 0) return invalid("business_pool.threads must be at least 1");
  if (options.queue_capacity == 0) return invalid("business_pool.queue_capacity must be >= 1");
  if (options.max_frame_bytes < codec::kHeaderSize) {
    return invalid("max_frame_bytes must be at least " + std::to_string(codec::kHeaderSize));
  }
  const ConnectionLimits& limits = options.limits;
  if (limits.max_outbound_bytes <= limits.outbound_high_water_bytes) {
    return invalid(
        "limits.max_outbound_bytes must be greater than "
        "limits.outbound_high_water_bytes");
  }
  if (limits.max_outbound_bytes < options.max_frame_bytes) {
    return invalid("limits.max_outbound_bytes must be at least max_frame_bytes (" +
                   std::to_string(options.max_frame_bytes) + "): one answer must fit");
  }
  if (limits.max_connections == 0 || limits.max_connections_per_peer == 0) {
    return invalid("limits.max_connections and limits.max_connections_per_peer must be >= 1");
  }
  if (options.compression != "none" && codec::FindCompressor(options.compression) == nullptr) {
    return invalid("unknown compression algorithm '" + options.compression + "'");
  }
  const ServerTlsOptions& tls = options.tls;
  if (!tls.enabled() && (!tls.key_file.empty() || !tls.ca_file.empty())) {
    return invalid("tls.cert_file is required with tls.key_file or tls.ca_file");
  }
  if (tls.enabled() && tls.key_file.empty()) return invalid("tls.key_file is required");
  if (tls.client_cert != ServerTlsOptions::ClientCert::kNone && tls.ca_file.empty()) {
    return invalid("tls.client_cert needs tls.ca_file, the CA client certificates come from");
  }
  if (limits.handshake_timeout.count() <= 0) {
    return invalid("limits.handshake_timeout_ms must be at least 1");
  }
  return Status::Ok();
}

// The context every TLS connection of the server's port shares; null without TLS.
Status NewTlsContext(const ServerTlsOptions& options,
                     std::shared_ptr<boost::asio::ssl::context>* out) {
  if (!options.enabled()) return Status::Ok();
  std::string key;
  Status status = transport::NewServerTlsContext(options, out, &key);
  if (status.ok()) return status;
  return Status(status.code(), "invalid server options: tls." + key + ": " + status.message());
}

Status ResolveListenAddress(const std::string& listen, boost::asio::io_context& io,
                            tcp::endpoint* out) {
  transport::Endpoint endpoint;
  Status status = transport::ParseEndpoint(listen, &endpoint);
  if (!status.ok()) return status;
  boost::system::error_code error;
  const auto address = boost::asio::ip::make_address(endpoint.host, error);
  if (!error) {
    *out = tcp::endpoint(address, endpoint.port);
    return Status::Ok();
  }
  tcp::resolver resolver(io);
  const auto results =
      resolver.resolve(endpoint.host, std::to_string(endpoint.port), tcp::resolver::passive, error);
  if (error || results.empty()) {
    return Status(StatusCode::UNAVAILABLE,
                  "cannot resolve listen address '" + listen + "': " + error.message());
  }
  *out = results.begin()->endpoint();
  return Status::Ok();
}

// "127.0.0.1:7001" of a listener that listens.
std::string ListenedAddress(const auto& listener) {
  boost::system::error_code error;
  const tcp::endpoint endpoint = listener.acceptor.local_endpoint(error);
  return endpoint.address().to_string() + ":" + std::to_string(listener.port);
}

}  // namespace

class Server::Impl {
 public:
  explicit Impl(ServerOptions options) : options_(std::move(options)) {}

  ~Impl() {
    Stop();
    // Handlers that outlived the grace period are waited for here, while the connections
    // they answer to and the IO contexts those connections belong to still exist: the pool's,
    // then those completing on other threads (asynchronous handlers).
    pool_.reset();
    core_.connections.WaitUntilNoCallsInFlight();
  }

  Status AddService(Service* service) {
    MutexLock lock(state_mu_);
    if (state_ != State::kNew) {
      return Status(StatusCode::FAILED_PRECONDITION, "services must be added before Start()");
    }
    Status status = core_.methods.Add(service);
    if (status.ok()) services_.push_back(service);
    return status;
  }

  Status AddHttpRoute(HttpRoute route) {
    MutexLock lock(state_mu_);
    if (state_ != State::kNew) {
      return Status(StatusCode::FAILED_PRECONDITION, "HTTP routes must be added before Start()");
    }
    app_routes_.push_back(std::move(route));
    return Status::Ok();
  }

  Status AddFilter(std::string name, std::shared_ptr<ServerFilter> filter) {
    MutexLock lock(state_mu_);
    if (state_ != State::kNew) {
      return Status(StatusCode::FAILED_PRECONDITION, "filters must be added before Start()");
    }
    if (filter == nullptr) {
      return Status(StatusCode::INVALID_ARGUMENT, "server filter " + name + " is null");
    }
    added_filters_.emplace_back(std::move(name), std::move(filter));
    return Status::Ok();
  }

  Status Start();
  uint16_t port() const { return listeners_.empty() ? 0 : listeners_.front()->port; }
  uint16_t admin_port() const { return listeners_.size() > 1 ? listeners_.back()->port : 0; }
  std::vector<SlowCall> slow_calls() const { return core_.slow_calls.Recent(); }
  void Stop();

  void Wait() {
    MutexLock lock(state_mu_);
    while (state_ != State::kStopped) state_changed_.wait(lock.native());
  }

 private:
  enum class State { kNew, kRunning, kStopping, kStopped };

  // One listening socket: the server's port, or the admin pages' own.
  struct Listener {
    Listener(boost::asio::io_context& io, std::string address, http::HttpRouter::Port routes)
        : acceptor(io), retry(io), address(std::move(address)), routes(routes) {}
    tcp::acceptor acceptor;
    boost::asio::steady_timer retry;
    const std::string address;
    const http::HttpRouter::Port routes;
    uint16_t port = 0;
  };

  Status BuildRoutes();
  Status Listen(Listener& listener);
  void Accept(Listener& listener);
  void OnAccept(Listener& listener, const boost::system::error_code& error, tcp::socket socket);
  void CloseAcceptors();

  const ServerOptions options_;
  std::vector<Service*> services_;
  std::vector<HttpRoute> app_routes_;
  std::vector<std::pair<std::string, std::shared_ptr<ServerFilter>>> added_filters_;
  // Destroyed bottom-up, and that order matters: the pool's straggling calls hold connections,
  // whose sockets belong to the IO contexts, and all of them use the core.
  server::ServerCore core_;
  std::unique_ptr<transport::IoThreadPool> io_;
  std::vector<std::unique_ptr<Listener>> listeners_;  // the server's port first
  std::unique_ptr<server::BusinessPool> pool_;
  metrics::CallbackHandle queue_depth_;     // the pool's, for /metrics; unbound before it goes
  metrics::CallbackHandle buffered_bytes_;  // core_.buffers', for /metrics
  metrics::CallbackHandle tls_handshakes_;  // core_.handshakes', for /metrics

  Mutex state_mu_;
  std::condition_variable state_changed_;
  State state_ FERRY_GUARDED_BY(state_mu_) = State::kNew;
};

Status Server::Impl::Start() {
  MutexLock lock(state_mu_);
  if (state_ != State::kNew) {
    return Status(StatusCode::FAILED_PRECONDITION, "server already started or stopped");
  }
  Status status = ValidateOptions(options_);
  if (status.ok()) {
    status = http::TrustedProxies::FromList(options_.http.trusted_proxies,
                                            "invalid server options: http.trusted_proxies",
                                            &core_.trusted_proxies);
  }
  if (status.ok()) {
    status =
        http::AdminGuard::Create(options_, "invalid server options: http.", &core_.admin_guard);
  }
  if (status.ok()) status = NewTlsContext(options_.tls, &core_.tls_context);
  if (status.ok())
    status = filter::ServerFilterChain::Create(options_.filters, added_filters_, &core_.filters);
  if (status.ok()) status = BuildRoutes();
  if (!status.ok()) return status;
  core_.routes.ForEachRouteFilters([this](http::HttpRouter::RouteFilters& route) {
    route.states = core_.filters.NewMethodStates(route.spec);
  });
  core_.methods.ForEachEntry([this](server::MethodTable::Entry& entry) {
    entry.filter_states = core_.filters.NewMethodStates(*entry.method->spec);
    if (options_.metrics) {
      entry.metrics = &stats::MethodMetricsFor(stats::MethodMetrics::Side::kServer,
                                               entry.service_name, entry.method->spec->method);
    }
  });
  if (status = core_.filters.OnServerStart(); !status.ok()) return status;

  io_ = std::make_unique<transport::IoThreadPool>(options_.io_threads, "ferry-srv-io");
  const bool admin_apart = !options_.http.admin_listen.empty();
  listeners_.push_back(std::make_unique<Listener>(
      io_->At(0), options_.listen,
      admin_apart ? http::HttpRouter::Port::kPublic : http::HttpRouter::Port::kEvery));
  if (admin_apart) {
    listeners_.push_back(std::make_unique<Listener>(io_->At(0), options_.http.admin_listen,
                                                    http::HttpRouter::Port::kAdmin));
  }
  for (auto& listener : listeners_) {
    if (status = Listen(*listener); !status.ok()) break;
  }
  if (!status.ok()) {
    listeners_.clear();
    io_.reset();
    return status;
  }

  pool_ = std::make_unique<server::BusinessPool>(options_.worker_threads, options_.queue_capacity,
                                                 "ferry-worker", options_.limits.max_queued_bytes);
  core_.pool = pool_.get();
  if (auto bound = stats::Server().queue_depth->Bind(
          {std::to_string(listeners_.front()->port)},
          [pool = pool_.get()] { return static_cast<double>(pool->queued()); });
      bound.ok()) {
    queue_depth_ = std::move(bound).value();
  }
  if (auto bound = stats::Server().buffered_bytes->Bind(
          {std::to_string(listeners_.front()->port)},
          [buffers = &core_.buffers] { return static_cast<double>(buffers->used()); });
      bound.ok()) {
    buffered_bytes_ = std::move(bound).value();
  }
  core_.limits.max_frame_bytes = options_.max_frame_bytes;
  core_.idle_timeout = options_.idle_timeout;
  core_.connection_limits = options_.limits;
  core_.admission.set_limits(options_.limits.max_connections,
                             options_.limits.max_connections_per_peer);
  core_.buffers.set_limit(options_.limits.max_buffered_bytes);
  core_.http = options_.http;
  core_.tls = options_.tls;
  if (core_.tls_context != nullptr) {
    core_.handshakes.Start(options_.tls.handshake_threads, options_.limits.max_handshakes);
    if (auto bound = stats::Server().tls_handshakes->Bind(
            {std::to_string(listeners_.front()->port)},
            [handshakes = &core_.handshakes] {
              return static_cast<double>(handshakes->in_flight());
            });
        bound.ok()) {
      tls_handshakes_ = std::move(bound).value();
    }
  }
  core_.slow_call = options_.slow_call;
  const codec::Compressor* compressor = codec::FindCompressor(options_.compression);
  core_.response_body.compression =
      compressor != nullptr ? compressor->id() : codec::compression_id::kNone;
  core_.response_body.compress_threshold = options_.compress_threshold;
  core_.response_body.compression_level = options_.compression_level;

  for (auto& listener : listeners_) {
    boost::asio::post(io_->At(0), [this, l = listener.get()] { Accept(*l); });
  }
  state_ = State::kRunning;
  Logger().info("ferry server: listening on {}", ListenedAddress(*listeners_.front()));
  if (admin_apart) {
    Logger().info("ferry server: admin pages on {}", ListenedAddress(*listeners_.back()));
  }
  for (const std::string& route : core_.routes.Describe()) {
    Logger().info("ferry server: HTTP route {}", route);
  }
  return Status::Ok();
}

// The services' routes and the application's, refusing any two that match the same paths, and
// any that would claim the JSON gateway's POST /<service>/<method> of a service served here.
Status Server::Impl::BuildRoutes() {
  std::vector<HttpRoute> routes;
  for (Service* service : services_) {
    for (HttpRoute& route : service->http_routes()) routes.push_back(std::move(route));
  }
  for (HttpRoute& route : app_routes_) routes.push_back(std::move(route));
  app_routes_.clear();
  for (HttpRoute& route : routes) {
    const std::vector<std::string_view> segments = http::SplitPath(route.pattern);
    if (route.method == "POST" && segments.size() == 2 && core_.methods.HasService(segments[0])) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "HTTP route 'POST " + route.pattern + "' would take the JSON gateway's " +
                        "path of service " + std::string(segments[0]));
    }
    if (Status status = core_.routes.Add(std::move(route)); !status.ok()) return status;
  }
  return Status::Ok();
}

Status Server::Impl::Listen(Listener& listener) {
  auto fail = [&](const std::string& step, const std::string& error) {
    return Status(StatusCode::UNAVAILABLE,
                  "cannot listen on " + listener.address + ": " + step + ": " + error);
  };
  tcp::endpoint endpoint;
  if (Status status = ResolveListenAddress(listener.address, io_->At(0), &endpoint); !status.ok()) {
    return status;
  }
  boost::system::error_code error;
  tcp::acceptor& acceptor = listener.acceptor;
  acceptor.open(endpoint.protocol(), error);
  if (error) return fail("open", error.message());
  acceptor.set_option(tcp::acceptor::reuse_address(true), error);
  if (error) return fail("SO_REUSEADDR", error.message());
  acceptor.bind(endpoint, error);
  if (error) return fail("bind", error.message());
  acceptor.listen(boost::asio::socket_base::max_listen_connections, error);
  if (error) return fail("listen", error.message());
  listener.port = acceptor.local_endpoint(error).port();
  if (error) return fail("local_endpoint", error.message());
  return Status::Ok();
}

// On IO thread 0. Each accepted socket goes straight onto the next IO context, where its
// connection then lives.
void Server::Impl::Accept(Listener& listener) {
  listener.acceptor.async_accept(
      io_->Next(), [this, &listener](const boost::system::error_code& error, tcp::socket socket) {
        OnAccept(listener, error, std::move(socket));
      });
}

void Server::Impl::OnAccept(Listener& listener, const boost::system::error_code& error,
                            tcp::socket socket) {
  if (error == boost::asio::error::operation_aborted || !listener.acceptor.is_open()) return;
  if (error) {
    // Rate-limited: out of descriptors, say, this repeats every retry for as long as it lasts.
    static LogRateLimiter accept_failures("ferry server: accept failures");
    accept_failures.Log(spdlog::level::warn, "ferry server: accept failed: {}; retrying in {} ms",
                        error.message(), kAcceptRetryDelay.count());
    listener.retry.expires_after(kAcceptRetryDelay);
    listener.retry.async_wait([this, &listener](const boost::system::error_code& wait_error) {
      if (!wait_error && listener.acceptor.is_open()) Accept(listener);
    });
    return;
  }
  boost::system::error_code ignored;
  std::string refusal;
  std::string address = server::PeerNetworkOf(
      server::PeerIpOf(socket), options_.limits.peer_prefix_v4, options_.limits.peer_prefix_v6);
  if (core_.buffers.Exceeded()) {
    refusal = "the server's buffers are full (server.limits.max_buffered_bytes)";
  }
  if (!refusal.empty() || !core_.admission.TryAdmit(address, &refusal)) {
    stats::Server().limit_events[stats::ServerMetrics::kConnectionRefused]->Increment();
    Logger().debug("ferry server: refusing a connection from {}: {}", address, refusal);
    socket.close(ignored);
    return Accept(listener);
  }
  socket.set_option(tcp::no_delay(true), ignored);
  // The admin pages' own listener stays plaintext (docs/tls.md).
  boost::asio::ssl::context* tls =
      listener.routes == http::HttpRouter::Port::kAdmin ? nullptr : core_.tls_context.get();
  auto connection = std::make_shared<server::ServerConnection>(
      core_, std::move(socket), std::move(address), listener.routes, tls);
  core_.connections.Add(connection);
  boost::asio::post(connection->executor(), [connection] { connection->Start(); });
  Accept(listener);
}

void Server::Impl::CloseAcceptors() {
  std::promise<void> closed;
  boost::asio::post(io_->At(0), [&] {
    for (auto& listener : listeners_) {
      boost::system::error_code ignored;
      listener->acceptor.close(ignored);
      listener->retry.cancel();
    }
    closed.set_value();
  });
  closed.get_future().wait();
}

void Server::Impl::Stop() {
  {
    MutexLock lock(state_mu_);
    if (state_ == State::kNew) {
      state_ = State::kStopped;
      state_changed_.notify_all();
      return;
    }
    if (state_ != State::kRunning) {
      while (state_ != State::kStopped) state_changed_.wait(lock.native());
      return;
    }
    state_ = State::kStopping;
  }
  const Clock::time_point deadline = Clock::now() + options_.grace_period;
  CloseAcceptors();
  // Requests keep being served until each client acknowledged that it will send no more, so
  // that no request is ever refused on a connection whose client knows of GOAWAY.
  for (const auto& connection : core_.connections.Snapshot()) connection->GoAway();
  const bool acknowledged =
      core_.connections.WaitUntilGoneAway(std::min(deadline, Clock::now() + kGoAwayAckWait));
  core_.shutting_down.store(true);
  if (acknowledged) {
    Logger().info("ferry server: draining: every client acknowledged GOAWAY or hung up");
  } else {
    Logger().info(
        "ferry server: draining: not every client acknowledged GOAWAY within {} ms; what they "
        "send from now on is refused DRAINING",
        std::min(options_.grace_period, kGoAwayAckWait).count());
  }

  const bool drained = core_.connections.WaitUntilNoCallsInFlight(deadline);
  for (const auto& connection : core_.connections.Snapshot()) connection->CloseGracefully();
  core_.connections.WaitUntilEmpty(std::max(deadline, Clock::now() + kMinFlushTime));

  queue_depth_.Reset();
  pool_->Stop();
  if (core_.connections.NoCallsInFlight()) {
    pool_->Join();
  } else {
    Logger().warn(
        "ferry server: calls still running after the {} ms grace period; their connections are "
        "closed and their handlers are waited for when the server is destroyed",
        options_.grace_period.count());
  }
  io_->Stop();
  io_->Join();
  core_.handshakes.Stop();
  // The IO and handshake threads are gone, so this thread may now close what they owned.
  for (const auto& connection : core_.connections.Snapshot()) {
    connection->Close(drained ? "server stopped" : "server stopped after its grace period",
                      spdlog::level::debug);
  }
  listeners_.clear();
  Logger().info("ferry server: stopped");

  MutexLock lock(state_mu_);
  state_ = State::kStopped;
  state_changed_.notify_all();
}

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Server::~Server() = default;
Status Server::AddService(Service* service) { return impl_->AddService(service); }
Status Server::AddHttpRoute(HttpRoute route) { return impl_->AddHttpRoute(std::move(route)); }
Status Server::AddFilter(std::string name, std::shared_ptr<ServerFilter> filter) {
  return impl_->AddFilter(std::move(name), std::move(filter));
}
Status Server::Start() { return impl_->Start(); }
uint16_t Server::port() const { return impl_->port(); }
uint16_t Server::admin_port() const { return impl_->admin_port(); }
std::vector<SlowCall> Server::RecentSlowCalls() const { return impl_->slow_calls(); }
void Server::Stop() { impl_->Stop(); }
void Server::Wait() { impl_->Wait(); }

}  // namespace ferry
