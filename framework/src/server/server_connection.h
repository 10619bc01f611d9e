#pragma once

#include <spdlog/common.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/status.h"
#include "ferry/framework/http.h"
#include "ferry/rpc_meta.pb.h"
#include "http/http_router.h"
#include "server/auth_token_table.h"
#include "server/in_flight_calls.h"
#include "server/server_call.h"
#include "server/server_core.h"
#include "stats/framework_metrics.h"
#include "thread_annotations.h"
#include "transport/maybe_tls_socket.h"
#include "transport/outbound_queue.h"

namespace google::protobuf {
class Message;
}

namespace ferry::http {
class HttpSession;
}

namespace ferry::server {

// One accepted socket. It lives on one io_context for its whole life, so everything but the
// outbound queue and the in-flight list is touched by that one IO thread only; its TLS
// handshake alone runs on a thread of ServerCore::handshakes, which has the socket meanwhile.
class ServerConnection : public std::enable_shared_from_this<ServerConnection> {
 public:
  using Clock = std::chrono::steady_clock;

  // `port`: which HTTP routes a connection of this listener serves (see HttpRouter::Port); an
  // admin listener's connections speak HTTP only.
  // `address`: the peer's network, as ServerCore::admission counted it in (PeerNetworkOf).
  // `tls`: the listener's TLS context (ServerCore::tls_context), null for plaintext only.
  ServerConnection(ServerCore& core, boost::asio::ip::tcp::socket socket, std::string address,
                   http::HttpRouter::Port port, boost::asio::ssl::context* tls);
  ~ServerConnection();

  // Starts reading and the idle timer. On the connection's IO thread (post to executor()).
  void Start();
  boost::asio::any_io_executor executor() { return executor_; }
  const std::string& peer() const { return peer_; }
  // The peer's IP address, and as text without brackets: the client's address unless a
  // trusted proxy forwards for another (ServerContext::client_address()).
  const boost::asio::ip::address& peer_ip() const { return peer_ip_; }
  const std::string& peer_address() const { return peer_address_; }
  // The CN of the client certificate the TLS handshake verified; empty without one. Set before
  // the first request is read.
  const std::string& peer_identity() const { return peer_identity_; }
  ServerCore& core() { return core_; }
  const filter::ServerFilterChain& filters() const { return core_.filters; }
  // Whether this thread is handling a read of this connection: an answer queued now leaves with
  // the answers to the other requests of that read, in one write.
  bool InReadLoop() const { return reading_ == this; }

  // Queues the answer to `request_id`; the body is written only with an OK status. Any thread.
  // `on_io_thread` (the connection's own thread, while it handles a read) defers the write to
  // the end of that read, so answers to pipelined requests leave in one write.
  // An answer that would exceed `max_frame_bytes`, what the client reads, is replaced by a
  // RESOURCE_EXHAUSTED status: that call fails, not the client's connection.
  void SendResponse(uint64_t request_id, uint8_t serializer, const Status& status,
                    const google::protobuf::Message* body, bool on_io_thread,
                    size_t max_frame_bytes = codec::kDefaultMaxFrameBytes);

  // Marks call `request_id` cancelled (ServerContext::cancelled()), if it is in flight. Any
  // thread.
  void CancelCall(uint64_t request_id);

  // The calls running or queued on the pool. Any thread.
  void Track(ServerCall* call);
  // Lets go of `connection` too, then reports the call ended (ConnectionRegistry::CallEnded):
  // the caller must touch nothing of the server afterwards.
  static void Untrack(std::shared_ptr<ServerConnection> connection, ServerCall* call);
  bool HasCallsInFlight() const;

  // Tells the client to send no more requests here (a GOAWAY frame); it acknowledges once it
  // sent its last one. Any thread.
  void GoAway();
  // The client acknowledged GOAWAY, or the connection is closed. Any thread.
  bool GoneAway() const { return gone_away_.load(std::memory_order_acquire); }

  // Stops reading, writes what is queued, then closes. Any thread.
  void CloseGracefully();

  // For the HTTP session, on the IO thread: queue an answer's bytes; close once written; serve
  // what is buffered (HttpSession::Process), then write its answers and read on.
  void EnqueueHttp(std::string_view bytes) { Enqueue(bytes, InReadLoop()); }
  void CloseAfterFlush(std::string reason);
  void ServeHttp();
  // Whether the next pipelined HTTP request may be served: the answers before it are written,
  // but for less than a read's worth (which small answers leave in one write), and none is
  // unwritten while the server's buffers are full.
  bool MayServeNextHttp() const;
  // The answer to HTTP request `exchange` of this connection. Any thread.
  void AnswerHttp(uint64_t exchange, HttpResponse response);
  // At `deadline`, unless answered by then, HTTP call `exchange` is cancelled and answered 504.
  // On the IO thread.
  void ExpireHttpCallAt(uint64_t exchange, Clock::time_point deadline);

  // On the IO thread: the call object inline methods run in, reused from call to call so that
  // its messages and context keep their memory; RunReusableCall() runs it once it is prepared.
  ServerCall& ReusableCall();
  void RunReusableCall();
  // On the IO thread, or on any thread once the IO threads have been joined.
  void Close(std::string_view reason, spdlog::level::level_enum level);

