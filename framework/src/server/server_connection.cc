#include "server/server_connection.h"

#include <google/protobuf/message.h>

#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <span>
#include <thread>

#include "ferry/codec/message_codec.h"
#include "http/http_session.h"
#include "log_rate_limiter.h"
#include "logger.h"
#include "server/business_pool.h"
#include "server/peer_address.h"
#include "server/server_call.h"
#include "stats/framework_metrics.h"
#include "transport/tls_peer.h"

namespace ferry::server {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
// What of the answers before it may still be unwritten when a pipelined HTTP request is served.
constexpr size_t kPipelinedAnswerWindow = kReadChunk;
// The first byte of every TLS record that opens a handshake (a ClientHello); Ferry's frames
// begin with 0xFE, HTTP with a method's capital letters.
constexpr uint8_t kTlsHandshakeRecord = 0x16;

}  // namespace

ServerConnection::ServerConnection(ServerCore& core, boost::asio::ip::tcp::socket socket,
                                   std::string address, http::HttpRouter::Port port,
                                   boost::asio::ssl::context* tls)
    : core_(core),
      socket_(std::move(socket)),
      executor_(socket_.get_executor()),
      tls_context_(tls),
      address_(std::move(address)),
      peer_(PeerOf(socket_.socket())),
      peer_ip_(PeerIpOf(socket_.socket())),
      peer_address_(peer_ip_.is_unspecified() ? "unknown peer" : peer_ip_.to_string()),
      decoder_(core.limits),
      idle_timer_(executor_),
      http_port_(port),
      frame_timer_(executor_) {}

ServerConnection::~ServerConnection() {
  CountClosed();
  ReleaseLimits();
}

void ServerConnection::Start() {
  io_thread_ = std::this_thread::get_id();
  if (closed_) return;
  started_ = last_receive_ = Clock::now();
  if (core_.idle_timeout.count() > 0) ArmIdleTimer(last_receive_ + core_.idle_timeout);
  const std::chrono::milliseconds first_byte = core_.connection_limits.first_byte_timeout;
  awaiting_first_byte_ = true;
  if (tls_context_ != nullptr) {
    handshaking_ = true;
    ArmStartTimer(started_ +
                  (FirstByteDueFirst() ? first_byte : core_.connection_limits.handshake_timeout));
    return AwaitFirstByte();
  }
  if (first_byte.count() > 0) ArmStartTimer(started_ + first_byte);
  Read();
}

bool ServerConnection::FirstByteDueFirst() const {
  const std::chrono::milliseconds first_byte = core_.connection_limits.first_byte_timeout;
  return first_byte.count() > 0 &&
         (tls_context_ == nullptr || first_byte < core_.connection_limits.handshake_timeout);
}

void ServerConnection::ArmStartTimer(Clock::time_point at) {
  frame_timer_.expires_at(at);
  frame_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    self->OnStartTimer(error);
  });
}

void ServerConnection::OnStartTimer(const boost::system::error_code& error) {
  if (error || closed_) return;
  if (awaiting_first_byte_ && FirstByteDueFirst()) {
    stats::Server().limit_events[stats::ServerMetrics::kFirstByteTimeout]->Increment();
    Close("it sent nothing within " +
              std::to_string(core_.connection_limits.first_byte_timeout.count()) +
              " ms (server.limits.first_byte_timeout_ms)",
          spdlog::level::debug);
    return;
  }
  if (!handshaking_) return;
  RefuseTls(stats::ServerMetrics::kTlsHandshakeTimeout,
            "the TLS handshake did not finish within " +
                std::to_string(core_.connection_limits.handshake_timeout.count()) +
                " ms (server.limits.handshake_timeout_ms)");
}

void ServerConnection::AwaitFirstByte() {
  socket_.socket().async_wait(boost::asio::ip::tcp::socket::wait_read,
                              [self = shared_from_this()](const boost::system::error_code& error) {
                                self->OnFirstByte(error);
                              });
}

