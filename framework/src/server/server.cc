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
#include "logger.h"
#include "server/business_pool.h"
#include "server/server_connection.h"
#include "server/server_core.h"
#include "transport/endpoint.h"
#include "transport/io_thread_pool.h"

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
  if (options.compression != "none" && codec::FindCompressor(options.compression) == nullptr) {
    return invalid("unknown compression algorithm '" + options.compression + "'");
  }
  return Status::Ok();
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

}  // namespace

class Server::Impl {
 public:
  explicit Impl(ServerOptions options) : options_(std::move(options)) {}

  ~Impl() {
    Stop();
    // Handlers that outlived the grace period are waited for here, while the connections
    // they answer to and the IO contexts those connections belong to still exist.
    pool_.reset();
  }

  Status AddService(Service* service) {
    std::lock_guard lock(state_mu_);
    if (state_ != State::kNew) {
      return Status(StatusCode::FAILED_PRECONDITION, "services must be added before Start()");
    }
    return core_.methods.Add(service);
  }

  Status Start();
  uint16_t port() const { return port_; }
  void Stop();

  void Wait() {
    std::unique_lock lock(state_mu_);
    state_changed_.wait(lock, [&] { return state_ == State::kStopped; });
  }

 private:
  enum class State { kNew, kRunning, kStopping, kStopped };

  Status Listen(const tcp::endpoint& endpoint);
  void Accept();
  void OnAccept(const boost::system::error_code& error, tcp::socket socket);
  void CloseAcceptor();

  const ServerOptions options_;
  // Destroyed bottom-up, and that order matters: the pool's straggling calls hold connections,
  // whose sockets belong to the IO contexts, and all of them use the core.
  server::ServerCore core_;
  std::unique_ptr<transport::IoThreadPool> io_;
  std::optional<tcp::acceptor> acceptor_;
  std::optional<boost::asio::steady_timer> accept_retry_;
  std::unique_ptr<server::BusinessPool> pool_;
  uint16_t port_ = 0;

  std::mutex state_mu_;
  std::condition_variable state_changed_;
  State state_ = State::kNew;
};

Status Server::Impl::Start() {
  std::lock_guard lock(state_mu_);
  if (state_ != State::kNew) {
    return Status(StatusCode::FAILED_PRECONDITION, "server already started or stopped");
  }
  Status status = ValidateOptions(options_);
  if (status.ok()) status = filter::ServerFilterChain::Create(options_.filters, &core_.filters);
  if (!status.ok()) return status;
  core_.methods.ForEachEntry([this](server::MethodTable::Entry& entry) {
    entry.filter_states = core_.filters.NewMethodStates(*entry.method->spec);
  });

  io_ = std::make_unique<transport::IoThreadPool>(options_.io_threads, "ferry-srv-io");
  tcp::endpoint endpoint;
  status = ResolveListenAddress(options_.listen, io_->At(0), &endpoint);
  if (status.ok()) status = Listen(endpoint);
  if (!status.ok()) {
    acceptor_.reset();
    io_.reset();
    return status;
  }

  pool_ = std::make_unique<server::BusinessPool>(options_.worker_threads, options_.queue_capacity,
                                                 "ferry-worker");
  core_.pool = pool_.get();
  core_.limits.max_frame_bytes = options_.max_frame_bytes;
  core_.idle_timeout = options_.idle_timeout;
  const codec::Compressor* compressor = codec::FindCompressor(options_.compression);
  core_.response_body.compression =
      compressor != nullptr ? compressor->id() : codec::compression_id::kNone;
  core_.response_body.compress_threshold = options_.compress_threshold;
  core_.response_body.compression_level = options_.compression_level;

  accept_retry_.emplace(io_->At(0));
  boost::asio::post(io_->At(0), [this] { Accept(); });
  state_ = State::kRunning;
  Logger().info("ferry server: listening on {}",
                endpoint.address().to_string() + ":" + std::to_string(port_));
  return Status::Ok();
}