 private:
  void Read();
  // Until the first byte, and with TLS until the handshake is done: first_byte_timeout_ms and
  // handshake_timeout_ms since Start().
  void ArmStartTimer(Clock::time_point at);
  void OnStartTimer(const boost::system::error_code& error);
  bool FirstByteDueFirst() const;
  // With TLS on the port: the first byte is peeked, not read, so that a ClientHello reaches the
  // TLS session whole; a TLS record starts the handshake, anything else is plaintext.
  void AwaitFirstByte();
  void OnFirstByte(const boost::system::error_code& error);
  // Hands the socket to a handshake thread (max_handshakes permitting), which hands it back to
  // OnHandshake() once the handshake is done.
  void StartHandshake();
  void OnHandshakeAway(const boost::system::error_code& error);
  void OnHandshake(const boost::system::error_code& error);
  // While the handshake thread has it, the socket is closed there (Close()).
  void CloseAway();
  // Counts and logs (rate-limited) a connection refused before it spoke: `why` for the log.
  void RefuseTls(stats::ServerMetrics::TlsFailure failure, const std::string& why);
  // Reads again unless a read is pending, HTTP waits for an answer, or the answers waiting to be
  // written are past server.limits (then it pauses until they drain).
  void ContinueReading();
  bool MustPause() const;
  // Charges the read buffer's growth to ServerCore::buffers; closes the connection, and returns
  // false, when the buffer grew past a read's worth while the server's budget is spent.
  bool ChargeReadBuffer();
  // After a read was decoded: times the frame left incomplete, if any (frame_timeout_ms).
  void WatchPartialFrame(Clock::time_point now, bool completed_one);
  void ArmFrameTimer(Clock::time_point at);
  void OnFrameTimer(const boost::system::error_code& error);
  // `bytes` of the answers left the socket.
  void Written(size_t bytes);
  // Gives back what the connection counted against the server's limits. Idempotent.
  void ReleaseLimits();
  void OnRead(const boost::system::error_code& error, size_t bytes);
  // The first bytes decide the protocol: Ferry's frames begin with 0xFE, HTTP with a method's
  // letters. False when the connection was closed instead.
  bool Sniff();
  // In the process's open connections of `protocol`, until Close().
  void CountOpen(stats::ServerMetrics::Protocol protocol);
  void CountClosed();
  void OnHttpRead();
  void HandleFrame(Clock::time_point received);
  void HandleRequest(Clock::time_point received);
  void SendControl(codec::MessageType type, uint8_t flags, uint64_t request_id);
  void OnGoAwayAck();
  void SendGoAway();
  void Enqueue(std::string_view frame, bool on_io_thread);
  void Flush();
  void ArmIdleTimer(Clock::time_point at);
  void OnIdleTimer(const boost::system::error_code& error);

  ServerCore& core_;
  transport::MaybeTlsSocket socket_;
  const boost::asio::any_io_executor executor_;  // the IO thread's, whoever has socket_
  boost::asio::ssl::context* const tls_context_;
  const std::string address_;
  const std::string peer_;
  const boost::asio::ip::address peer_ip_;
  const std::string peer_address_;
  std::string peer_identity_;

  // IO thread only.
  codec::FrameDecoder decoder_;
  codec::Frame frame_;  // reused for every frame, keeping its buffers' capacity
  wire::RpcMeta meta_;  // likewise
  AuthTokenTable auth_tokens_;
  // Reused by every inline call that completes before its handler returns; one that does not
  // takes it along, and the next inline call gets a new one.
  std::unique_ptr<ServerCall> inline_call_;
  std::string write_buffer_;
  boost::asio::steady_timer idle_timer_;
  Clock::time_point last_receive_;
  bool flush_requested_ = false;  // by the read being handled
  bool writing_ = false;
  bool closing_ = false;
  bool closed_ = false;
  bool goaway_sent_ = false;
  std::atomic<bool> gone_away_{false};
  bool sniffed_ = false;
  bool counted_open_ = false;
  stats::ServerMetrics::Protocol protocol_ = stats::ServerMetrics::kBinary;  // once sniffed
  bool read_pending_ = false;
  std::string close_reason_;  // set by CloseAfterFlush
  const http::HttpRouter::Port http_port_;
  std::thread::id io_thread_;                // the one thread of its io_context, set by Start()
  std::unique_ptr<http::HttpSession> http_;  // set once the first bytes were HTTP

  static inline thread_local const ServerConnection* reading_ = nullptr;

  transport::OutboundQueue outbound_;

  // What this connection holds against server.limits. The read buffer's capacity as last
  // charged (IO thread); answers queued or being written (any thread).
  size_t charged_read_buffer_ = 0;
  std::atomic<size_t> unwritten_{0};
  std::atomic<bool> overflowed_{false};  // past max_outbound_bytes: closing
  std::atomic<bool> limits_released_{false};
  bool paused_ = false;  // IO thread: not reading until the answers drain
  // A binary frame begun and not yet complete, since when (frame_timeout_ms). IO thread.
  // Before any frame, it times the first byte and the TLS handshake instead (ArmStartTimer()).
  boost::asio::steady_timer frame_timer_;
  Clock::time_point started_;
  bool awaiting_first_byte_ = false;
  bool handshaking_ = false;
  // IO thread: the socket is on a handshake thread. Handshake thread: the handshake ended and
  // the socket is on its way back.
  bool handshake_away_ = false;
  bool handshake_ended_ = false;
  boost::asio::io_context* handshake_io_ = nullptr;
  bool frame_timer_armed_ = false;
  bool partial_frame_ = false;
  Clock::time_point partial_frame_since_;

  mutable Mutex calls_mu_;
  InFlightCalls calls_in_flight_ FERRY_GUARDED_BY(calls_mu_);
  // Closed; unregisters when its last call ends.
  bool disconnected_ FERRY_GUARDED_BY(calls_mu_) = false;
};

}  // namespace ferry::server