void ServerConnection::OnFirstByte(const boost::system::error_code& error) {
  if (closed_) return;
  uint8_t first = 0;
  boost::system::error_code peek_error = error;
  size_t peeked = 0;
  if (!peek_error) {
    peeked = socket_.socket().receive(boost::asio::buffer(&first, 1),
                                      boost::asio::socket_base::message_peek, peek_error);
  }
  if (peek_error || peeked == 0) {
    Close(peek_error && peek_error != boost::asio::error::eof
              ? "read failed: " + peek_error.message()
              : std::string("peer closed the connection before it spoke"),
          spdlog::level::debug);
    return;
  }
  awaiting_first_byte_ = false;
  if (first == kTlsHandshakeRecord) {
    if (FirstByteDueFirst()) ArmStartTimer(started_ + core_.connection_limits.handshake_timeout);
    return StartHandshake();
  }
  if (!core_.tls.accept_plaintext) {
    return RefuseTls(stats::ServerMetrics::kTlsPlaintext,
                     "it spoke plaintext, and the port requires TLS (server.tls.accept_plaintext: "
                     "false)");
  }
  handshaking_ = false;
  frame_timer_.cancel();
  Read();
}

void ServerConnection::StartHandshake() {
  if (!core_.handshakes.TryBegin()) {
    return RefuseTls(stats::ServerMetrics::kTlsBusy,
                     std::to_string(core_.handshakes.max_in_flight()) +
                         " TLS handshakes were in progress (server.limits.max_handshakes)");
  }
  // Made here, so that the session's timers are the IO thread's, where it will be used.
  socket_.StartTls(*tls_context_);
  handshake_away_ = true;
  handshake_io_ = &core_.handshakes.Next();
  socket_.MoveTo(handshake_io_->get_executor());
  boost::asio::post(*handshake_io_, [self = shared_from_this()] {
    self->socket_.async_handshake(
        boost::asio::ssl::stream_base::server,
        [self](const boost::system::error_code& error) { self->OnHandshakeAway(error); });
  });
}

void ServerConnection::OnHandshakeAway(const boost::system::error_code& error) {
  handshake_ended_ = true;
  socket_.MoveTo(executor_);
  boost::asio::post(executor_, [self = shared_from_this(), error] {
    self->handshake_away_ = false;
    self->core_.handshakes.End();
    if (self->closed_) {
      boost::system::error_code ignored;
      self->socket_.socket().close(ignored);
      return;
    }
    self->OnHandshake(error);
  });
}

void ServerConnection::CloseAway() {
  boost::asio::post(*handshake_io_, [self = shared_from_this()] {
    if (self->handshake_ended_) return;  // on its way back, where Close() is finished
    boost::system::error_code ignored;
    self->socket_.socket().close(ignored);
  });
}

void ServerConnection::OnHandshake(const boost::system::error_code& error) {
  if (error) {
    return RefuseTls(stats::ServerMetrics::kTlsHandshakeFailed,
                     "TLS handshake failed: " + error.message());
  }
  handshaking_ = false;
  frame_timer_.cancel();
  peer_identity_ = transport::PeerCommonName(socket_.tls()->native_handle());
  Read();
}

void ServerConnection::RefuseTls(stats::ServerMetrics::TlsFailure failure, const std::string& why) {
  stats::Server().tls_failures[failure]->Increment();
  // Rate-limited: anyone who can reach the port can fail handshakes as fast as they like.
  static LogRateLimiter refusals("ferry server: TLS refusals");
  refusals.Log(spdlog::level::warn, "ferry server: refusing connection from {}: {}", peer_, why);
  Close(why, spdlog::level::debug);
}

void ServerConnection::Read() {
  const std::span<uint8_t> space =
      http_ != nullptr ? http_->PrepareRead(kReadChunk) : decoder_.PrepareWrite(kReadChunk);
  if (!ChargeReadBuffer()) return;
  read_pending_ = true;
  socket_.async_read_some(
      boost::asio::buffer(space.data(), space.size()),
      [self = shared_from_this()](const boost::system::error_code& error, size_t bytes) {
        self->OnRead(error, bytes);
      });
}

