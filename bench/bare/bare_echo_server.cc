// The ceiling: a length-prefixed echo over plain Asio with no framework at all. Every frame of a
// read is echoed with one append, and replies gathered while a write is out leave in the next one.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/write.hpp>
#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "ferry/bench/flag_parser.h"
#include "ferry/bench/server_options.h"
#include "frame_reader.h"
#include "io_context_pool.h"

namespace ferry::bench {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

class EchoConnection : public std::enable_shared_from_this<EchoConnection> {
 public:
  explicit EchoConnection(tcp::socket socket) : socket_(std::move(socket)) {}

  void Start() {
    boost::system::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    ReadMore();
  }

 private:
  // Reading pauses while this much is waiting to be written, so a client that does not read
  // its replies cannot grow the server without bound.
  static constexpr size_t kMaxPendingBytes = 4u << 20;

  void ReadMore() {
    reading_ = true;
    socket_.async_read_some(reader_.Prepare(),
                            [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                              self->OnRead(ec, n);
                            });
  }

  void OnRead(boost::system::error_code ec, size_t n) {
    reading_ = false;
    if (ec || closed_) return Close();
    reader_.Commit(n);
    // Frames of one read are contiguous, so their echo is a single append.
    const char* first = nullptr;
    size_t bytes = 0;
    for (std::string_view frame = reader_.NextFrame(); !frame.empty();
         frame = reader_.NextFrame()) {
      if (first == nullptr) first = frame.data();
      bytes += frame.size();
    }
    if (bytes != 0) pending_.append(first, bytes);
    if (reader_.oversized()) return Close();
    if (!writing_ && !pending_.empty()) WriteMore();
    if (pending_.size() < kMaxPendingBytes) ReadMore();
  }

  void WriteMore() {
    writing_ = true;
    outgoing_.swap(pending_);
    pending_.clear();
    asio::async_write(
        socket_, asio::buffer(outgoing_),
        [self = shared_from_this()](boost::system::error_code ec, size_t) { self->OnWritten(ec); });
  }

  void OnWritten(boost::system::error_code ec) {
    writing_ = false;
    if (ec || closed_) return Close();
    if (!pending_.empty()) WriteMore();
    if (!reading_) ReadMore();
  }

  void Close() {
    closed_ = true;
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

  tcp::socket socket_;
  FrameReader reader_;
  std::string pending_;   // replies not yet handed to a write
  std::string outgoing_;  // the write in flight; swapped with pending_ to reuse both buffers
  bool reading_ = false;
  bool writing_ = false;
  bool closed_ = false;
};

class EchoServer {
 public:
  EchoServer(IoContextPool& pool, const tcp::endpoint& endpoint)
      : pool_(pool), acceptor_(pool.At(0), endpoint) {}

  uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void Accept() {
    acceptor_.async_accept(pool_.At(next_context_++),
                           [this](boost::system::error_code ec, tcp::socket socket) {
                             if (!ec) std::make_shared<EchoConnection>(std::move(socket))->Start();
                             if (ec != asio::error::operation_aborted) Accept();
                           });
  }

 private:
  IoContextPool& pool_;
  tcp::acceptor acceptor_;
  size_t next_context_ = 0;
};

int Main(int argc, char** argv) {
  ServerOptions options;
  FlagParser flags("bare-echo-server");
  AddServerFlags(flags, &options);
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;

  boost::system::error_code ec;
  const auto address = asio::ip::make_address(options.bind, ec);
  if (ec) {
    std::cerr << "bare-echo-server: --bind: bad address '" << options.bind << "'\n";
    return 2;
  }
  IoContextPool pool(options.threads);
  std::unique_ptr<EchoServer> server;
  try {
    server = std::make_unique<EchoServer>(pool, tcp::endpoint(address, options.port));
  } catch (const boost::system::system_error& e) {
    std::cerr << "bare-echo-server: cannot listen on " << options.bind << ":" << options.port
              << ": " << e.what() << "\n";
    return 1;
  }
  server->Accept();
  pool.Start();
  std::cout << "bare-echo-server listening on " << options.bind << ":" << server->port()
            << " threads=" << options.threads << std::endl;

  asio::io_context signals_context;
  asio::signal_set signals(signals_context, SIGINT, SIGTERM);
  signals.async_wait([](boost::system::error_code, int) {});
  signals_context.run();
  pool.Stop();
  return 0;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) { return ferry::bench::Main(argc, argv); }
