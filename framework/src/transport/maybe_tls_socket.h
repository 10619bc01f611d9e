#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <utility>

namespace ferry::transport {

// A TCP socket that may carry TLS, as an Asio stream (async_read_some, async_write_some, and so
// boost::asio::async_write). Until StartTls() bytes go straight to the socket: a plaintext
// connection pays one branch per read or write and nothing else, neither an allocation nor a
// virtual call. Like the socket, it belongs to one io_context and is used from its one thread.
class MaybeTlsSocket {
 public:
  using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>;
  using executor_type = boost::asio::ip::tcp::socket::executor_type;

  explicit MaybeTlsSocket(boost::asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}
  // Not yet open, like a socket made for a connect.
  explicit MaybeTlsSocket(boost::asio::io_context& io) : socket_(io) {}

  boost::asio::ip::tcp::socket& socket() { return socket_; }
  const boost::asio::ip::tcp::socket& socket() const { return socket_; }
  executor_type get_executor() { return socket_.get_executor(); }

  // From now on reads and writes go through a new TLS session over the socket, whose handshake
  // is the caller's to make. A client calls it again for each new connection of the socket.
  TlsStream& StartTls(boost::asio::ssl::context& context) {
    tls_ = std::make_shared<TlsStream>(socket_, context);
    return *tls_;
  }
  // Null while plaintext.
  TlsStream* tls() { return tls_.get(); }

  // Moves the connection, and its TLS session if any, onto the io_context of `executor`, from
  // whose thread it is used from then on. Nothing may be pending on the socket. The session's
  // own timers, which order its reads and writes, stay where StartTls() made them: a session
  // started elsewhere must come back there before it reads and writes concurrently.
  void MoveTo(const executor_type& executor) {
    boost::asio::ip::tcp::socket moved(executor);
    if (socket_.is_open()) {
      boost::system::error_code error;
      const boost::asio::ip::tcp protocol = socket_.local_endpoint(error).protocol();
      const auto descriptor = socket_.release(error);
      if (!error) moved.assign(protocol, descriptor, error);
    }
    socket_ = std::move(moved);
  }

  // Each TLS operation holds the session it runs on: one still finishing (cancelled, say)
  // when StartTls() replaces the session never outlives it.
  template <class Buffers, class Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    if (tls_ == nullptr) return socket_.async_read_some(buffers, std::forward<Handler>(handler));
    tls_->async_read_some(buffers, Holding(std::forward<Handler>(handler)));
  }
  template <class Buffers, class Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (tls_ == nullptr) return socket_.async_write_some(buffers, std::forward<Handler>(handler));
    tls_->async_write_some(buffers, Holding(std::forward<Handler>(handler)));
  }
  template <class Handler>
  void async_handshake(TlsStream::handshake_type type, Handler&& handler) {
    tls_->async_handshake(type, Holding(std::forward<Handler>(handler)));
  }

 private:
  template <class Handler>
  auto Holding(Handler&& handler) {
    return [session = tls_, handler = std::forward<Handler>(handler)](auto&&... args) mutable {
      handler(std::forward<decltype(args)>(args)...);
    };
  }

  boost::asio::ip::tcp::socket socket_;
  std::shared_ptr<TlsStream> tls_;
};

}  // namespace ferry::transport