void ServerConnection::ContinueReading() {
  if (closed_ || closing_ || read_pending_) return;
  if (http_ != nullptr && !http_->WantsRead()) return;
  if (MustPause()) {
    if (!std::exchange(paused_, true)) {
      stats::Server().limit_events[stats::ServerMetrics::kReadPaused]->Increment();
    }
    return;
  }
  if (std::exchange(paused_, false) && partial_frame_) {
    // The frame could not progress while the connection was not read: its time starts again.
    partial_frame_since_ = Clock::now();
  }
  Read();
}

bool ServerConnection::MustPause() const {
  const size_t unwritten = unwritten_.load(std::memory_order_relaxed);
  const size_t high_water = core_.connection_limits.outbound_high_water_bytes;
  // Once paused, until half drained: not a pause and a read for every write.
  return unwritten > (paused_ ? high_water / 2 : high_water) ||
         (unwritten > 0 && core_.buffers.Exceeded());
}

bool ServerConnection::MayServeNextHttp() const {
  const size_t unwritten = unwritten_.load(std::memory_order_relaxed);
  return unwritten < kPipelinedAnswerWindow && (unwritten == 0 || !core_.buffers.Exceeded());
}

bool ServerConnection::ChargeReadBuffer() {
  const size_t capacity = http_ != nullptr ? http_->held_bytes() : decoder_.capacity();
  const int64_t growth =
      static_cast<int64_t>(capacity) - static_cast<int64_t>(charged_read_buffer_);
  charged_read_buffer_ = capacity;
  core_.buffers.Charge(growth);
  // Every connection may have a read's worth, or none could be served at all.
  if (growth > 0 && capacity > 2 * kReadChunk && core_.buffers.Exceeded()) {
    stats::Server().limit_events[stats::ServerMetrics::kBuffersFull]->Increment();
    Close("the server's buffers are full (server.limits.max_buffered_bytes: " +
              std::to_string(core_.buffers.limit()) + ")",
          spdlog::level::warn);
    return false;
  }
  return true;
}

void ServerConnection::WatchPartialFrame(Clock::time_point now, bool completed_one) {
  if (decoder_.buffered_bytes() == 0) {
    partial_frame_ = false;
    return;
  }
  if (!partial_frame_ || completed_one) {
    partial_frame_ = true;
    partial_frame_since_ = now;
  }
  const std::chrono::milliseconds timeout = core_.connection_limits.frame_timeout;
  if (timeout.count() > 0 && !frame_timer_armed_) ArmFrameTimer(partial_frame_since_ + timeout);
}

void ServerConnection::ArmFrameTimer(Clock::time_point at) {
  frame_timer_armed_ = true;
  frame_timer_.expires_at(at);
  frame_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    self->OnFrameTimer(error);
  });
}

void ServerConnection::OnFrameTimer(const boost::system::error_code& error) {
  frame_timer_armed_ = false;
  if (error || closed_ || !partial_frame_) return;
  const std::chrono::milliseconds timeout = core_.connection_limits.frame_timeout;
  const Clock::time_point due = partial_frame_since_ + timeout;
  if (paused_ || Clock::now() < due) return ArmFrameTimer(paused_ ? Clock::now() + timeout : due);
  stats::Server().limit_events[stats::ServerMetrics::kFrameTimeout]->Increment();
  Close("a frame did not arrive whole within " + std::to_string(timeout.count()) +
            " ms (server.limits.frame_timeout_ms); " + std::to_string(decoder_.buffered_bytes()) +
            " bytes of it came",
        spdlog::level::info);
}