Status Server::Impl::Listen(const tcp::endpoint& endpoint) {
  auto fail = [&](const char* step, const boost::system::error_code& error) {
    return Status(StatusCode::UNAVAILABLE,
                  "cannot listen on " + options_.listen + ": " + step + ": " + error.message());
  };
  boost::system::error_code error;
  acceptor_.emplace(io_->At(0));
  acceptor_->open(endpoint.protocol(), error);
  if (error) return fail("open", error);
  acceptor_->set_option(tcp::acceptor::reuse_address(true), error);
  if (error) return fail("SO_REUSEADDR", error);
  acceptor_->bind(endpoint, error);
  if (error) return fail("bind", error);
  acceptor_->listen(boost::asio::socket_base::max_listen_connections, error);
  if (error) return fail("listen", error);
  port_ = acceptor_->local_endpoint(error).port();
  if (error) return fail("local_endpoint", error);
  return Status::Ok();
}

// On IO thread 0. Each accepted socket goes straight onto the next IO context, where its
// connection then lives.
void Server::Impl::Accept() {
  acceptor_->async_accept(io_->Next(),
                          [this](const boost::system::error_code& error, tcp::socket socket) {
                            OnAccept(error, std::move(socket));
                          });
}

void Server::Impl::OnAccept(const boost::system::error_code& error, tcp::socket socket) {
  if (error == boost::asio::error::operation_aborted || !acceptor_->is_open()) return;
  if (error) {
    Logger().warn("ferry server: accept failed: {}; retrying in {} ms", error.message(),
                  kAcceptRetryDelay.count());
    accept_retry_->expires_after(kAcceptRetryDelay);
    accept_retry_->async_wait([this](const boost::system::error_code& wait_error) {
      if (!wait_error && acceptor_->is_open()) Accept();
    });
    return;
  }
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  auto connection = std::make_shared<server::ServerConnection>(core_, std::move(socket));
  core_.connections.Add(connection);
  boost::asio::post(connection->executor(), [connection] { connection->Start(); });
  Accept();
}

void Server::Impl::CloseAcceptor() {
  std::promise<void> closed;
  boost::asio::post(io_->At(0), [&] {
    boost::system::error_code ignored;
    acceptor_->close(ignored);
    accept_retry_->cancel();
    closed.set_value();
  });
  closed.get_future().wait();
}

void Server::Impl::Stop() {
  {
    std::unique_lock lock(state_mu_);
    if (state_ == State::kNew) {
      state_ = State::kStopped;
      state_changed_.notify_all();
      return;
    }
    if (state_ != State::kRunning) {
      state_changed_.wait(lock, [&] { return state_ == State::kStopped; });
      return;
    }
    state_ = State::kStopping;
  }
  const Clock::time_point deadline = Clock::now() + options_.grace_period;
  CloseAcceptor();
  // Requests keep being served until each client acknowledged that it will send no more, so
  // that no request is ever refused on a connection whose client knows of GOAWAY.
  for (const auto& connection : core_.connections.Snapshot()) connection->GoAway();
  core_.connections.WaitUntilGoneAway(std::min(deadline, Clock::now() + kGoAwayAckWait));
  core_.shutting_down.store(true);

  const bool drained = core_.connections.WaitUntilNoCallsInFlight(deadline);
  for (const auto& connection : core_.connections.Snapshot()) connection->CloseGracefully();
  core_.connections.WaitUntilEmpty(std::max(deadline, Clock::now() + kMinFlushTime));

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
  // The IO threads are gone, so this thread may now close what they owned.
  for (const auto& connection : core_.connections.Snapshot()) {
    connection->Close(drained ? "server stopped" : "server stopped after its grace period",
                      spdlog::level::debug);
  }
  acceptor_.reset();
  accept_retry_.reset();
  Logger().info("ferry server: stopped");

  std::lock_guard lock(state_mu_);
  state_ = State::kStopped;
  state_changed_.notify_all();
}

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Server::~Server() = default;
Status Server::AddService(Service* service) { return impl_->AddService(service); }
Status Server::Start() { return impl_->Start(); }
uint16_t Server::port() const { return impl_->port(); }
void Server::Stop() { impl_->Stop(); }
void Server::Wait() { impl_->Wait(); }

}  // namespace ferry