void ServerConnection::Written(size_t bytes) {
  // Once released, the bytes of the write in progress were given back with the rest.
  if (limits_released_.load(std::memory_order_relaxed)) return;
  unwritten_.fetch_sub(bytes, std::memory_order_relaxed);
  core_.buffers.Charge(-static_cast<int64_t>(bytes));
  // A large answer's buffer is not kept for the small ones after it.
  if (write_buffer_.capacity() > codec::kRetainedBufferBytes) std::string().swap(write_buffer_);
}

void ServerConnection::ReleaseLimits() {
  if (limits_released_.exchange(true)) return;
  core_.admission.Release(address_);
  core_.buffers.Charge(-static_cast<int64_t>(std::exchange(charged_read_buffer_, 0)));
  core_.buffers.Charge(-static_cast<int64_t>(unwritten_.exchange(0)));
}

void ServerConnection::OnRead(const boost::system::error_code& error, size_t bytes) {
  read_pending_ = false;
  if (closed_ || closing_) return;
  if (awaiting_first_byte_ && bytes > 0) {
    awaiting_first_byte_ = false;
    frame_timer_.cancel();
  }
  if (http_ != nullptr && !error) {
    stats::Server().received_bytes[stats::ServerMetrics::kHttp]->Increment(bytes);
    http_->CommitRead(bytes);
    return OnHttpRead();
  }
  // A TLS peer that closes without saying so (no close_notify) ends its stream truncated.
  if (error == boost::asio::error::eof || error == boost::asio::ssl::error::stream_truncated) {
    if (http_ != nullptr ? http_->Idle() : decoder_.buffered_bytes() == 0) {
      Close("peer closed the connection", spdlog::level::debug);
    } else {
      Close("peer closed the connection in the middle of a frame (" +
                std::to_string(decoder_.buffered_bytes()) + " bytes buffered)",
            spdlog::level::info);
    }
    return;
  }
  if (error) {
    // A reset is how many clients hang up; anything else is worth an operator's attention.
    Close("read failed: " + error.message(), error == boost::asio::error::connection_reset
                                                 ? spdlog::level::debug
                                                 : spdlog::level::info);
    return;
  }
  decoder_.CommitWrite(bytes);
  if (!sniffed_ && !Sniff()) return;
  stats::Server().received_bytes[protocol_]->Increment(bytes);
  if (http_ != nullptr) return OnHttpRead();
  // One clock read per batch: every frame in it arrived at the same moment as far as
  // deadlines are concerned.
  const Clock::time_point received = Clock::now();
  last_receive_ = received;
  reading_ = this;
  bool completed_one = false;
  for (;;) {
    const codec::FrameDecoder::Result result = decoder_.Next(&frame_);
    if (result == codec::FrameDecoder::Result::kNeedMore) break;
    if (result == codec::FrameDecoder::Result::kError) {
      reading_ = nullptr;
      // Rate-limited: anyone who can reach the port can send garbage as often as they like.
      static LogRateLimiter malformed("ferry server: malformed input");
      malformed.Log(spdlog::level::warn,
                    "ferry server: closing connection from {}: malformed input: {}", peer_,
                    decoder_.error());
      Close("malformed input: " + decoder_.error(), spdlog::level::debug);
      return;
    }
    completed_one = true;
    HandleFrame(received);
    if (closed_) break;
  }
  reading_ = nullptr;
  if (closed_) return;
  WatchPartialFrame(received, completed_one);
  // A TLS session hands over one record per read. The answers to what one record asked wait
  // while more records have arrived, so that they leave with the next ones' in one write, as
  // they would on plaintext; they go once no read follows at once.
  const bool more_records =
      socket_.tls() != nullptr && SSL_has_pending(socket_.tls()->native_handle());
  if (flush_requested_ && !more_records) {
    flush_requested_ = false;
    Flush();
  }
  ContinueReading();
  if (flush_requested_ && !read_pending_) {
    flush_requested_ = false;
    Flush();
  }
}

void ServerConnection::CountOpen(stats::ServerMetrics::Protocol protocol) {
  protocol_ = protocol;
  counted_open_ = true;
  stats::Server().connections[protocol]->Increment();
}

void ServerConnection::CountClosed() {
  if (std::exchange(counted_open_, false)) stats::Server().connections[protocol_]->Decrement();
}

bool ServerConnection::Sniff() {
  sniffed_ = true;
  const uint8_t first = static_cast<uint8_t>(decoder_.buffered().front());
  const bool http = first >= 'A' && first <= 'Z';
  if (http_port_ == http::HttpRouter::Port::kAdmin && !http) {
    Close("the admin port speaks HTTP only", spdlog::level::info);
    return false;
  }
  if (!http) {
    CountOpen(stats::ServerMetrics::kBinary);
    if (goaway_sent_) SendGoAway();
    return true;
  }
  if (!core_.http.enabled) {
    Close("HTTP on this port is off (server.http.enabled: false)", spdlog::level::info);
    return false;
  }
  CountOpen(stats::ServerMetrics::kHttp);
  http_ = std::make_unique<http::HttpSession>(*this, core_.http, core_.routes, http_port_);
  const std::string_view first_bytes = decoder_.buffered();
  const std::span<uint8_t> space = http_->PrepareRead(first_bytes.size());
  std::copy(first_bytes.begin(), first_bytes.end(), space.begin());
  http_->CommitRead(first_bytes.size());
  decoder_ = codec::FrameDecoder(core_.limits);  // gives its buffer back
  if (goaway_sent_) SendGoAway();
  return true;
}

void ServerConnection::OnHttpRead() {
  last_receive_ = Clock::now();
  ServeHttp();
}

void ServerConnection::ServeHttp() {
  if (closed_) return;
  // Within the handling of a read already (an answer given while it serves a request): that
  // handling writes, charges and reads on once it is done.
  if (InReadLoop()) return http_->Process();
  reading_ = this;
  http_->Process();
  reading_ = nullptr;
  // The request bodies it received or let go of count against the server's buffers.
  if (!closing_ && !ChargeReadBuffer()) return;
  if (flush_requested_) {
    flush_requested_ = false;
    Flush();
  }
  ContinueReading();
}

void ServerConnection::CloseAfterFlush(std::string reason) {
  close_reason_ = std::move(reason);
  closing_ = true;
  if (InReadLoop()) {
    flush_requested_ = true;  // the read loop flushes, and the flush closes
  } else {
    Flush();
  }
}

void ServerConnection::AnswerHttp(uint64_t exchange, HttpResponse response) {
  if (std::this_thread::get_id() == io_thread_) {
    // Responding dispatches the pipelined requests behind this one: not on a closed connection.
    if (http_ != nullptr && !closed_) http_->Respond(exchange, std::move(response));
    return;
  }
  boost::asio::post(
      executor_, [self = shared_from_this(), exchange, response = std::move(response)]() mutable {
        if (self->http_ != nullptr && !self->closed_)
          self->http_->Respond(exchange, std::move(response));
      });
}

void ServerConnection::ExpireHttpCallAt(uint64_t exchange, Clock::time_point deadline) {
  http_->ExpireAt(exchange, deadline, [this, exchange] {
    CancelCall(exchange);
    http_->Respond(exchange, http::HttpSession::CallAnswer(Status(StatusCode::DEADLINE_EXCEEDED,
                                                                  "the call's deadline passed"),
                                                           nullptr));
  });
}

void ServerConnection::HandleFrame(Clock::time_point received) {
  const codec::FrameHeader& header = frame_.header;
  switch (header.type) {
    case codec::MessageType::kRequest:
      HandleRequest(received);
      return;
    case codec::MessageType::kHeartbeat:
      if ((header.flags & codec::flags::kHeartbeatReply) == 0) {
        SendControl(codec::MessageType::kHeartbeat, codec::flags::kHeartbeatReply,
                    header.request_id);
      }
      return;
    case codec::MessageType::kCancel:
      CancelCall(header.request_id);
      return;
    case codec::MessageType::kGoAway:
      if ((header.flags & codec::flags::kGoAwayAck) != 0) return OnGoAwayAck();
      break;
    case codec::MessageType::kResponse:
      break;
  }
  // The frame's lengths were valid, so the stream stays in step: skip it, as a newer minor
  // version may add message types.
  // Rate-limited: a peer may send these as fast as it likes, before it ever authenticated.
  static LogRateLimiter ignored_frames("ferry server: ignored frames");
  ignored_frames.Log(spdlog::level::warn, "ferry server: ignoring {} frame (type {}) from {}",
                     codec::MessageTypeName(header.type), static_cast<int>(header.type), peer_);
}

void ServerConnection::HandleRequest(Clock::time_point received) {
  const codec::FrameHeader& header = frame_.header;
  const auto reject = [&](const Status& status) {
    if ((header.flags & codec::flags::kOneWay) == 0) {
      SendResponse(header.request_id, header.serializer, status, nullptr, true);
    }
  };
  if (core_.shutting_down.load(std::memory_order_relaxed) || GoneAway()) {
    return reject(Status(StatusCode::DRAINING,
                         "server is shutting down and did not run the call; retry it elsewhere"));
  }
  Status status = codec::ParseMeta(frame_.meta, &meta_);
  // A 1.1 client's indexed token, resolved before the method is looked up or the body parsed,
  // which may reject the request: later requests refer to what it defines.
  if (status.ok() && meta_.auth_token_index() != 0) status = auth_tokens_.Resolve(&meta_);
  if (!status.ok()) return reject(status);
  const MethodTable::Entry* method = nullptr;
  status = core_.methods.Find(meta_.service(), meta_.method(), &method);
  if (!status.ok()) return reject(status);

  if (method->method->spec->inline_method) {
    ServerCall& call = ReusableCall();
    call.Reset(shared_from_this(), *method, header);
    bool answered = false;
    status = call.Prepare(&frame_, &meta_, received, core_.limits.max_frame_bytes, &answered);
    if (!status.ok()) {
      call.Abandon();
      if (!answered) reject(status);
      return;
    }
    return RunReusableCall();
  }
  const size_t body_bytes = frame_.body.size();  // the call takes the body
  auto call = std::make_unique<ServerCall>(shared_from_this(), *method, header);
  bool answered = false;
  status = call->Prepare(&frame_, &meta_, received, core_.limits.max_frame_bytes, &answered);
  if (!status.ok()) {
    if (!answered) reject(status);
    return;
  }
  call->Track();
  std::unique_ptr<BusinessPool::Task> task = std::move(call);
  BusinessPool::Refusal refusal{};
  if (!core_.pool->TrySubmit(&task, body_bytes, &refusal)) {
    task.reset();  // leaves the in-flight list before the answer goes out
    reject(Status(StatusCode::OVERLOADED, core_.pool->RefusalMessage(refusal)));
  }
}

ServerCall& ServerConnection::ReusableCall() {
  if (inline_call_ == nullptr) inline_call_ = std::make_unique<ServerCall>();
  return *inline_call_;
}

void ServerConnection::RunReusableCall() {
  // Went on asynchronously: the call owns itself now, and the next one gets a new object.
  if (!inline_call_->RunInline()) static_cast<void>(inline_call_.release());
}

void ServerConnection::CancelCall(uint64_t request_id) {
  MutexLock lock(calls_mu_);
  if (InFlightEntry* call = calls_in_flight_.Find(request_id)) {
    static_cast<ServerCall*>(call)->context().Cancel();
  }
}

void ServerConnection::SendResponse(uint64_t request_id, uint8_t serializer, const Status& status,
                                    const google::protobuf::Message* body, bool on_io_thread,
                                    size_t max_frame_bytes) {
  // Serialized outside any lock into a per-thread buffer whose capacity is kept across calls.
  thread_local std::string frame;
  frame.clear();
  codec::FrameHeader header;
  header.type = codec::MessageType::kResponse;
  header.request_id = request_id;
  codec::BodyOptions options = core_.response_body;
  options.serializer = serializer;
  Status outcome = status;
  if (outcome.ok()) {
    outcome = codec::AppendFrame(header, nullptr, body, options, &frame);
    if (!outcome.ok()) {
      Logger().error("ferry server: cannot write response to {}: {}", peer_, outcome.ToString());
    } else if (frame.size() > max_frame_bytes) {
      outcome = Status(StatusCode::RESOURCE_EXHAUSTED,
                       "the response (" + std::to_string(frame.size()) +
                           " bytes) exceeds the caller's max_frame_bytes (" +
                           std::to_string(max_frame_bytes) + ")");
    }
  }
  if (!outcome.ok()) {
    frame.clear();
    thread_local wire::RpcMeta meta;
    meta.Clear();
    meta.set_error_message(outcome.message());
    header.status = static_cast<uint16_t>(outcome.code());
    // Cannot fail: there is no body to serialize.
    static_cast<void>(codec::AppendFrame(header, &meta, nullptr, options, &frame));
  }
  Enqueue(frame, on_io_thread);
}

void ServerConnection::SendControl(codec::MessageType type, uint8_t flags, uint64_t request_id) {
  codec::FrameHeader header;
  header.type = type;
  header.flags = flags;
  header.request_id = request_id;
  const std::array<uint8_t, codec::kHeaderSize> bytes = codec::WriteHeader(header);
  Enqueue(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
          InReadLoop());
}

void ServerConnection::GoAway() {
  boost::asio::post(executor_, [self = shared_from_this()] {
    if (self->closed_ || self->goaway_sent_) return;
    self->goaway_sent_ = true;
    // Before the first bytes the protocol is unknown: Sniff() finishes this.
    if (self->sniffed_) self->SendGoAway();
  });
}

void ServerConnection::SendGoAway() {
  if (http_ == nullptr) return SendControl(codec::MessageType::kGoAway, 0, 0);
  // HTTP has no GOAWAY: the request in progress is answered with Connection: close, an idle
  // connection closes, and nothing more is taken.
  gone_away_.store(true, std::memory_order_release);
  http_->Drain();
  core_.connections.NotifyCallsFinished();
}

void ServerConnection::OnGoAwayAck() {
  // Everything the client sent before the acknowledgement has been read: what is in flight is
  // all this connection will ever run.
  if (!goaway_sent_ || GoneAway()) return;
  gone_away_.store(true, std::memory_order_release);
  core_.connections.NotifyCallsFinished();
}

void ServerConnection::Enqueue(std::string_view frame, bool on_io_thread) {
  const size_t limit = core_.connection_limits.max_outbound_bytes;
  if (unwritten_.fetch_add(frame.size(), std::memory_order_relaxed) + frame.size() > limit) {
    unwritten_.fetch_sub(frame.size(), std::memory_order_relaxed);
    if (!overflowed_.exchange(true)) {
      stats::Server().limit_events[stats::ServerMetrics::kOutboundOverflow]->Increment();
      boost::asio::post(executor_, [self = shared_from_this(), limit] {
        self->Close("the peer does not read its answers: more than " + std::to_string(limit) +
                        " bytes unwritten (server.limits.max_outbound_bytes)",
                    spdlog::level::warn);
      });
    }
    return;
  }
  core_.buffers.Charge(static_cast<int64_t>(frame.size()));
  if (!outbound_.Append(frame)) return;  // a flush is already on its way
  if (on_io_thread) {
    flush_requested_ = true;
    return;
  }
  boost::asio::post(executor_, [self = shared_from_this()] { self->Flush(); });
}

// Loops until the queue is empty: each round writes everything appended meanwhile in one go.
void ServerConnection::Flush() {
  if (closed_) {
    // What was queued after Close() gave the rest back.
    outbound_.Clear();
    core_.buffers.Charge(-static_cast<int64_t>(unwritten_.exchange(0)));
    return;
  }
  if (writing_) return;  // the running write's completion continues the loop
  if (!outbound_.TakeAll(&write_buffer_)) {
    if (closing_) {
      Close(close_reason_.empty() ? "server is shutting down" : close_reason_,
            spdlog::level::debug);
    }
    return;
  }
  writing_ = true;
  boost::asio::async_write(
      socket_, boost::asio::buffer(write_buffer_),
      [self = shared_from_this()](const boost::system::error_code& error, size_t bytes) {
        self->writing_ = false;
        stats::Server().sent_bytes[self->protocol_]->Increment(bytes);
        self->Written(bytes);
        if (error) {
          self->Close("write failed: " + error.message(), spdlog::level::info);
          return;
        }
        self->Flush();
        if (self->http_ != nullptr && !self->closed_) self->http_->Written();
        if (self->paused_) self->ContinueReading();
      });
}

void ServerConnection::ArmIdleTimer(Clock::time_point at) {
  idle_timer_.expires_at(at);
  idle_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    self->OnIdleTimer(error);
  });
}

void ServerConnection::OnIdleTimer(const boost::system::error_code& error) {
  if (error || closed_) return;
  const Clock::time_point now = Clock::now();
  const Clock::time_point due = last_receive_ + core_.idle_timeout;
  if (now < due) return ArmIdleTimer(due);
  // A caller waiting for a long call may legitimately stay silent meanwhile.
  if (HasCallsInFlight()) return ArmIdleTimer(now + core_.idle_timeout);
  Close("idle for " + std::to_string(core_.idle_timeout.count()) + " ms", spdlog::level::info);
}

void ServerConnection::Track(ServerCall* call) {
  core_.connections.CallStarted();
  MutexLock lock(calls_mu_);
  calls_in_flight_.Insert(call, call->request_id());
}

void ServerConnection::Untrack(std::shared_ptr<ServerConnection> connection, ServerCall* call) {
  ServerCore& core = connection->core_;
  bool unregister = false;
  {
    MutexLock lock(connection->calls_mu_);
    connection->calls_in_flight_.Erase(call);
    unregister = connection->calls_in_flight_.empty() && connection->disconnected_;
  }
  if (unregister) core.connections.Remove(connection.get());
  // Maybe the last reference: the core and the IO contexts are still there, as the server
  // waits for CallEnded().
  connection.reset();
  core.connections.CallEnded();
}

bool ServerConnection::HasCallsInFlight() const {
  MutexLock lock(calls_mu_);
  return !calls_in_flight_.empty();
}

void ServerConnection::CloseGracefully() {
  boost::asio::post(executor_, [self = shared_from_this()] {
    if (self->closed_) return;
    self->closing_ = true;
    self->Flush();
  });
}

void ServerConnection::Close(std::string_view reason, spdlog::level::level_enum level) {
  if (closed_) return;
  closed_ = true;
  CountClosed();
  gone_away_.store(true, std::memory_order_release);
  Logger().log(level, "ferry server: closing connection from {}: {}", peer_, reason);
  if (handshake_away_ && core_.handshakes.running()) {
    CloseAway();
  } else {
    boost::system::error_code ignored;
    socket_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.socket().close(ignored);
  }
  idle_timer_.cancel();
  frame_timer_.cancel();
  outbound_.Clear();
  ReleaseLimits();
  bool unregister = false;
  {
    MutexLock lock(calls_mu_);
    disconnected_ = true;
    // Nobody can receive their answers any more; handlers that watch cancelled() may stop.
    calls_in_flight_.ForEach(
        [](InFlightEntry* call) { static_cast<ServerCall*>(call)->context().Cancel(); });
    unregister = calls_in_flight_.empty();
  }
  if (unregister) {
    core_.connections.Remove(this);
  } else {
    // gone_away_ is set: a Stop() waiting for every connection to have gone away may go on.
    core_.connections.NotifyCallsFinished();
  }
}

}  // namespace ferry::server
